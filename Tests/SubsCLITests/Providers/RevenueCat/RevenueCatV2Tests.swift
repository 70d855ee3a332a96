// Provider `revenuecat` with a v2 base URL against a loopback RevenueCat API v2 (FakeRevenueCatV2):
// check, history and renew-count field by field; lists over several pages (the fake cuts pages
// shorter than asked); unknown customer, wrong base URL, rate limit, malformed items, page caps.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsRemote
@testable import SubsSource
@testable import SubsProviders
@testable import SubsCLI

class RevenueCatV2TestCase: XCTestCase {
    var rc: FakeRevenueCatV2!
    var dir: TempDir!
    typealias F = FakeRevenueCatV2

    override func setUpWithError() throws {
        dir = TempDir()
        rc = try FakeRevenueCatV2()
        // alice: an App Store subscription renewed twice (its transactions over two pages) and a coin pack.
        rc.customers["alice"] = .init(
            body: F.customer("alice", active: [("entl_premium", "2026-12-15T09:00:00Z")], attributes: [("$email", "alice@example.com")]),
            subscriptions: [F.subscription("sub_a1", customer: "alice", product: "prod_monthly", store: "app_store",
                                           starts: "2026-09-15T09:00:00Z", periodStarts: "2026-11-15T09:00:00Z",
                                           periodEnds: "2026-12-15T09:00:00Z", givesAccess: true, renewal: "will_renew",
                                           status: "active", entitlements: [("entl_premium", "premium")], storeId: "2000000300")],
            purchases: [F.purchase("purch_c1", customer: "alice", product: "prod_coins", at: "2026-08-01T10:00:00Z",
                                   entitlements: [], storeId: "2000000050", revenue: F.money("USD", "4.99"))])
        rc.transactions["sub_a1"] = [
            F.transaction("2000000100", at: "2026-09-15T09:00:00Z", product: "pro_monthly", expires: "2026-10-15T09:00:00Z", local: F.money("EUR", "9.99")),
            F.transaction("2000000200", at: "2026-10-15T09:00:00Z", product: "pro_monthly", expires: "2026-11-15T09:00:00Z", local: F.money("EUR", "9.99")),
            F.transaction("2000000300", at: "2026-11-15T09:00:00Z", product: "pro_monthly", expires: "2026-12-15T09:00:00Z", local: F.money("EUR", "10.99")),
        ]
        // paula: three subscriptions over two pages — an old Stripe one, a promotional grant, a Play one in grace.
        rc.customers["paula"] = .init(
            body: F.customer("paula", active: [("entl_pro", "2026-12-04T09:00:00Z"), ("entl_cloud", "2026-12-20T00:00:00Z")]),
            subscriptions: [
                F.subscription("sub_s1", customer: "paula", product: "prod_web", store: "stripe", starts: "2025-01-10T00:00:00Z",
                               periodStarts: "2025-06-10T00:00:00Z", periodEnds: "2025-07-10T00:00:00Z", givesAccess: false,
                               renewal: "will_not_renew", status: "expired", entitlements: [("entl_premium", "premium")], storeId: "sub_1Stripe"),
                F.subscription("sub_promo", customer: "paula", product: nil, store: "promotional", starts: "2026-11-20T00:00:00Z",
                               periodStarts: "2026-11-20T00:00:00Z", periodEnds: "2026-12-20T00:00:00Z", givesAccess: true,
                               renewal: "will_not_renew", status: "active", entitlements: [("entl_cloud", "cloud")], storeId: "promo_cloud"),
                F.subscription("sub_p1", customer: "paula", product: "prod_play", store: "play_store", starts: "2026-09-01T09:00:00Z",
                               periodStarts: "2026-11-01T09:00:00Z", periodEnds: "2026-12-01T09:00:00Z", givesAccess: true,
                               renewal: "will_renew", status: "in_grace_period", entitlements: [("entl_pro", "pro")],
                               storeId: "GPA.3372-4150-9088-12345..1"),
            ])
        rc.transactions["sub_p1"] = [
            F.transaction("GPA.3372-4150-9088-12345", at: "2026-09-01T09:00:00Z", product: "pro_play:monthly", expires: "2026-10-01T09:00:00Z"),
            F.transaction("GPA.3372-4150-9088-12345..0", at: "2026-10-01T09:00:00Z", product: "pro_play:monthly", expires: "2026-11-01T09:00:00Z"),
            F.transaction("GPA.3372-4150-9088-12345..1", at: "2026-11-01T09:00:00Z", product: "pro_play:monthly", expires: "2026-12-01T09:00:00Z",
                          effective: "2026-12-04T09:00:00Z"),
        ]
        // lena: a lifetime purchase, and a refunded one.
        rc.customers["lena"] = .init(
            body: F.customer("lena", active: [("entl_premium", nil)]),
            purchases: [
                F.purchase("purch_l1", customer: "lena", product: "prod_lifetime", at: "2026-01-05T10:00:00Z",
                           entitlements: [("entl_premium", "premium")], storeId: "2000000999", revenue: F.money("USD", "49.99")),
                F.purchase("purch_r1", customer: "lena", product: "prod_noads", at: "2026-02-01T10:00:00Z", status: "refunded",
                           entitlements: [("entl_noads", "noads")], storeId: "2000001000", revenue: F.money("USD", "2.99")),
            ])
    }

