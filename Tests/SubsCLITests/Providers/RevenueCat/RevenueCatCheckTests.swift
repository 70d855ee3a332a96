// Provider `revenuecat` against a loopback stand-in for RevenueCat's REST API v1 that answers our
// own fixtures (Tests/Fixtures/revenuecat/, written from the OpenAPI description) and checks
// every request: method, path and its encoding, Authorization, User-Agent, no X-Platform, body.
// Each fixture's `check --json` is compared field by field; the table's sentences too.

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI
@testable import SubsHTTP
@testable import SubsKit

/// RevenueCat as far as subs uses it: subscribers from the fixtures (request_date 2026-12-01T12:00:00Z),
/// promotional grants and revokes kept in memory, and anything else scripted per test.
final class FakeRevenueCat: @unchecked Sendable {
    static let key = "sk_TESTSECRETabc123"
    static let requestDate = "2026-12-01T12:00:00Z"
    static let fixtures = ["tina": "trial", "carl": "cancelled", "gina": "grace", "rita": "billing-retry",
                           "ralph": "refund", "lena": "lifetime", "paul": "promotional", "fay": "family",
                           "sam": "sandbox", "pia": "paused", "uri": "unknown-store", "ghost": "empty",
                           "pete": "prepaid", "rhea": "restored-purchase", "mallory": "one-malformed"]

    private let lock = NSLock()
    private var subscribers: [String: JSONValue] = [:]
    /// What a promotional grant replaced in `entitlements`, put back by a revoke (as RevenueCat
    /// then describes the entitlement by the purchase again).
    private var replaced: [String: JSONValue] = [:]
    private(set) var requests: [HTTPRequest] = []
    private(set) var problems: [String] = []
    /// Answers before the built-in routes when it returns non-nil (errors, retries, bad bodies).
    var script: (@Sendable (Int, HTTPRequest) -> HTTPResponse?)?
    private var server: HTTPServer!
    var base = ""
    /// The key requests must carry (a test of a wrong key changes it).
    var expectedKey = FakeRevenueCat.key

    init() throws {
        for (id, name) in Self.fixtures { subscribers[id] = try Self.fixture(name) }
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { [unowned self] in self.handle($0) }
        try server.start()
        base = "http://127.0.0.1:\(server.port)/v1"
    }

    static func fixture(_ name: String) throws -> JSONValue {
        try JSON.parse(String(contentsOfFile: Repo.path("Tests/Fixtures/revenuecat/\(name).json"), encoding: .utf8))
    }

    func stop() {
        server.stop()
        server.wait()
    }

    var requestCount: Int { lock.lock(); defer { lock.unlock() }; return requests.count }

    func set(_ id: String, _ subscriber: JSONValue) { lock.lock(); subscribers[id] = subscriber; lock.unlock() }

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

    static func emptySubscriber(_ id: String) -> JSONValue {
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

class RevenueCatTestCase: XCTestCase {
    var rc: FakeRevenueCat!
    var dir: TempDir!

    override func setUpWithError() throws {
        dir = TempDir()
        rc = try FakeRevenueCat()
    }

    override func tearDown() {
        rc.stop()
        XCTAssertEqual(rc.problems, [], "requests RevenueCat would not accept")
    }

    func run(_ args: [String], key: String? = FakeRevenueCat.key, env: [String: String] = [:]) -> CLIResult {
        var environment = ["XDG_CACHE_HOME": dir.path + "/cache"]
        if let key { environment["SUBS_API_KEY"] = key }
        environment.merge(env) { $1 }
        let result = runCLI(["--remote", rc.base, "--provider", "revenuecat"] + args, env: environment)
        XCTAssertFalse(result.stdout.contains(FakeRevenueCat.key) || result.stderr.contains(FakeRevenueCat.key), "the key was printed")
        return result
    }

    func checkJSON(_ id: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        let result = run(["check", id, "--json"])
        XCTAssertEqual(result.status, .success, result.stderr, file: file, line: line)
        return try JSON.parse(result.stdout)
    }
}

final class RevenueCatCheckTests: RevenueCatTestCase {
    private func assertCustomer(_ doc: JSONValue, id: String, requested: String, aliases: [String] = [],
                                active: [String], attributes: JSONValue = .null,
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "projected", "aliases", "firstSeen", "attributes",
                                               "activeEntitlements", "entitlements"], file: file, line: line)
        XCTAssertEqual(doc["customerId"], .string(id), file: file, line: line)
        XCTAssertEqual(doc["requestedId"], .string(requested), file: file, line: line)
        XCTAssertEqual(doc["requestDate"], .string(FakeRevenueCat.requestDate), file: file, line: line)
        XCTAssertEqual(doc["aliases"], .array(aliases.map { .string($0) }), file: file, line: line)
        XCTAssertEqual(doc["firstSeen"], .string("2025-06-01T08:00:00Z"), file: file, line: line)
        XCTAssertEqual(doc["attributes"], attributes, file: file, line: line)
        XCTAssertEqual(doc["activeEntitlements"], .array(active.map { .string($0) }), file: file, line: line)
    }

