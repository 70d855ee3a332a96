// A loopback stand-in for Qonversion's REST API v3 (the subs HTTP server engine with a handler of
// our own) that checks every request — method, percent-encoded path under the /v3 base, headers
// (Bearer key, User-Agent, Accept), body — and answers from Tests/Fixtures/qonversion. The engine
// stamps its own `Date`; `PinnedDateTransport` pins it in transit so that answers are reproducible.

import Foundation
import XCTest
import SubsJSON
import SubsHTTP
import SubsRemote
import SubsCLI

package final class QonversionFakeAPI: @unchecked Sendable {
    package static let projectKey = "Pr0jectKeyAAAAAAAAAAAAAAAAAAAAAA"
    package static let secretKey = "sk_S3cretKeyBBBBBBBBBBBBBBBBBBBB"
    /// Fixture users, one per file of Tests/Fixtures/qonversion: `QON_<file name>`.
    package static let fixtureNames = ["renewing", "trial-canceled", "billing-active", "billing-lapsed", "intro", "lifetime",
                               "manual", "unknown-values", "expiry-zero", "empty", "non-renewable"]

    package struct Seen: Equatable {
        package var method: String
        /// As received: still percent-encoded.
        package var target: String
        package var body: String
    }

    private let lock = NSLock()
    private var _seen: [Seen] = []
    private var _problems: [String] = []
    /// identity → Qonversion user id.
    private var identities: [String: String] = [:]
    /// user id → entitlement objects (grants and revokes change them).
    private var users: [String: [JSONValue]] = [:]
    /// "METHOD target" → a canned answer, checked before anything else (after the request checks).
    private var canned: [String: HTTPResponse] = [:]

    private var server: HTTPServer!
    package var base = ""

    package init() throws {
        for name in Self.fixtureNames {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.path("Tests/Fixtures/qonversion/\(name).json")))
            users["QON_" + name] = try JSON.parse(Array(bytes))["data"]?.arrayValue ?? []
        }
        identities = ["alice": "QON_renewing", "bob": "QON_billing-active", "a/b c+é": "QON_intro", "..": "QON_lifetime",
                      "with/slash": "QON_odd/user id"]
        users["QON_odd/user id"] = []
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { [self] in handle($0) }
        try server.start()
        base = "http://127.0.0.1:\(server.port)/v3"
    }

    package func stop() {
        server.stop()
        server.wait()
    }

    package var seen: [Seen] { lock.lock(); defer { lock.unlock() }; return _seen }
    /// The same handler without a socket (`InProcessTransport`): give `base` as the remote URL.
    package var inProcess: InProcessTransport { InProcessTransport { [self] in handle($0) } }
    package var problems: [String] { lock.lock(); defer { lock.unlock() }; return _problems }
    package func forget() { lock.lock(); _seen = []; lock.unlock() }

    package func answer(_ method: String, _ target: String, _ response: HTTPResponse) {
        lock.lock(); canned["\(method) \(target)"] = response; lock.unlock()
    }

    package func forgetCanned() { lock.lock(); canned = [:]; lock.unlock() }

    package func setUser(_ id: String, _ entitlements: [JSONValue]) {
        lock.lock(); users[id] = entitlements; lock.unlock()
    }

    package func entitlements(of user: String) -> [JSONValue] {
        lock.lock(); defer { lock.unlock() }; return users[user] ?? []
    }

    package static func error(_ status: Int, type: String? = nil, code: String? = nil, message: String? = nil) -> HTTPResponse {
        var parts: [(String, JSONValue)] = []
        if let type { parts.append(("type", .string(type))) }
        if let code { parts.append(("code", .string(code))) }
        if let message { parts.append(("message", .string(message))) }
        return .json(.object(JSONObject([("error", .object(JSONObject(parts)))])), status: status)
    }

    private func problem(_ text: String) { _problems.append(text) }

    private func handle(_ request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        _seen.append(Seen(method: request.method, target: request.target, body: String(decoding: request.body, as: UTF8.self)))
        let label = "\(request.method) \(request.target)"
        if request.headers["User-Agent"]?.hasPrefix("subs/") != true { problem("\(label): User-Agent \(request.headers["User-Agent"] ?? "none")") }
        if request.headers["Accept"] != "application/json" { problem("\(label): Accept \(request.headers["Accept"] ?? "none")") }
        if request.query != nil { problem("\(label): a query") }
        let auth = request.headers["Authorization"]
        guard auth == "Bearer \(Self.projectKey)" || auth == "Bearer \(Self.secretKey)" else {
            return Self.error(401, type: "authentication_error", code: "unauthorized", message: "invalid project key")
        }
        let isWrite = request.method == "POST" || request.method == "DELETE"
        // Qonversion: the project key reads; only the secret key writes.
        if isWrite && auth != "Bearer \(Self.secretKey)" {
            return Self.error(403, type: "authentication_error", code: "forbidden", message: "secret key required")
        }
        if let response = canned[label] { return response }
        guard let segments = request.pathSegments, segments.first == "v3" else {
            problem("\(label): not under /v3")
            return .notFound()
        }
        // Every segment arrives encoded exactly as RemoteURL.segment encodes it.
        let reencoded = "/" + segments.map { $0 == "v3" ? $0 : RemoteURL.segment($0) }.joined(separator: "/")
        if reencoded != request.path { problem("\(label): path not encoded as one segment each (\(reencoded))") }
        switch (request.method, Array(segments.dropFirst())) {
        case ("GET", let path) where path.count == 2 && path[0] == "identities":
            guard let user = identities[path[1]] else {
                return Self.error(404, type: "not_found", code: "identity_not_found", message: "identity not found")
            }
            return .json(.object(JSONObject([("id", .string(path[1])), ("user_id", .string(user))])))
        case ("GET", let path) where path.count == 3 && path[0] == "users" && path[2] == "entitlements":
            guard let list = users[path[1]] else { return Self.error(404, code: "user_not_found") }
            if !request.body.isEmpty { problem("\(label): a body on a GET") }
            return .json(.object(JSONObject([("data", .array(list))])))
        case ("POST", let path) where path.count == 3 && path[0] == "users" && path[2] == "entitlements":
            guard users[path[1]] != nil else { return Self.error(404, code: "user_not_found") }
            if request.headers["Content-Type"] != "application/json" { problem("\(label): Content-Type") }
            guard let body = try? JSON.parse(request.body), let fields = body.objectValue,
                  fields.keys == ["id", "expires"], case .string(let id)? = fields["id"],
                  case .number(let expires)? = fields["expires"], Int64(expires) != nil else {
                problem("\(label): body \(String(decoding: request.body, as: UTF8.self))")
                return Self.error(400, code: "bad_request", message: "id and expires required")
            }
            let granted = JSONValue.object(JSONObject([
                ("id", .string(id)), ("active", .bool(true)), ("started", .number("1795428000")),
                ("expires", .number(expires)), ("source", .string("manual")), ("product", .null),
            ]))
            users[path[1]] = (users[path[1]] ?? []).filter { $0["id"] != .string(id) } + [granted]
            return .json(granted, status: 201)
        case ("DELETE", let path) where path.count == 4 && path[0] == "users" && path[2] == "entitlements":
            guard let list = users[path[1]] else { return Self.error(404, code: "user_not_found") }
            let kept = list.filter { !($0["id"] == .string(path[3]) && $0["source"] == .string("manual")) }
            guard kept.count < list.count else {
                return Self.error(404, type: "not_found", code: "entitlement_not_found", message: "no manual entitlement")
            }
            users[path[1]] = kept
            return HTTPResponse(status: 204)
        default:
            problem("\(label): no such v3 endpoint")
            return .notFound()
        }
    }
}