    override func tearDown() {
        rc.stop()
        XCTAssertEqual(rc.problems, [], "requests RevenueCat would not accept")
    }

    func run(_ args: [String], key: String? = FakeRevenueCatV2.key, remote: String? = nil) -> CLIResult {
        var environment = ["XDG_CACHE_HOME": dir.path + "/cache"]
        if let key { environment["SUBS_API_KEY"] = key }
        // The loopback server stamps its own Date: RevenueCat's clock is pinned in transit.
        let result = runCLI(["--remote", remote ?? rc.base, "--provider", "revenuecat"] + args, env: environment,
                            http: PinnedDateTransport(inner: CurlTransport(), mode: .set(F.date)))
        XCTAssertFalse(result.stdout.contains(FakeRevenueCatV2.key) || result.stderr.contains(FakeRevenueCatV2.key), "the key was printed")
        return result
    }

    func json(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        let result = run(args + ["--json"])
        XCTAssertEqual(result.status, .success, result.stderr, file: file, line: line)
        return try JSON.parse(result.stdout)
    }
}

final class RevenueCatV2CheckTests: RevenueCatV2TestCase {
    func testAppStoreSubscriptionFieldByField() throws {
        let doc = try json(["check", "alice"])
        XCTAssertEqual(doc["customerId"], .string("alice"))
        XCTAssertEqual(doc["requestDate"], .string("2026-12-01T12:00:00Z"))
        XCTAssertEqual(doc["firstSeen"], .string("2025-06-01T08:00:00Z"))
        XCTAssertEqual(doc["aliases"], .array([]))
        XCTAssertEqual(doc["attributes"], .object(JSONObject([("$email", .string("alice@example.com"))])))
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium")]))
        // check reads no transactions: RevenueCat's product id, no renewal count.
        assertEntitlement(doc, "premium", [
            "productId": .string("prod_monthly"), "startedDate": .string("2026-09-15T09:00:00Z"),
            "firstPurchaseDate": .string("2026-09-15T09:00:00Z"), "lastPurchaseDate": .string("2026-11-15T09:00:00Z"),
            "expirationDate": .string("2026-12-15T09:00:00Z"),
        ])
        XCTAssertEqual(doc["entitlements"]?.objectValue?.keys, ["premium"])
        XCTAssertFalse(rc.paths.contains { $0.contains("/transactions") }, "check read transactions")
        XCTAssertTrue(rc.paths.contains("/v2/projects/\(F.project)/customers/alice?expand=attributes"), "\(rc.paths)")
    }

