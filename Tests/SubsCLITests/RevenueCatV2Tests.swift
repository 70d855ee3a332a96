// Provider `revenuecat` with a v2 base URL against a loopback RevenueCat API v2 (FakeRevenueCatV2):
// check, history and renew-count field by field; lists over several pages (the fake cuts pages
// shorter than asked); unknown customer, wrong base URL, rate limit, malformed items, page caps.

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI
@testable import SubsKit

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
    static let baseline: [String: JSONValue] = [
        "isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"), "willRenew": .bool(true),
        "periodType": .string("normal"), "source": .string("appstore"), "grantType": .string("purchase"),
        "productId": .null, "startedDate": .null, "trialStartDate": .null, "firstPurchaseDate": .null,
        "lastPurchaseDate": .null, "expirationDate": .null, "gracePeriodExpirationDate": .null,
        "billingIssueDetectedAt": .null, "autoRenewDisableDate": .null, "autoResumeDate": .null,
        "renewalProductId": .null, "renewsCount": .null, "isSandbox": .bool(false), "lastActivatedOfferCode": .null,
        "grantId": .null, "transactions": .array([]),
    ]

    private func assertEntitlement(_ doc: JSONValue, _ id: String, _ fields: [String: JSONValue],
                                   file: StaticString = #filePath, line: UInt = #line) {
        guard let e = doc["entitlements"]?[id]?.objectValue else { return XCTFail("no entitlement \(id)", file: file, line: line) }
        var expected = Self.baseline.merging(fields) { $1 }
        expected["id"] = .string(id)
        XCTAssertEqual(Set(e.keys), Set(expected.keys), file: file, line: line)
        for key in e.keys { XCTAssertEqual(e[key], expected[key], "\(id).\(key)", file: file, line: line) }
    }

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
            "lastPurchaseDate": .string("2026-01-05T10:00:00Z"),
        ])
        assertEntitlement(doc, "noads", [
            "isActive": .bool(false), "state": .string("revoked"), "renewState": .string("nonRenewable"), "willRenew": .bool(false),
            "productId": .string("prod_noads"), "startedDate": .string("2026-02-01T10:00:00Z"),
            "firstPurchaseDate": .string("2026-02-01T10:00:00Z"), "lastPurchaseDate": .string("2026-02-01T10:00:00Z"),
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
        // As with every provider: the customers found are printed, the status says one was not.
        XCTAssertEqual(doc.arrayValue?.count, 1, result.stdout)
        XCTAssertEqual(doc.arrayValue?.first?["customerId"], .string("alice"))
        XCTAssertTrue(result.stderr.contains("'ghost' not found"), result.stderr)
    }
}