/// Pins (or removes) the `Date` of every answer, on the way from a real transport.
package struct PinnedDateTransport: HTTPTransport {
    package enum Mode: Sendable { case keep, drop, set(String) }
    package let inner: HTTPTransport
    package let mode: Mode

    package init(inner: HTTPTransport, mode: Mode) {
        self.inner = inner
        self.mode = mode
    }

    package func send(_ request: RemoteRequest) throws -> RemoteResponse {
        var response = try inner.send(request)
        if case .keep = mode { return response }
        response.headers.removeAll { $0.name.lowercased() == "date" }
        if case .set(let date) = mode { response.headers.append((name: "Date", value: date)) }
        return response
    }
}

/// A transport that never reaches a network: records the request, answers 404.
package final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var _urls: [String] = []
    package var urls: [String] { lock.lock(); defer { lock.unlock() }; return _urls }
    package init() {}
    package func send(_ request: RemoteRequest) throws -> RemoteResponse {
        lock.lock(); _urls.append(request.url); lock.unlock()
        return RemoteResponse(status: 404, body: Array(#"{"error": {"code": "identity_not_found"}}"#.utf8))
    }
}

/// The server's clock in every answer of these tests: 2026-11-23T10:00:00Z.
package let qonversionDate = "Mon, 23 Nov 2026 10:00:00 GMT"

/// Runs `subs --provider qonversion` in-process against `remote` (nil: the default base URL)
/// with the key in SUBS_API_KEY, the cache in `cache`, SUBS_NOW = testNow.
package func runQonversion(_ arguments: [String], remote: String?, key: String = QonversionFakeAPI.projectKey, cache: String,
                   date: PinnedDateTransport.Mode = .set(qonversionDate), transport: HTTPTransport? = nil,
                   env extra: [String: String] = [:]) -> CLIResult {
    var environment = ["SUBS_API_KEY": key, "XDG_CACHE_HOME": cache, "SUBS_TIMEOUT": "5"]
    environment.merge(extra) { $1 }
    return CLIHarness(env: environment, http: transport ?? PinnedDateTransport(inner: CurlTransport(), mode: date))
        .run((remote.map { ["--remote", $0] } ?? []) + ["--provider", "qonversion"] + arguments)
}
