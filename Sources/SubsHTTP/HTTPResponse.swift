// A response as a handler returns it, a refusal the engine makes itself (its body is the
// application's: `HTTPServerConfiguration.refusalResponse`), and the bytes the engine writes
// (status line, Date, Content-Length, Connection always set by the engine).

#if canImport(Glibc)
import Glibc
#endif

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Headers of the handler's choosing; `Date`, `Content-Length`, `Connection` and
    /// `Transfer-Encoding` are the engine's and ignored here.
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Close the connection after this response even if the client would keep it open.
    public var closeConnection = false

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The bytes on the wire. A handler header whose name is not a token or whose value holds
    /// CR, LF or another control character is never written (response splitting): the answer
    /// becomes a 500 instead.
    func serialized(keepAlive: Bool, headOnly: Bool, date: String, refusal: HTTPRefusal.Response) -> [UInt8] {
        let safe = headers.allSatisfy { HTTPResponse.isSafeHeader(name: $0.0, value: $0.1) }
            && (100...999).contains(status)
        if !safe {
            var replacement = refusal(HTTPRefusal(status: 500, code: "internal", message: "the handler produced an invalid response header"))
            // The application's refusal must be writable itself, or this would never end.
            if !(replacement.headers.allSatisfy { HTTPResponse.isSafeHeader(name: $0.0, value: $0.1) }) {
                replacement = HTTPRefusal.plainText(HTTPRefusal(status: 500, code: "internal", message: "invalid response header"))
            }
            replacement.status = 500
            replacement.closeConnection = closeConnection
            return replacement.serialized(keepAlive: keepAlive, headOnly: headOnly, date: date, refusal: HTTPRefusal.plainText)
        }
        var head = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n"
        head += "Date: \(date)\r\n"
        let engineOwned: Set<String> = ["date", "content-length", "connection", "transfer-encoding"]
        for (name, value) in headers where !engineOwned.contains(name.lowercasedASCII) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        var out = Array(head.utf8)
        if !headOnly { out.append(contentsOf: body) }
        return out
    }

    static func isSafeHeader(name: String, value: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
            && value.utf8.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }
}

/// A request the engine answers itself, without the handler: malformed or too large
/// (`HTTPParseError`), not complete in time (408), one connection too many (503), or a handler's
/// answer that cannot be written (500). The connection closes after it. How its body reads is the
/// application's (`HTTPServerConfiguration.refusalResponse`): the engine knows no body format.
public struct HTTPRefusal: Sendable, Equatable {
    public typealias Response = @Sendable (HTTPRefusal) -> HTTPResponse
    public var status: Int
    /// A short machine-readable name: `invalid_request`, `payload_too_large`, `request_timeout`…
    public var code: String
    public var message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The engine's own body when the application chose none: `CODE: MESSAGE` as plain text.
    public static let plainText: Response = { refusal in
        HTTPResponse(status: refusal.status, headers: [("Content-Type", "text/plain; charset=utf-8")],
                     body: Array("\(refusal.code): \(refusal.message)\n".utf8))
    }
}