    func testGracePromotionalAndExpiredStripeOverSeveralPages() throws {
        let doc = try json(["check", "paula"])
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("cloud"), .string("pro")]))
        assertEntitlement(doc, "pro", [
            "state": .string("gracePeriod"), "renewState": .string("billingIssue"), "willRenew": .bool(false),
            "source": .string("playstore"), "productId": .string("prod_play"), "startedDate": .string("2026-09-01T09:00:00Z"),
            "firstPurchaseDate": .string("2026-09-01T09:00:00Z"), "lastPurchaseDate": .string("2026-11-01T09:00:00Z"),
            "expirationDate": .string("2026-12-04T09:00:00Z"),
        ])
        assertEntitlement(doc, "cloud", [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "periodType": .string("promotional"),
            "source": .string("manual"), "grantType": .string("manual"), "startedDate": .string("2026-11-20T00:00:00Z"),
            "firstPurchaseDate": .string("2026-11-20T00:00:00Z"), "lastPurchaseDate": .string("2026-11-20T00:00:00Z"),
            "expirationDate": .string("2026-12-20T00:00:00Z"), "grantId": .string("sub_promo"),
            // A promotional grant never renews: 0, known without its transactions.
            "renewsCount": .number("0"),
        ])
        // The Stripe subscription is on the second page.
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("expired"), "renewState": .string("canceled"), "willRenew": .bool(false),
            "source": .string("stripe"), "productId": .string("prod_web"), "startedDate": .string("2025-01-10T00:00:00Z"),
            "firstPurchaseDate": .string("2025-01-10T00:00:00Z"), "lastPurchaseDate": .string("2025-06-10T00:00:00Z"),
            "expirationDate": .string("2025-07-10T00:00:00Z"),
        ])
        XCTAssertTrue(rc.paths.contains("/v2/projects/\(F.project)/customers/paula/subscriptions?limit=100&starting_after=sub_promo"), "\(rc.paths)")
    }

    func testOneTimePurchasesLifetimeAndRefunded() throws {
        let doc = try json(["check", "lena"])
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium")]))
        assertEntitlement(doc, "premium", [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "productId": .string("prod_lifetime"),
            "startedDate": .string("2026-01-05T10:00:00Z"), "firstPurchaseDate": .string("2026-01-05T10:00:00Z"),
            "lastPurchaseDate": .string("2026-01-05T10:00:00Z"), "renewsCount": .number("0"),
        ])
        assertEntitlement(doc, "noads", [
            "isActive": .bool(false), "state": .string("revoked"), "renewState": .string("nonRenewable"), "willRenew": .bool(false),
            "productId": .string("prod_noads"), "startedDate": .string("2026-02-01T10:00:00Z"),
            "firstPurchaseDate": .string("2026-02-01T10:00:00Z"), "lastPurchaseDate": .string("2026-02-01T10:00:00Z"),
            "renewsCount": .number("0"),
        ])
    }

    func testActiveEntitlementsOverSeveralPages() throws {
        rc.customers["many"] = .init(body: F.customer("many", active: []))
        var body = F.customer("many", active: [("entl_a", nil), ("entl_b", nil)]).objectValue!
        var active = body["active_entitlements"]!.objectValue!
        active["next_page"] = .string("/v2/projects/\(F.project)/customers/many/active_entitlements?starting_after=entl_b")
        body["active_entitlements"] = .object(active)
        let all = F.customer("many", active: [("entl_a", nil), ("entl_b", nil), ("entl_c", "2026-12-31T00:00:00Z")])
        rc.customers["many"] = .init(body: .object(body))
        rc.script = { _, r in
            r.path.hasSuffix("/active_entitlements")
                ? .json(F.list([all["active_entitlements"]!["items"]!.arrayValue![2]]), headers: [("Date", F.date)]) : nil
        }
        let doc = try json(["check", "many"])
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("entl_a"), .string("entl_b"), .string("entl_c")]))
        XCTAssertEqual(doc["entitlements"]?["entl_c"]?["expirationDate"], .string("2026-12-31T00:00:00Z"))
    }

    func testUnknownCustomerIsNotFound() {
        for command in [["check", "ghost"], ["history", "ghost"], ["renew-count", "ghost"]] {
            let result = run(command)
            XCTAssertEqual(result.status, .notFound, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("'ghost' not found"), result.stderr)
            XCTAssertEqual(result.stdout, "")
        }
    }

    func testBatchWithAnUnknownCustomer() throws {
        let result = run(["check", "alice", "ghost", "--json"])
        XCTAssertEqual(result.status, .notFound, result.stderr)
        let doc = try JSON.parse(result.stdout)
        // As with every provider: one element per USER asked, the missing one an error element.
        XCTAssertEqual(doc.arrayValue?.count, 2, result.stdout)
        XCTAssertEqual(doc.arrayValue?.first?["customerId"], .string("alice"))
        XCTAssertEqual(doc.arrayValue?.last?["requestedId"], .string("ghost"))
        XCTAssertEqual(doc.arrayValue?.last?["customerId"], .null)
        XCTAssertEqual(doc.arrayValue?.last?["error"]?["code"], .string("customer_not_found"))
        XCTAssertTrue(result.stderr.contains("'ghost' not found"), result.stderr)
    }
}

