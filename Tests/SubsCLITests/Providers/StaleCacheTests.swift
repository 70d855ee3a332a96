// A cached answer is judged at the local clock, never at the date it was fetched (SPEC section
// 6): an entitlement fetched an hour before its end, read 5 days later from the cache — with
// --offline, with the server down, or as a --max-age hit — is expired, `check --require` fails,
// the document's requestDate is the local instant, and stderr says the answer's age. For every
// provider, each against a loopback fake that answers one customer, zoe.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsRemote
@testable import SubsServer
@testable import SubsCLI

final class StaleCacheTests: XCTestCase {
    /// When the answer is fetched, and its entitlement's end an hour later.
    static let fetched = "2026-12-01T12:00:00Z"
    static let fetchedHTTPDate = "Tue, 01 Dec 2026 12:00:00 GMT"
    static let ends = "2026-12-01T13:00:00Z"
    static let later = "2026-12-06T12:00:00Z"

    private var dir: TempDir!
    private var server: HTTPServer!

    override func setUp() { dir = TempDir() }

    override func tearDown() {
        server?.stop()
        server?.wait()
    }

    /// Starts a loopback server with `handler`; returns its base URL with `path`.
    private func serve(_ path: String, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> String {
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: handler)
        try server.start()
        return "http://127.0.0.1:\(server.port)\(path)"
    }

    private func run(_ base: String, _ provider: String, _ args: [String], now: String) -> CLIResult {
        runCLI(["--remote", base, "--provider", provider] + args,
               env: ["SUBS_API_KEY": "k3y", "XDG_CACHE_HOME": dir.path + "/cache", "SUBS_TIMEOUT": "3"], now: now,
               http: PinnedDateTransport(inner: CurlTransport(), mode: .set(Self.fetchedHTTPDate)))
    }

    /// The acceptance: fresh, then 5 days later --offline, --max-age and with the server down.
    private func assertJudgedAtTheLocalClock(_ base: String, _ provider: String, user: String = "zoe",
                                             file: StaticString = #filePath, line: UInt = #line) throws {
        let fresh = run(base, provider, ["check", user, "--json"], now: Self.fetched)
        XCTAssertEqual(fresh.status, .success, fresh.stderr, file: file, line: line)
        let freshDoc = try JSON.parse(fresh.stdout)
        XCTAssertEqual(freshDoc["entitlements"]?["premium"]?["isActive"], .bool(true), file: file, line: line)
        XCTAssertEqual(freshDoc["entitlements"]?["premium"]?["expirationDate"], .string(Self.ends), file: file, line: line)
        XCTAssertFalse(fresh.stderr.contains("cache"), fresh.stderr, file: file, line: line)

        for (options, why) in [(["--offline"], "(--offline), 5 d old"), (["--max-age", "P7D"], "(--max-age), 5 d old")] {
            let stale = run(base, provider, options + ["check", user, "--json"], now: Self.later)
            XCTAssertEqual(stale.status, .success, stale.stderr, file: file, line: line)
            let doc = try JSON.parse(stale.stdout)
            XCTAssertEqual(doc["requestDate"], .string(Self.later), "\(options)", file: file, line: line)
            XCTAssertEqual(doc["activeEntitlements"], .array([]), "\(options)", file: file, line: line)
            let premium = doc["entitlements"]?["premium"]
            XCTAssertEqual(premium?["isActive"], .bool(false), "\(options)", file: file, line: line)
            XCTAssertEqual(premium?["state"], .string("expired"), "\(options)", file: file, line: line)
            XCTAssertEqual(premium?["willRenew"], .bool(false), "\(options)", file: file, line: line)
            XCTAssertEqual(premium?["expirationDate"], .string(Self.ends), "\(options)", file: file, line: line)
            XCTAssertTrue(stale.stderr.hasPrefix("subs: note: ") && stale.stderr.contains("answered from the cache \(why)"),
                          "\(options): \(stale.stderr)", file: file, line: line)
            let gate = run(base, provider, options + ["check", user, "--require", "premium", "-q"], now: Self.later)
            XCTAssertEqual(gate.status, .requirementMissing, gate.stderr, file: file, line: line)
            XCTAssertTrue(gate.stderr.contains("5 d old"), gate.stderr, file: file, line: line)
        }

        server.stop()
        server.wait()
        server = nil
        let down = run(base, provider, ["check", user, "--json"], now: Self.later)
        XCTAssertEqual(down.status, .success, down.stderr, file: file, line: line)
        XCTAssertEqual(try JSON.parse(down.stdout)["requestDate"], .string(Self.later), file: file, line: line)
        XCTAssertEqual(try JSON.parse(down.stdout)["entitlements"]?["premium"]?["state"], .string("expired"), file: file, line: line)
        XCTAssertTrue(down.stderr.contains("answered from the cache, 5 d old: server unreachable"), down.stderr, file: file, line: line)
        let gate = run(base, provider, ["check", user, "--require", "premium", "-q"], now: Self.later)
        XCTAssertEqual(gate.status, .requirementMissing, gate.stderr, file: file, line: line)
        // Table output says the same.
        let table = run(base, provider, ["check", user], now: Self.later)
        XCTAssertTrue(table.stdout.contains("expired"), table.stdout, file: file, line: line)
    }

