// What `subs serve` answers instead of a customer: `{"error": {"code", "message"}}` (SPEC
// section 6). The client shows the server's own message, and the CLI gives the exit status the
// same command gives on a local store, by code: invalid_request 64, customer_not_found 3, … .
// An answer that is not this JSON is not the subs REST API's: a 404 then means the base URL is
// wrong (WrongBaseURL), anything else is a protocol error.

import SubsJSON
import SubsRemote

public struct SubsAPIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL asked, as shown in messages (no secrets).
    public var url: String
    public var status: Int
    /// The API's error code (`invalid_request`, `busy`, `invalid_store`…).
    public var code: String
    /// The server's message, as it wrote it (at most 500 characters).
    public var message: String
    /// The answer's `Subs-Request-Id` (SPEC section 6 rev. 4): shown, so that support finds the
    /// server's log line.
    public var requestId: String?

    public init(url: String, status: Int, code: String, message: String, requestId: String? = nil) {
        self.url = url
        self.status = status
        self.code = code
        self.message = message
        self.requestId = requestId
    }

    /// The server's message, so that a refusal reads like the local one (without a message,
    /// what came back), then the request id.
    public var description: String {
        let text = message.isEmpty ? "\(url): the server refused the request (HTTP \(status), \(code))" : message
        return requestId.map { text + " (request \($0))" } ?? text
    }

    /// The codes of a customer, entitlement or grant that does not exist (exit 3).
    public static let notFoundCodes: Set<String> = ["customer_not_found", "entitlement_not_found", "grant_not_found"]

    /// Server-side failures the server names (exit as the local store would: 65, 66, 73, 75, 70).
    /// Not retried: the server answered, and a cached answer does not stand in for it.
    public static let serverCodes: Set<String> = ["invalid_store", "store_unreadable", "store_unwritable", "busy", "internal"]

    /// The error an answer carries, when it is the subs REST API's error JSON.
    static func from(_ answer: RemoteAnswer) -> SubsAPIError? {
        guard let error = answer.jsonObject?["error"]?.objectValue, case .string(let code)? = error["code"],
              !code.isEmpty else { return nil }
        var message = error["message"]?.stringValue ?? ""
        if message.count > 500 { message = String(message.prefix(500)) + "…" }
        // An id of a few printable ASCII characters, or none: it is shown as it came.
        let id = answer.response.header("Subs-Request-Id").flatMap { id in
            id.count <= 64 && id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) ? id : nil
        }
        return SubsAPIError(url: answer.url, status: answer.response.status, code: code, message: message, requestId: id)
    }

    /// The error for an answer the request did not expect (not 2xx, not a known customer miss).
    static func failure(_ answer: RemoteAnswer) -> Error {
        let status = answer.response.status
        guard let error = from(answer) else {
            if status == 404 {
                return WrongBaseURL(url: answer.url, why: "and a body that is not the subs REST API's error JSON",
                                    expected: RemoteRecordStore.expectedBaseURL)
            }
            return RemoteError.protocolError(url: answer.url, reason: "HTTP \(status) that is not the subs REST API's error JSON")
        }
        // A route subs serve does not have: the path, so the base URL, is not the API's.
        if status == 404 && !notFoundCodes.contains(error.code) {
            return WrongBaseURL(url: answer.url, why: "(subs serve has no such route: \(error.code))",
                                expected: RemoteRecordStore.expectedBaseURL)
        }
        return error
    }

    /// For `RemoteClient`'s `refusal`: a 5xx the server explains in its own words, and a 403
    /// `forbidden` (the token lacks the scope: its message says which).
    static func refusal(_ answer: RemoteAnswer) -> Error? {
        guard let error = from(answer), serverCodes.contains(error.code) || error.code == "forbidden" else { return nil }
        return error
    }
}