final class RevenueCatV2HistoryTests: RevenueCatV2TestCase {
    private func entries(_ doc: JSONValue) -> [JSONObject] { doc["entries"]?.arrayValue?.compactMap(\.objectValue) ?? [] }

    func testAppStoreTransactionsAndAPurchaseFieldByField() throws {
        let doc = try json(["history", "alice"])
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "provider", "complete", "incompleteReason", "entries"])
        XCTAssertEqual(doc["provider"], .string("revenuecat"))
        XCTAssertEqual(doc["complete"], .bool(false))
        XCTAssertTrue(doc["incompleteReason"]?.stringValue?.contains("marks no refund, free trial") == true, "\(String(describing: doc["incompleteReason"]))")
        let list = entries(doc)
        XCTAssertEqual(list.map { $0["date"]?.stringValue }, ["2026-08-01T10:00:00Z", "2026-09-15T09:00:00Z", "2026-10-15T09:00:00Z", "2026-11-15T09:00:00Z"])
        XCTAssertEqual(list.map { $0["type"]?.stringValue }, ["consumablePurchase", "subscriptionStarted", "subscriptionRenewed", "subscriptionRenewed"])
        let expected: [(String, JSONValue)] = [
            ("date", .string("2026-11-15T09:00:00Z")), ("kind", .string("transaction")), ("type", .string("subscriptionRenewed")),
            ("entitlements", .array([.string("premium")])), ("transactionId", .string("2000000300")),
            ("originalTransactionId", .string("2000000100")), ("productId", .string("pro_monthly")),
            ("expirationDate", .string("2026-12-15T09:00:00Z")), ("source", .string("appstore")), ("environment", .string("production")),
            ("ownershipType", .string("owner")), ("offerCode", .null), ("price", .number("10.99")), ("currency", .string("EUR")),
        ]
        XCTAssertEqual(list[3].keys, expected.map(\.0))
        for (key, value) in expected { XCTAssertEqual(list[3][key], value == .number("10.99") ? .string("10.99") : value, key) }
        XCTAssertEqual(list[0]["transactionId"], .string("2000000050"))
        XCTAssertEqual(list[0]["price"], .string("4.99"))
        XCTAssertEqual(list[0]["currency"], .string("USD"))
        XCTAssertEqual(list[0]["productId"], .string("prod_coins"))
        // The transactions came over two pages, the second asked after the first page's last id.
        XCTAssertTrue(rc.paths.contains("/v2/projects/\(F.project)/subscriptions/sub_a1/transactions?limit=100&starting_after=2000000200"), "\(rc.paths)")
        let stderr = run(["history", "alice"]).stderr
        XCTAssertTrue(stderr.contains("marks no refund"), stderr)
    }

    func testPlayStripeAndPromotional() throws {
        let doc = try json(["history", "paula"])
        let list = entries(doc)
        XCTAssertEqual(list.map { $0["date"]?.stringValue }, ["2025-01-10T00:00:00Z", "2025-06-10T00:00:00Z", "2026-09-01T09:00:00Z",
                                                              "2026-10-01T09:00:00Z", "2026-11-01T09:00:00Z", "2026-11-20T00:00:00Z"])
        XCTAssertEqual(list.map { $0["kind"]?.stringValue }, ["transaction", "transaction", "transaction", "transaction", "transaction", "grant"])
        XCTAssertEqual(list[0]["transactionId"], .null)
        XCTAssertEqual(list[0]["expirationDate"], .null)
        XCTAssertEqual(list[1]["type"], .string("subscriptionRenewed"))
        XCTAssertEqual(list[1]["transactionId"], .string("sub_1Stripe"))
        XCTAssertEqual(list[1]["expirationDate"], .string("2025-07-10T00:00:00Z"))
        XCTAssertEqual(list[1]["source"], .string("stripe"))
        XCTAssertEqual(list[4]["transactionId"], .string("GPA.3372-4150-9088-12345..1"))
        XCTAssertEqual(list[4]["originalTransactionId"], .string("GPA.3372-4150-9088-12345"))
        XCTAssertEqual(list[4]["productId"], .string("pro_play:monthly"))
        XCTAssertEqual(list[4]["price"], .null)
        XCTAssertEqual(list[4]["currency"], .null)
        XCTAssertEqual(list[5]["grantId"], .string("sub_promo"))
        XCTAssertEqual(list[5]["entitlements"], .array([.string("cloud")]))
        XCTAssertTrue(doc["incompleteReason"]?.stringValue?.contains("no renewals of Stripe subscriptions") == true)
        // --since, --entitlement and --limit as for the store.
        let pro = try json(["history", "paula", "--entitlement", "pro", "--limit", "2"])
        XCTAssertEqual(entries(pro).map { $0["transactionId"]?.stringValue }, ["GPA.3372-4150-9088-12345..0", "GPA.3372-4150-9088-12345..1"])
    }

    func testRefundedPurchaseIsSaidNotInvented() throws {
        let doc = try json(["history", "lena"])
        XCTAssertEqual(entries(doc).map { $0["kind"]?.stringValue }, ["transaction", "transaction"])
        XCTAssertTrue(doc["incompleteReason"]?.stringValue?.contains("1 one-time purchase is marked refunded without a date (2000001000)") == true,
                      "\(String(describing: doc["incompleteReason"]))")
    }

    func testRenewCountForAppStoreAndPlayChains() throws {
        XCTAssertEqual(run(["renew-count", "alice", "premium"]).stdout, "2\n")
        XCTAssertEqual(run(["renew-count", "paula", "pro"]).stdout, "2\n")
        // Stripe, renewed since it started: v2 lists no renewals of it. A promotional grant never renews.
        XCTAssertEqual(run(["renew-count", "paula", "premium"]).stdout, "-\n")
        XCTAssertEqual(run(["renew-count", "paula", "cloud"]).stdout, "0\n")
        let doc = try json(["renew-count", "paula"])
        XCTAssertEqual(doc["byEntitlement"], .object(JSONObject([("cloud", .number("0")), ("premium", .null), ("pro", .number("2"))])))
        // A chain v2 cannot count (the Stripe one behind premium) leaves the customer's total unknown.
        XCTAssertEqual(doc["renewsCount"], .null)
        XCTAssertEqual(doc["customerId"], .string("paula"))
        XCTAssertEqual(run(["renew-count", "paula", "nothing"]).status, .notFound)
    }

    func testAPageCapStopsAndSaysSo() throws {
        rc.pageSize = 1
        rc.transactions["sub_a1"] = (0..<(RevenueCatV2Source.pageCap + 5)).map { i in
            F.transaction("t\(1000 + i)", at: ISODate.format(Instant(seconds: ISODate.parse("2020-01-01T00:00:00Z")!.seconds + Int64(i) * 86400)),
                          product: "pro_monthly", expires: "2026-12-15T09:00:00Z")
        }
        let doc = try json(["history", "alice"])
        XCTAssertEqual(entries(doc).filter { $0["productId"] == .string("pro_monthly") }.count, RevenueCatV2Source.pageCap)
        XCTAssertTrue(doc["incompleteReason"]?.stringValue?.contains("read for \(RevenueCatV2Source.pageCap) pages only") == true)
        let count = run(["renew-count", "alice", "premium", "--json"])
        XCTAssertTrue(count.stderr.contains("incomplete renewal counts"), count.stderr)
        XCTAssertEqual(try JSON.parse(count.stdout)["renewsCount"], .null)
    }

    func testASameCursorTwiceStops() throws {
        rc.script = { _, r in
            r.path.hasSuffix("/sub_a1/transactions")
                ? .json(F.list([F.transaction("t1", at: "2026-09-15T09:00:00Z", product: "p", expires: "2026-10-15T09:00:00Z")],
                               next: "/v2/projects/\(F.project)/subscriptions/sub_a1/transactions?starting_after=t1")) : nil
        }
        let doc = try json(["history", "alice"])
        XCTAssertTrue(doc["incompleteReason"]?.stringValue?.contains("same page") == true, "\(String(describing: doc["incompleteReason"]))")
    }
}