    private func sentences(_ id: String) -> [String] {
        let result = run(["check", id])
        XCTAssertEqual(result.status, .success, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("premium: ") }
    }

    func testActiveTrial() throws {
        let doc = try checkJSON("tina")
        assertCustomer(doc, id: "tina", requested: "tina", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "periodType": .string("trial"), "productId": .string("pro_monthly"),
            "startedDate": .string("2026-11-28T09:00:00Z"),
            // Nothing is paid during a free trial: no first purchase yet (SPEC section 3).
            "firstPurchaseDate": .null,
            "lastPurchaseDate": .string("2026-11-28T09:00:00Z"), "expirationDate": .string("2026-12-05T09:00:00Z"),
        ])
        XCTAssertEqual(sentences("tina"), ["premium: free trial, first payment due 2026-12-05"])
    }

    func testCancelledButStillActive() throws {
        let doc = try checkJSON("carl")
        assertCustomer(doc, id: "carl", requested: "carl", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "renewState": .string("canceled"), "willRenew": .bool(false), "source": .string("playstore"),
            "productId": .string("pro_monthly_play"), "startedDate": .string("2026-06-15T10:00:00Z"),
            "firstPurchaseDate": .string("2026-06-15T10:00:00Z"), "lastPurchaseDate": .string("2026-11-15T10:00:00Z"),
            "expirationDate": .string("2026-12-15T10:00:00Z"), "autoRenewDisableDate": .string("2026-11-20T16:30:00Z"),
        ])
        XCTAssertEqual(sentences("carl"), ["premium: cancelled on 2026-11-20, active until 2026-12-15"])
    }

    func testBillingIssueInGracePeriod() throws {
        let doc = try checkJSON("gina")
        assertCustomer(doc, id: "gina", requested: "gina", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "state": .string("gracePeriod"), "renewState": .string("billingIssue"), "willRenew": .bool(false),
            "productId": .string("pro_monthly"), "startedDate": .string("2026-03-30T08:00:00Z"),
            "firstPurchaseDate": .string("2026-03-30T08:00:00Z"), "lastPurchaseDate": .string("2026-10-30T08:00:00Z"),
            "expirationDate": .string("2026-12-14T08:00:00Z"), "gracePeriodExpirationDate": .string("2026-12-14T08:00:00Z"),
            "billingIssueDetectedAt": .string("2026-11-28T08:05:00Z"),
        ])
        XCTAssertEqual(sentences("gina"), ["premium: in grace period — billing issue detected 2026-11-28; access ends 2026-12-14 unless payment recovers"])
    }

    func testBillingRetry() throws {
        let doc = try checkJSON("rita")
        assertCustomer(doc, id: "rita", requested: "rita", active: [])
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("billingRetry"), "renewState": .string("billingIssue"),
            "willRenew": .bool(false), "productId": .string("pro_monthly"), "startedDate": .string("2026-01-10T07:00:00Z"),
            "firstPurchaseDate": .string("2026-01-10T07:00:00Z"), "lastPurchaseDate": .string("2026-10-10T07:00:00Z"),
            "expirationDate": .string("2026-11-26T07:00:00Z"), "gracePeriodExpirationDate": .string("2026-11-26T07:00:00Z"),
            "billingIssueDetectedAt": .string("2026-11-10T07:02:00Z"),
        ])
        XCTAssertEqual(sentences("rita"), ["premium: billing retry — billing issue detected 2026-11-10, access lost on 2026-11-26"])
        XCTAssertEqual(run(["check", "rita", "--require", "premium", "-q"]).status, .requirementMissing)
    }

    func testRefund() throws {
        let doc = try checkJSON("ralph")
        assertCustomer(doc, id: "ralph", requested: "ralph", active: [])
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("revoked"), "renewState": .string("unknown"), "willRenew": .bool(false),
            "productId": .string("pro_yearly"), "startedDate": .string("2025-09-01T12:00:00Z"),
            "firstPurchaseDate": .string("2025-09-01T12:00:00Z"), "lastPurchaseDate": .string("2026-09-01T12:00:00Z"),
            "expirationDate": .string("2026-11-15T13:20:00Z"), "refundedAt": .string("2026-11-15T13:20:00Z"),
            "revokedAt": .string("2026-11-15T13:20:00Z"),
        ])
        XCTAssertEqual(sentences("ralph"), ["premium: refunded on 2026-11-15"])
    }

    func testLifetimeNonSubscription() throws {
        let doc = try checkJSON("lena")
        assertCustomer(doc, id: "lena", requested: "lena", active: ["premium"])
        // The latest purchase of the product describes it.
        assertEntitlement(doc, "premium", [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "source": .string("stripe"),
            "productId": .string("lifetime_unlock"), "startedDate": .string("2026-04-02T10:00:00Z"),
            "firstPurchaseDate": .string("2026-04-02T10:00:00Z"), "lastPurchaseDate": .string("2026-04-02T10:00:00Z"),
        ])
        XCTAssertEqual(sentences("lena"), ["premium: one-time purchase of lifetime_unlock on 2026-04-02, no expiration"])
    }

    func testPromotionalGrant() throws {
        let doc = try checkJSON("paul")
        assertCustomer(doc, id: "paul", requested: "paul", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "periodType": .string("promotional"),
            "source": .string("manual"), "grantType": .string("manual"), "productId": .string("rc_promo_premium_custom"),
            "startedDate": .string("2026-11-20T09:00:00Z"), "firstPurchaseDate": .string("2026-11-20T09:00:00Z"),
            "lastPurchaseDate": .string("2026-11-20T09:00:00Z"), "expirationDate": .string("2027-01-01T00:00:00Z"),
        ])
        XCTAssertEqual(sentences("paul"), ["premium: manual grant, until 2027-01-01"])
    }

    func testFamilySharingWithAnotherOriginalIdAndAttributes() throws {
        rc.set("fay", try FakeRevenueCat.fixture("family"))
        let doc = try checkJSON("fay")
        assertCustomer(doc, id: "$RCAnonymousID:4b6f2a", requested: "fay", aliases: ["fay"], active: ["premium"],
                       attributes: .object(JSONObject([("$email", .string("fay@example.com"))])))
        assertEntitlement(doc, "premium", [
            "grantType": .string("familySharing"), "productId": .string("family_annual"),
            "startedDate": .string("2025-07-04T15:00:00Z"), "firstPurchaseDate": .string("2025-07-04T15:00:00Z"),
            "lastPurchaseDate": .string("2026-07-04T15:00:00Z"), "expirationDate": .string("2027-07-04T15:00:00Z"),
        ])
        XCTAssertEqual(sentences("fay"), ["premium: renews 2027-07-04; shared through family sharing"])
    }

    func testSandboxIntroOnAmazon() throws {
        let doc = try checkJSON("sam")
        assertCustomer(doc, id: "sam", requested: "sam", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "periodType": .string("intro"), "source": .string("amazon"), "productId": .string("pro_weekly"),
            "startedDate": .string("2026-11-08T20:00:00Z"), "firstPurchaseDate": .string("2026-11-08T20:00:00Z"),
            "lastPurchaseDate": .string("2026-11-29T20:00:00Z"), "expirationDate": .string("2026-12-06T20:00:00Z"),
            "isSandbox": .bool(true),
        ])
    }

    func testPausedPlaySubscription() throws {
        let doc = try checkJSON("pia")
        assertCustomer(doc, id: "pia", requested: "pia", active: [])
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("paused"), "renewState": .string("unknown"), "willRenew": .bool(false),
            "source": .string("playstore"), "productId": .string("pro_monthly_play"),
            "startedDate": .string("2026-02-20T11:00:00Z"), "firstPurchaseDate": .string("2026-02-20T11:00:00Z"),
            "lastPurchaseDate": .string("2026-10-20T11:00:00Z"), "expirationDate": .string("2026-11-20T11:00:00Z"),
            "autoResumeDate": .string("2027-01-20T11:00:00Z"),
        ])
        XCTAssertEqual(sentences("pia"), ["premium: paused from 2026-11-20 until 2027-01-20"])
    }

    func testUnknownStorePeriodAndOwnershipAndExtraFieldsNeverBreakALookup() throws {
        let doc = try checkJSON("uri")
        assertCustomer(doc, id: "uri", requested: "uri", active: ["extras", "premium"])
        let fields: [String: JSONValue] = [
            "source": .string("unknown"), "periodType": .string("unknown"), "productId": .string("pro_quarterly"),
            "startedDate": .string("2026-08-01T00:00:00Z"), "firstPurchaseDate": .string("2026-08-01T00:00:00Z"),
            "lastPurchaseDate": .string("2026-11-01T00:00:00Z"), "expirationDate": .string("2027-02-01T00:00:00Z"),
        ]
        assertEntitlement(doc, "premium", fields)
        assertEntitlement(doc, "extras", fields)
        XCTAssertEqual(doc["entitlements"]?.objectValue?.keys, ["extras", "premium"])
    }

    func testSeveralCustomersInOneCheckAndTheRequestsTheySend() throws {
        let result = run(["check", "tina", "rita", "--format", "jsonl"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 2)
        XCTAssertEqual(rc.requests.map { "\($0.method) \($0.target)" }, ["GET /v1/subscribers/tina", "GET /v1/subscribers/rita"])
    }

    func testIdsArePercentEncodedAsOnePathSegment() throws {
        for id in ["a/b", "a b?c#d", "ü€", "..", ".", "%41", "$RCAnonymousID:x+y&z=1"] {
            rc.set(id, try FakeRevenueCat.fixture("trial"))
            let result = run(["check", id, "--json"])
            XCTAssertEqual(result.status, .success, "\(id): \(result.stderr)")
            XCTAssertEqual(try JSON.parse(result.stdout)["requestedId"], .string(id))
            XCTAssertEqual(rc.requests.last?.path, "/v1/subscribers/" + RemoteURL.segment(id))
            XCTAssertEqual(rc.requests.last?.pathSegments?.last, id)
        }
        XCTAssertEqual(rc.requests.map(\.path).suffix(3), ["/v1/subscribers/%2E", "/v1/subscribers/%2541",
                                                           "/v1/subscribers/%24RCAnonymousID%3Ax%2By%26z%3D1"].suffix(3))
    }

    func testAnEmptySubscriberRevenueCatJustCreatedIsNotFound() {
        for id in ["ghost", "never-seen"] {
            let result = run(["check", id])
            XCTAssertEqual(result.status, .notFound, result.stderr)
            XCTAssertEqual(result.stdout, "")
            XCTAssertTrue(result.stderr.contains("subs: note: RevenueCat created an empty subscriber for '\(id)' on this request"), result.stderr)
            XCTAssertTrue(result.stderr.hasSuffix("subs: error: customer '\(id)' not found\n"), result.stderr)
        }
        // Among others: the others are printed, the status is 3.
        let mixed = run(["check", "tina", "ghost", "--json"])
        XCTAssertEqual(mixed.status, .notFound)
        XCTAssertEqual((try? JSON.parse(mixed.stdout))?.arrayValue?.map { $0["requestedId"] }, [.string("tina"), .string("ghost")])
        // History says why too.
        let history = run(["history", "ghost"])
        XCTAssertEqual(history.status, .notFound)
        XCTAssertTrue(history.stderr.contains("RevenueCat created an empty subscriber"), history.stderr)
    }

    func testAnEmptySubscriberSeenLongAgoIsACustomerWithoutEntitlements() throws {
        var old = try FakeRevenueCat.fixture("empty").objectValue!
        var subscriber = old["subscriber"]!.objectValue!
        subscriber["first_seen"] = .string("2026-11-01T00:00:00Z")
        old["subscriber"] = .object(subscriber)
        rc.set("quiet", .object(old))
        let result = run(["check", "quiet", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["entitlements"], .object(JSONObject()))
        XCTAssertEqual(result.stderr, "")
    }
}
