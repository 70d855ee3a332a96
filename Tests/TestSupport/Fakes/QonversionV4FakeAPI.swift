// A loopback stand-in for Qonversion's REST API v4 (the subs HTTP server engine with a handler
// of our own): identities, user entitlements and purchases as v4 list envelopes with cursor
// pagination — the page size capped at `pageCap` whatever `limit` asks, as the real API caps
// it — grant/revoke with a 422 for a paid entitlement, and only the secret key accepted.

import Foundation
import XCTest
import SubsJSON
import SubsHTTP
import SubsModel
import SubsCLI

package final class QonversionV4FakeAPI: @unchecked Sendable {
    package static let secretKey = "sk_V4S3cretKeyCCCCCCCCCCCCCCCCCC"
    package static let sandboxKey = "test_sk_V4S3cretKeyDDDDDDDDDDDDD"

    private let lock = NSLock()
    private var _seen: [String] = []
    private var _problems: [String] = []
    /// identity → user id.
    package var identities: [String: String] = [:]
    /// user id → entitlement objects; user id → purchase objects, newest first (as v4 lists them).
    package var entitlements: [String: [JSONValue]] = [:]
    package var purchases: [String: [JSONValue]] = [:]
    /// The most items a page holds, whatever `limit` asks.
    package var pageCap = 3
    /// "METHOD path" → a canned answer.
    package var canned: [String: HTTPResponse] = [:]
    private var server: HTTPServer!
    package var base = ""

    package init() throws {
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { [self] in handle($0) }
        try server.start()
        base = "http://127.0.0.1:\(server.port)/v4"
    }

    package func stop() {
        server.stop()
        server.wait()
    }

    package var seen: [String] { lock.lock(); defer { lock.unlock() }; return _seen }
    package var problems: [String] { lock.lock(); defer { lock.unlock() }; return _problems }
    package func forget() { lock.lock(); _seen = []; lock.unlock() }
    package func set(_ change: (QonversionV4FakeAPI) -> Void) { lock.lock(); change(self); lock.unlock() }

    package static func error(_ status: Int, type: String? = nil, code: String? = nil, message: String? = nil) -> HTTPResponse {
        QonversionFakeAPI.error(status, type: type, code: code, message: message)
    }

    package static func entitlement(_ id: String, active: Bool = true, source: String = "appstore", started: String? = "2026-01-10T09:00:00Z",
                            expires: String? = "2026-12-10T09:00:00Z", product: String? = "pro_monthly",
                            renew: String? = "will_renew", period: String = "normal") -> JSONValue {
        var productValue = JSONValue.null
        if let product {
            let subscription: JSONValue = renew.map {
                .object(JSONObject([("renew_state", .string($0)), ("current_period_type", .string(period))]))
            } ?? .null
            productValue = .object(JSONObject([("product_id", .string(product)), ("subscription", subscription)]))
        }
        return .object(JSONObject([
            ("object", .string("user_entitlement")), ("id", .string(id)), ("url", .string("/v4/users/x/entitlements/\(id)")),
            ("is_active", .bool(active)), ("source", .string(source)),
            ("started_at", started.map { .string($0) } ?? .null), ("expires_at", expires.map { .string($0) } ?? .null),
            ("product", productValue),
        ]))
    }

    package static func purchase(_ id: String, product: String, platform: String = "app_store", price: String? = "9.99",
                         currency: String? = "USD", at date: String, expires: String?, store: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject([
            ("object", .string("purchase")), ("id", .string(id)), ("url", .string("/v4/users/x/purchases/\(id)")),
            ("user_id", .string("QON_x")), ("platform", .string(platform)), ("product_id", .string(product)),
            ("currency", currency.map { .string($0) } ?? .null), ("price", price.map { .string($0) } ?? .null),
            ("purchased_at", .string(date)), ("expires_at", expires.map { .string($0) } ?? .null),
            ("is_auto_renewing", .bool(expires != nil)), ("store_data", .object(JSONObject(store))),
            ("created_at", .string(date)),
        ]))
    }

    private func problem(_ text: String) { _problems.append(text) }

    /// The query's `name=value` pairs, decoded.
    private static func query(_ text: String?) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (text ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            out[parts[0]] = parts.count > 1 ? HTTPRequest.percentDecode(Array(parts[1].utf8)) : ""
        }
        return out
    }

    /// One page of `items` after `starting_after`, at most min(limit, pageCap) long.
    private func page(_ items: [JSONValue], _ request: HTTPRequest, url: String) -> HTTPResponse {
        let q = Self.query(request.query)
        guard let limitText = q["limit"], let limit = Int(limitText), (1...100).contains(limit) else {
            problem("\(request.target): limit missing or out of 1...100")
            return Self.error(400, code: "invalid_limit")
        }
        var start = 0
        if let after = q["starting_after"] {
            guard let i = items.firstIndex(where: { $0["id"]?.stringValue == after }) else {
                problem("\(request.target): unknown cursor \(after)")
                return Self.error(400, code: "invalid_cursor")
            }
            start = i + 1
        }
        let end = min(items.count, start + min(limit, pageCap))
        let slice = Array(items[start..<end])
        let more = end < items.count
        return .json(.object(JSONObject([
            ("object", .string("list")), ("url", .string(url)), ("has_more", .bool(more)),
            ("next_cursor", more ? slice.last?["id"] ?? .null : .null), ("data", .array(slice)),
        ])), headers: [("Date", qonversionDate)])
    }

    private func handle(_ request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        _seen.append("\(request.method) \(request.target)")
        let label = "\(request.method) \(request.path)"
        let auth = request.headers["Authorization"]
        guard auth == "Bearer \(Self.secretKey)" || auth == "Bearer \(Self.sandboxKey)" else {
            return Self.error(403, type: "authentication_error", code: "secret_key_required", message: "secret key required")
        }
        if let response = canned[label] { return response }
        guard let segments = request.pathSegments, segments.first == "v4" else {
            problem("\(label): not under /v4")
            return .notFound()
        }
        switch (request.method, Array(segments.dropFirst())) {
        case ("GET", let path) where path.count == 2 && path[0] == "identities":
            guard let user = identities[path[1]] else { return Self.error(404, type: "not_found", code: "identity_not_found") }
            return .json(.object(JSONObject([("object", .string("identity")), ("id", .string(path[1])),
                                             ("url", .string("/v4/identities/\(path[1])")), ("user_id", .string(user))])))
        case ("GET", let path) where path.count == 3 && path[0] == "users" && path[2] == "entitlements":
            guard let list = entitlements[path[1]] else { return Self.error(404, type: "not_found", code: "user_not_found") }
            return page(list, request, url: request.path)
        case ("GET", let path) where path.count == 3 && path[0] == "users" && path[2] == "purchases":
            guard entitlements[path[1]] != nil else { return Self.error(404, type: "not_found", code: "user_not_found") }
            return page(purchases[path[1]] ?? [], request, url: request.path)
        case ("POST", let path) where path.count == 3 && path[0] == "users" && path[2] == "entitlements":
            guard entitlements[path[1]] != nil else { return Self.error(404, code: "user_not_found") }
            guard let body = try? JSON.parse(request.body), let fields = body.objectValue,
                  case .string(let id)? = fields["id"], Set(fields.keys).isSubset(of: ["id", "expires"]) else {
                problem("\(label): body \(String(decoding: request.body, as: UTF8.self))")
                return Self.error(400, code: "bad_request")
            }
            if let held = entitlements[path[1]]?.first(where: { $0["id"] == .string(id) }), held["source"] != .string("manual") {
                return Self.error(422, type: "invalid_request", code: "paid_entitlement",
                                  message: "Cannot modify an entitlement granted by a paid purchase")
            }
            let expires = fields["expires"].flatMap { value -> String? in
                guard case .number(let n) = value, let s = Int(n) else { return nil }
                return imfFixdate(s).isEmpty ? nil : ISODate.format(Instant(seconds: Int64(s)))
            }
            let granted = Self.entitlement(id, source: "manual", started: "2026-11-23T10:00:00Z", expires: expires, product: nil, renew: nil)
            entitlements[path[1]] = (entitlements[path[1]] ?? []) + [granted]
            return .json(granted, status: 201)
        case ("DELETE", let path) where path.count == 4 && path[0] == "users" && path[2] == "entitlements":
            guard let list = entitlements[path[1]] else { return Self.error(404, code: "user_not_found") }
            let kept = list.filter { !($0["id"] == .string(path[3]) && $0["source"] == .string("manual")) }
            guard kept.count < list.count else { return Self.error(404, type: "not_found", code: "entitlement_not_found") }
            entitlements[path[1]] = kept
            return HTTPResponse(status: 204)
        default:
            problem("\(label): no such v4 endpoint")
            return .notFound()
        }
    }
}