    func testSubsServe() throws {
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"pro_monthly": {"type": "subscription", "entitlements": ["premium"]}},
             "customers": {"zoe": {"grants": [{"id": "g1", "entitlement": "premium", "grantedAt": "2026-11-01T00:00:00Z",
                                               "expirationDate": "\(Self.ends)"}]}}}
            """)
        let api = SubsAPI(store: LocalStore(path: store), token: "k3y", clock: FixedClock(ISODate.parse(Self.fetched)!))
        try assertJudgedAtTheLocalClock(try serve("", { api.handle($0) }), "subs")
    }

    func testRevenueCat() throws {
        let body = """
            {"request_date": "\(Self.fetched)", "request_date_ms": 1796126400000,
             "subscriber": {"original_app_user_id": "zoe", "first_seen": "2026-01-01T00:00:00Z",
               "entitlements": {"premium": {"expires_date": "\(Self.ends)", "product_identifier": "pro_monthly",
                                            "purchase_date": "2026-11-01T13:00:00Z"}},
               "subscriptions": {"pro_monthly": {"expires_date": "\(Self.ends)", "purchase_date": "2026-11-01T13:00:00Z",
                 "original_purchase_date": "2026-10-01T13:00:00Z", "period_type": "normal", "store": "app_store",
                 "is_sandbox": false, "ownership_type": "PURCHASED"}},
               "non_subscriptions": {}}}
            """
        let base = try serve("/v1") { request in
            request.path == "/v1/subscribers/zoe"
                ? HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
                : .notFound()
        }
        try assertJudgedAtTheLocalClock(base, "revenuecat")
    }

    func testQonversion() throws {
        let entitlements = """
            {"data": [{"id": "premium", "active": true, "started": 1790000000, "expires": \(ISODate.parse(Self.ends)!.seconds),
                       "source": "appstore", "product": {"product_id": "pro_monthly",
                       "subscription": {"current_period_type": "normal", "renew_state": "will_renew"}}}]}
            """
        let base = try serve("/v3") { request in
            switch request.path {
            case "/v3/identities/zoe": return .json(.object(JSONObject([("id", .string("zoe")), ("user_id", .string("QON_zoe"))])))
            case "/v3/users/QON_zoe/entitlements":
                return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(entitlements.utf8))
            default: return .error(status: 404, code: "not_found", message: "no such route")
            }
        }
        try assertJudgedAtTheLocalClock(base, "qonversion")
    }

    func testIAPHUB() throws {
        let user = """
            {"productsForSale": [], "activeProducts": [{"id": "p1", "type": "renewable_subscription", "sku": "pro_monthly",
              "platform": "ios", "purchaseDate": "2026-11-01T13:00:00.000Z", "groupName": "premium",
              "expirationDate": "2026-12-01T13:00:00.000Z", "isSubscriptionRenewable": true, "subscriptionState": "active",
              "subscriptionPeriodType": "normal", "isFamilyShare": false, "isPromo": false}]}
            """
        let base = try serve("/v1/app/app1") { request in
            request.path == "/v1/app/app1/user/zoe"
                ? HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(user.utf8))
                : HTTPResponse(status: 404, headers: [("Content-Type", "application/json")], body: Array(#"{"error":"user_not_found"}"#.utf8))
        }
        try assertJudgedAtTheLocalClock(base, "iaphub")
    }

    /// A fresh answer keeps the server's requestDate, even when the local clock is days later.
    func testAFreshAnswerIsJudgedAtTheServersRequestDate() throws {
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"p": {"type": "subscription", "entitlements": ["premium"]}},
             "customers": {"zoe": {"grants": [{"id": "g1", "entitlement": "premium", "grantedAt": "2026-11-01T00:00:00Z",
                                               "expirationDate": "\(Self.ends)"}]}}}
            """)
        let api = SubsAPI(store: LocalStore(path: store), token: "k3y", clock: FixedClock(ISODate.parse(Self.fetched)!))
        let base = try serve("") { api.handle($0) }
        let fresh = run(base, "subs", ["check", "zoe", "--json"], now: Self.later)
        XCTAssertEqual(fresh.status, .success, fresh.stderr)
        XCTAssertEqual(try JSON.parse(fresh.stdout)["requestDate"], .string(Self.fetched))
        XCTAssertEqual(try JSON.parse(fresh.stdout)["activeEntitlements"], .array([.string("premium")]))
        XCTAssertEqual(fresh.stderr, "")
    }
}
