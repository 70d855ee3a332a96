// A loopback stand-in for RevenueCat's REST API v1 (the subs HTTP server engine with a handler of
// our own) that answers the fixtures of Tests/Fixtures/revenuecat and checks every request:
// method, path and its encoding, Authorization, User-Agent, no X-Platform, body.

import XCTest
import Foundation
import SubsJSON
import SubsHTTP
import SubsCLI
import SubsModel
import SubsRemote

/// RevenueCat as far as subs uses it: subscribers from the fixtures (request_date 2026-12-01T12:00:00Z),
/// promotional grants and revokes kept in memory, and anything else scripted per test.
package final class FakeRevenueCat: @unchecked Sendable {
    package static let key = "sk_TESTSECRETabc123"
    package static let requestDate = "2026-12-01T12:00:00Z"
    package static let fixtures = ["tina": "trial", "carl": "cancelled", "gina": "grace", "rita": "billing-retry",
                           "ralph": "refund", "lena": "lifetime", "paul": "promotional", "fay": "family",
                           "sam": "sandbox", "pia": "paused", "uri": "unknown-store", "ghost": "empty",
                           "pete": "prepaid", "rhea": "restored-purchase", "mallory": "one-malformed", "mona": "money"]

    private let lock = NSLock()
    private var subscribers: [String: JSONValue] = [:]
    /// What a promotional grant replaced in `entitlements`, put back by a revoke (as RevenueCat
    /// then describes the entitlement by the purchase again).
    private var replaced: [String: JSONValue] = [:]
    package private(set) var requests: [HTTPRequest] = []
    package private(set) var problems: [String] = []
    /// Answers before the built-in routes when it returns non-nil (errors, retries, bad bodies).
    package var script: (@Sendable (Int, HTTPRequest) -> HTTPResponse?)?
    private var server: HTTPServer!
    package var base = ""
    /// The key requests must carry (a test of a wrong key changes it).
    package var expectedKey = FakeRevenueCat.key

    package init() throws {
        for (id, name) in Self.fixtures { subscribers[id] = try Self.fixture(name) }
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { [unowned self] in self.handle($0) }
        try server.start()
        base = "http://127.0.0.1:\(server.port)/v1"
    }

    package static func fixture(_ name: String) throws -> JSONValue {
        try JSON.parse(String(contentsOfFile: Repo.path("Tests/Fixtures/revenuecat/\(name).json"), encoding: .utf8))
    }

    package func stop() {
        server.stop()
        server.wait()
    }

    package var requestCount: Int { lock.lock(); defer { lock.unlock() }; return requests.count }

    package func set(_ id: String, _ subscriber: JSONValue) { lock.lock(); subscribers[id] = subscriber; lock.unlock() }

    private func handle(_ r: HTTPRequest) -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        requests.append(r)
        func expect(_ ok: Bool, _ what: String) { if !ok { problems.append("\(r.method) \(r.target): \(what)") } }
        expect(r.headers["Authorization"] == "Bearer \(expectedKey)", "Authorization is \(r.headers["Authorization"] ?? "absent")")
        expect(r.headers["User-Agent"] == "subs/\(CLI.version)", "User-Agent is \(r.headers["User-Agent"] ?? "absent")")
        expect(r.headers["X-Platform"] == nil, "X-Platform sent")
        expect(r.headers["Accept"] == "application/json", "Accept is \(r.headers["Accept"] ?? "absent")")
        expect(r.query == nil, "a query")
        if r.method == "POST" && !r.body.isEmpty {
            expect(r.headers["Content-Type"] == "application/json", "Content-Type is \(r.headers["Content-Type"] ?? "absent")")
        }
        if let scripted = script?(requests.count, r) { return scripted }
        guard let segments = r.pathSegments, segments.count >= 3, segments[0] == "v1", segments[1] == "subscribers" else {
            problems.append("unexpected path \(r.target)")
            return .json(.object(JSONObject([("code", .number("7000")), ("message", .string("no route"))])), status: 404)
        }
        // The path must be exactly what one-segment percent-encoding gives.
        let expected = "/v1/subscribers/" + segments[2...].map(RemoteURL.segment).joined(separator: "/")
        expect(r.path == expected, "path not encoded as segments (expected \(expected))")
        let id = segments[2]
        switch (r.method, Array(segments.dropFirst(3))) {
        case ("GET", []):
            expect(r.body.isEmpty, "GET with a body")
            if let subscriber = subscribers[id] { return .json(subscriber) }
            // RevenueCat creates unknown app user ids on GET.
            let created = Self.emptySubscriber(id)
            subscribers[id] = created
            return .json(created, status: 201)
        case ("POST", let rest) where rest.count == 3 && rest[0] == "entitlements" && rest[2] == "promotional":
            return grant(id, entitlement: rest[1], body: r.body, expect: expect)
        case ("POST", let rest) where rest.count == 3 && rest[0] == "entitlements" && rest[2] == "revoke_promotionals":
            expect(r.body.isEmpty, "revoke with a body")
            return revoke(id, entitlement: rest[1])
        default:
            problems.append("unexpected request \(r.method) \(r.target)")
            return .json(.object(JSONObject([("code", .number("7000")), ("message", .string("no route"))])), status: 404)
        }
    }

    package static func emptySubscriber(_ id: String) -> JSONValue {
        .object(JSONObject([
            ("request_date", .string(requestDate)),
            ("subscriber", .object(JSONObject([
                ("entitlements", .object(JSONObject())), ("first_seen", .string(requestDate)),
                ("non_subscriptions", .object(JSONObject())), ("original_app_user_id", .string(id)),
                ("subscriptions", .object(JSONObject())),
            ]))),
        ]))
    }

    private func grant(_ id: String, entitlement: String, body: [UInt8], expect: (Bool, String) -> Void) -> HTTPResponse {
        guard var doc = subscribers[id] ?? Optional(Self.emptySubscriber(id)), let parsed = try? JSON.parse(body),
              let members = parsed.objectValue else {
            expect(false, "grant body is not a JSON object")
            return .json(.object(JSONObject([("code", .number("7225")), ("message", .string("bad body"))])), status: 400)
        }
        let expires: JSONValue
        let product: String
        if members.keys == ["end_time_ms"], case .number(let ms)? = members["end_time_ms"], let n = Int64(ms) {
            expires = .string(ISODate.format(Instant(seconds: n / 1000)))
            product = "rc_promo_\(entitlement)_custom"
        } else if members.keys == ["duration"], members["duration"] == .string("lifetime") {
            expires = .null
            product = "rc_promo_\(entitlement)_lifetime"
        } else {
            expect(false, "grant body \(JSONWriter.compact(parsed))")
            return .json(.object(JSONObject([("code", .number("7225")), ("message", .string("bad body"))])), status: 400)
        }
        let now = JSONValue.string(Self.requestDate)
        doc = Self.updating(doc) { subscriber in
            var subs = subscriber["subscriptions"]?.objectValue ?? JSONObject()
            subs[product] = .object(JSONObject([
                ("expires_date", expires), ("original_purchase_date", now), ("purchase_date", now),
                ("store", .string("promotional")), ("store_transaction_id", .string("promo-\(entitlement)-1")),
                ("is_sandbox", .bool(false)), ("period_type", .string("normal")),
            ]))
            subscriber["subscriptions"] = .object(subs)
            var ents = subscriber["entitlements"]?.objectValue ?? JSONObject()
            if let previous = ents[entitlement], previous["product_identifier"]?.stringValue?.hasPrefix("rc_promo_") != true {
                replaced[id + "/" + entitlement] = previous
            }
            ents[entitlement] = .object(JSONObject([("expires_date", expires), ("product_identifier", .string(product)),
                                                    ("purchase_date", now)]))
            subscriber["entitlements"] = .object(ents)
        }
        subscribers[id] = doc
        return .json(doc, status: 201)
    }

    private func revoke(_ id: String, entitlement: String) -> HTTPResponse {
        guard let doc = subscribers[id] else { return .json(.object(JSONObject()), status: 404) }
        let now = JSONValue.string(Self.requestDate)
        let updated = Self.updating(doc) { subscriber in
            var subs = subscriber["subscriptions"]?.objectValue ?? JSONObject()
            for m in subs.members where m.key.hasPrefix("rc_promo_\(entitlement)_") {
                var sub = m.value.objectValue!
                sub["expires_date"] = now
                subs[m.key] = .object(sub)
            }
            subscriber["subscriptions"] = .object(subs)
            var ents = subscriber["entitlements"]?.objectValue ?? JSONObject()
            if var e = ents[entitlement]?.objectValue, e["product_identifier"]?.stringValue?.hasPrefix("rc_promo_") == true {
                e["expires_date"] = now
                ents[entitlement] = replaced.removeValue(forKey: id + "/" + entitlement) ?? .object(e)
            }
            subscriber["entitlements"] = .object(ents)
        }
        subscribers[id] = updated
        return .json(updated)
    }

    private static func updating(_ doc: JSONValue, _ change: (inout JSONObject) -> Void) -> JSONValue {
        var root = doc.objectValue!
        var subscriber = root["subscriber"]!.objectValue!
        change(&subscriber)
        root["subscriber"] = .object(subscriber)
        root["request_date"] = .string(requestDate)
        return .object(root)
    }
}