final class RevenueCatV2ErrorTests: RevenueCatV2TestCase {
    func testA404ThatIsNotRevenueCatsIsAWrongBaseURL() {
        rc.script = { _, _ in HTTPResponse(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html>nope</html>".utf8)) }
        let result = run(["check", "alice"])
        XCTAssertEqual(result.status, .configError, result.stderr)
        XCTAssertTrue(result.stderr.contains("/v2/projects/PROJECT_ID"), result.stderr)
    }

    func testAnUnknownProjectIsAWrongBaseURLNotAMissingCustomer() {
        let result = run(["history", "alice"], remote: rc.base.replacingOccurrences(of: F.project, with: "projWRONG"))
        XCTAssertEqual(result.status, .configError, result.stderr)
        XCTAssertTrue(result.stderr.contains("Project not found"), result.stderr)
    }

    func testRateLimitIsRetriedThenTemporaryFailure() {
        rc.script = { n, _ in n <= 2 ? F.error(429, "rate_limit_error", "Rate limit exceeded").adding(("Retry-After", "0")) : nil }
        XCTAssertEqual(run(["check", "alice"]).status, .success)
        rc.script = { _, _ in F.error(429, "rate_limit_error", "Rate limit exceeded").adding(("Retry-After", "0")) }
        let result = run(["check", "alice"])
        XCTAssertEqual(result.status, .temporaryFailure, result.stderr)
    }

    func testAWrongKeyIsPermissionDenied() {
        rc.script = { _, _ in F.error(401, "authentication_error", "Invalid API key") }
        XCTAssertEqual(run(["check", "alice"]).status, .permissionDenied)
    }

    func testA200ThatIsNotTheAPIIsAProtocolError() {
        rc.script = { _, _ in HTTPResponse(status: 200, body: Array("<html>".utf8)) }
        XCTAssertEqual(run(["check", "alice"]).status, .protocolError)
    }

    func testOneMalformedSubscriptionLeavesTheRest() throws {
        rc.customers["paula"]!.subscriptions[0] = .object(JSONObject([("id", .string("sub_bad")), ("starts_at", .string("yesterday"))]))
        let result = run(["check", "paula", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stderr.contains("items[0].starts_at"), result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["activeEntitlements"], .array([.string("cloud"), .string("pro")]))
    }

    func testGrantsAreNotSentThroughV2() {
        let result = run(["grant", "alice", "premium", "--duration", "P1M"])
        XCTAssertEqual(result.status, Commands.describe(NotOffered("")).0, result.stderr)
        XCTAssertTrue(result.stderr.contains("https://api.revenuecat.com/v1"), result.stderr)
        XCTAssertEqual(rc.paths, [])
    }

    func testTheVersionIsTheBaseURLs() {
        XCTAssertTrue(RevenueCatV2Source.isVersion2("https://api.revenuecat.com/v2/projects/proj1ab2c3d4"))
        XCTAssertTrue(RevenueCatV2Source.isVersion2("http://127.0.0.1:8080/v2/projects/p/"))
        for other in ["https://api.revenuecat.com/v1", "https://api.revenuecat.com/v2", "https://api.revenuecat.com/v2/projects",
                      "https://api.revenuecat.com/v2/projects/", "https://api.revenuecat.com/v2/projects/p/customers",
                      "https://api.revenuecat.com/api/v2/projects/p"] {
            XCTAssertFalse(RevenueCatV2Source.isVersion2(other), other)
        }
    }
}

private extension HTTPResponse {
    func adding(_ header: (String, String)) -> HTTPResponse {
        var copy = self
        copy.headers.append(header)
        return copy
    }
}
