// Provider `qonversion` on API v4 end to end against a loopback fake: history and renew-count
// from the paginated purchases, check from v4's entitlement names, grant/revoke and its 422,
// the secret key, unknown and empty users, a page cap, a server that lies about has_more.

import SubsJSON
@testable import SubsModel
@testable import SubsProviders
@testable import SubsCLI
import XCTest

final class QonversionV4Tests: XCTestCase {
    var api: QonversionV4FakeAPI!
    var dir: TempDir!

    override func setUpWithError() throws {
        api = try QonversionV4FakeAPI()
        dir = TempDir()
        typealias F = QonversionV4FakeAPI
        api.set { api in
            api.identities = ["alice": "QON_alice", "paula": "QON_paula", "emma": "QON_emma", "max": "QON_max"]
            api.entitlements["QON_alice"] = [
                F.entitlement("premium", product: "pro_monthly"),
                F.entitlement("lifetime", started: "2025-06-01T08:00:00Z", expires: nil, product: "lifetime_unlock", renew: nil),
            ]
            let apple = { (tx: String, orig: String) -> [(String, JSONValue)] in
                [("transaction_id", .string(tx)), ("original_transaction_id", .string(orig)), ("product_id", .string("pro_monthly"))]
            }
            // Newest first, as v4 lists them: chain 1000 (started 2026-01-10, three renewals), an
            // older chain 900 (one renewal), a lifetime unlock and a consumable.
            api.purchases["QON_alice"] = [
                F.purchase("p8", product: "pro_monthly", at: "2026-04-10T09:00:00Z", expires: "2026-05-10T09:00:00Z", store: apple("1003", "1000")),
                F.purchase("p7", product: "pro_monthly", at: "2026-03-10T09:00:00Z", expires: "2026-04-10T09:00:00Z", store: apple("1002", "1000")),
                F.purchase("p6", product: "coins_100", price: "0.99", at: "2026-02-14T12:00:00Z", expires: nil,
                           store: [("transaction_id", .string("1500"))]),
                F.purchase("p5", product: "pro_monthly", at: "2026-02-10T09:00:00Z", expires: "2026-03-10T09:00:00Z", store: apple("1001", "1000")),
                F.purchase("p4", product: "pro_monthly", at: "2026-01-10T09:00:00Z", expires: "2026-02-10T09:00:00Z", store: apple("1000", "1000")),
                F.purchase("p3", product: "lifetime_unlock", price: "49.99", currency: "EUR", at: "2025-06-01T08:00:00Z", expires: nil,
                           store: [("transaction_id", .string("800"))]),
                F.purchase("p2", product: "pro_monthly", at: "2025-02-01T09:00:00Z", expires: "2025-03-01T09:00:00Z", store: apple("901", "900")),
                F.purchase("p1", product: "pro_monthly", at: "2025-01-01T09:00:00Z", expires: "2025-02-01T09:00:00Z", store: apple("900", "900")),
            ]
            // Google Play base plan: the purchase names `product:base_plan`, the entitlement the product.
            api.entitlements["QON_paula"] = [F.entitlement("premium", source: "playstore", product: "pro")]
            let play = { (order: String) -> [(String, JSONValue)] in
                [("order_id", .string(order)), ("purchase_token", .string("tok-1"))]
            }
            api.purchases["QON_paula"] = [
                F.purchase("q3", product: "pro:monthly", platform: "play_store", price: "0", currency: "EUR",
                           at: "2026-10-01T00:00:00Z", expires: "2026-11-01T00:00:00Z", store: play("GPA.1-2")),
                F.purchase("q2", product: "pro:monthly", platform: "play_store", price: "4.99", currency: "EUR",
                           at: "2026-09-01T00:00:00Z", expires: "2026-10-01T00:00:00Z", store: play("GPA.1-1")),
                F.purchase("q1", product: "pro:monthly", platform: "play_store", price: "4.99", currency: "EUR",
                           at: "2026-08-01T00:00:00Z", expires: "2026-09-01T00:00:00Z", store: play("GPA.1-0")),
            ]
            api.entitlements["QON_emma"] = []
            // More purchases than the page cap lets subs read: 3 a page × 50 pages < 160.
            api.entitlements["QON_max"] = [F.entitlement("premium", product: "pro_monthly")]
            api.purchases["QON_max"] = (0..<160).reversed().map { i in
                F.purchase("m\(i)", product: "pro_monthly", at: ISODate.format(Instant(seconds: 1_700_000_000 + Int64(i) * 86_400)),
                           expires: ISODate.format(Instant(seconds: 1_700_000_000 + Int64(i + 1) * 86_400)), store: apple("m\(i)", "m0"))
            }
        }
    }

    override func tearDown() {
        api.stop()
        XCTAssertEqual(api.problems, [])
    }

    func run(_ args: [String], key: String = QonversionV4FakeAPI.secretKey, remote: String? = nil) -> CLIResult {
        runQonversion(args, remote: remote ?? api.base, key: key, cache: dir.path + "/cache")
    }

    func history(_ user: String) throws -> JSONValue {
        let result = run(["history", user, "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        return try JSON.parse(result.stdout)
    }

    func testHistoryFollowsEveryCappedPageOldestFirstWithFieldByFieldEntries() throws {
        let doc = try history("alice")
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "provider", "complete",
                                               "incompleteReason", "entries"])
        XCTAssertEqual(doc["customerId"], .string("alice"))
        XCTAssertEqual(doc["provider"], .string("qonversion"))
        XCTAssertEqual(doc["complete"], .bool(true))
        XCTAssertEqual(doc["incompleteReason"], .null)
        XCTAssertEqual(doc["requestDate"], .string("2026-11-23T10:00:00Z"))
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        XCTAssertEqual(entries.map { "\($0["date"]!.stringValue!) \($0["type"]!.stringValue!) \($0["productId"]!.stringValue!)" }, [
            "2025-01-01T09:00:00Z subscriptionStarted pro_monthly",
            "2025-02-01T09:00:00Z subscriptionRenewed pro_monthly",
            "2025-06-01T08:00:00Z nonConsumablePurchase lifetime_unlock",
            "2026-01-10T09:00:00Z subscriptionStarted pro_monthly",
            "2026-02-10T09:00:00Z subscriptionRenewed pro_monthly",
            "2026-02-14T12:00:00Z consumablePurchase coins_100",
            "2026-03-10T09:00:00Z subscriptionRenewed pro_monthly",
            "2026-04-10T09:00:00Z subscriptionRenewed pro_monthly",
        ])
        let renewal = entries[4]
        XCTAssertEqual(renewal.objectValue?.keys, ["date", "kind", "type", "entitlements", "transactionId", "originalTransactionId",
                                                   "productId", "expirationDate", "source", "environment", "ownershipType",
                                                   "offerCode", "price", "currency"])
        XCTAssertEqual(renewal["kind"], .string("transaction"))
        XCTAssertEqual(renewal["entitlements"], .array([.string("premium")]))
        XCTAssertEqual(renewal["transactionId"], .string("1001"))
        XCTAssertEqual(renewal["originalTransactionId"], .string("1000"))
        XCTAssertEqual(renewal["expirationDate"], .string("2026-03-10T09:00:00Z"))
        XCTAssertEqual(renewal["source"], .string("appstore"))
        XCTAssertEqual(renewal["environment"], .string("production"))
        XCTAssertEqual(renewal["ownershipType"], .null)
        XCTAssertEqual(renewal["offerCode"], .null)
        XCTAssertEqual(renewal["price"], .string("9.99"))
        XCTAssertEqual(renewal["currency"], .string("USD"))
        // One-time purchases: the lifetime unlock concerns its entitlement, the consumable none.
        XCTAssertEqual(entries[2]["entitlements"], .array([.string("lifetime")]))
        XCTAssertEqual(entries[2]["price"], .string("49.99"))
        XCTAssertEqual(entries[2]["currency"], .string("EUR"))
        XCTAssertEqual(entries[2]["expirationDate"], .null)
        XCTAssertEqual(entries[5]["entitlements"], .array([]))
        // Pages of at most 3 though 100 were asked: each next page starts after the last id.
        let purchasePages = api.seen.filter { $0.contains("/purchases") }
        XCTAssertEqual(purchasePages, [
            "GET /v4/users/QON_alice/purchases?limit=100",
            "GET /v4/users/QON_alice/purchases?limit=100&starting_after=p6",
            "GET /v4/users/QON_alice/purchases?limit=100&starting_after=p3",
        ])
    }

    func testHistoryFiltersAndFormatsWorkAsForTheStore() throws {
        let since = try JSON.parse(run(["history", "alice", "--json", "--since", "2026-03-01", "--entitlement", "premium"]).stdout)
        XCTAssertEqual(since["entries"]?.arrayValue?.count, 2)
        let until = try JSON.parse(run(["history", "alice", "--json", "--until", "2025-12-31"]).stdout)
        XCTAssertEqual(until["entries"]?.arrayValue?.count, 3)
        let lines = run(["history", "alice", "--format", "jsonl", "--limit", "2"]).stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(try JSON.parse(String(lines[1]))["transactionId"], .string("1003"))
        XCTAssertEqual(run(["history", "alice", "--format", "tsv"]).stdout.split(separator: "\n").count, 9)
    }

    func testRenewCountCountsTheCurrentChainAfterItsFirstPurchase() throws {
        let one = run(["renew-count", "alice", "premium"])
        XCTAssertEqual(one.status, .success, one.stderr)
        XCTAssertEqual(one.stdout, "3\n")
        let doc = try JSON.parse(run(["renew-count", "alice", "--json"]).stdout)
        XCTAssertEqual(doc["complete"], .bool(true))
        XCTAssertEqual(doc["renewsCount"], .number("3"))
        XCTAssertEqual(doc["byEntitlement"], .object(JSONObject([("lifetime", .number("0")), ("premium", .number("3"))])))
        XCTAssertEqual(run(["renew-count", "alice", "nope"]).status, .notFound)
        // check reads the purchases for totalSpent (SPEC section 4, "Money"), not for renewal counts.
        api.forget()
        let check = try JSON.parse(run(["check", "alice", "--json"]).stdout)
        XCTAssertEqual(check["entitlements"]?["premium"]?["renewsCount"], .null)
        XCTAssertEqual(api.seen.filter { $0.contains("/purchases") }.count, 3, "every page of the listing")
        let totals = try XCTUnwrap(check["totalSpent"]?.arrayValue)
        XCTAssertEqual(totals.map { $0["currency"] }, [.string("EUR"), .string("USD")])
        XCTAssertEqual(totals.map { $0["amount"] }, [.string("49.99"), .string("60.93")], "6 × 9.99 + 0.99, exactly")
        XCTAssertEqual(totals.map { $0["payments"] }, [.number("1"), .number("7")])
        XCTAssertEqual(totals.map { $0["complete"] }, [.bool(false), .bool(false)], "v4 marks no refund")
        XCTAssertTrue(run(["check", "alice"]).stdout.contains(
            "spent EUR 49.99 in 1 payment; USD 60.93 in 7 payments (incomplete: Qonversion's API v4 marks no refund"))
        // A free renewal (price "0") is no payment.
        let paula = try JSON.parse(run(["check", "paula", "--json"]).stdout)
        XCTAssertEqual(paula["totalSpent"]?.arrayValue?.first?["amount"], .string("9.98"))
        XCTAssertEqual(paula["totalSpent"]?.arrayValue?.first?["payments"], .number("2"))
    }

    func testAPurchaseListingThatFailsCostsTotalSpentNotTheEntitlements() throws {
        api.set { $0.canned["GET /v4/users/QON_alice/purchases"] = QonversionV4FakeAPI.error(400, type: "invalid_request", message: "nope") }
        let result = run(["check", "alice", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["totalSpent"], .null)
        XCTAssertEqual(doc["activeEntitlements"]?.arrayValue?.isEmpty, false)
        XCTAssertTrue(result.stderr.contains("totalSpent is null"), result.stderr)
        XCTAssertFalse(run(["check", "alice"]).stdout.contains("spent"))
    }

    func testPlayBasePlanProductIdAndAFreeRenewalThatIsNotCounted() throws {
        let entries = try XCTUnwrap(try history("paula")["entries"]?.arrayValue)
        XCTAssertEqual(entries.map { $0["productId"] }, Array(repeating: .string("pro:monthly"), count: 3))
        XCTAssertEqual(entries.map { $0["type"]!.stringValue! }, ["subscriptionStarted", "subscriptionRenewed", "subscriptionRenewed"])
        XCTAssertEqual(entries[0]["entitlements"], .array([.string("premium")]))
        XCTAssertEqual(entries[0]["source"], .string("playstore"))
        XCTAssertEqual(entries[0]["transactionId"], .string("GPA.1-0"))
        XCTAssertEqual(entries[0]["originalTransactionId"], .string("tok-1"))
        XCTAssertEqual(entries[2]["price"], .string("0"))
        // The renewal at price 0 is not a paid renewal.
        XCTAssertEqual(run(["renew-count", "paula", "premium"]).stdout, "1\n")
    }

    func testEmptyUnknownAndProjectKey() throws {
        let empty = try history("emma")
        XCTAssertEqual(empty["entries"], .array([]))
        XCTAssertEqual(empty["complete"], .bool(true))
        XCTAssertEqual(run(["renew-count", "emma"]).stdout, "emma: no entitlements\n")
        for args in [["history", "nobody"], ["renew-count", "nobody"], ["check", "nobody"], ["history", "QON_nobody"]] {
            let result = run(args)
            XCTAssertEqual(result.status, .notFound, "\(args): \(result.stderr)")
            XCTAssertEqual(result.stdout, "")
        }
        api.forget()
        for args in [["history", "alice"], ["check", "alice"], ["renew-count", "alice"], ["grant", "alice", "beta", "--lifetime"]] {
            let result = run(args, key: QonversionFakeAPI.projectKey)
            XCTAssertEqual(result.status, .permissionDenied, "\(args)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("Qonversion's API v4 needs the project's secret key"), result.stderr)
            XCTAssertFalse(result.stderr.contains(QonversionFakeAPI.projectKey))
        }
        XCTAssertEqual(api.seen, [], "a project key is refused before anything is sent")
    }

    func testSandboxKeyMarksEntriesSandbox() throws {
        let result = run(["history", "paula", "--json"], key: QonversionV4FakeAPI.sandboxKey)
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["entries"]?.arrayValue?.first?["environment"], .string("sandbox"))
    }

    func testAPageCapMakesTheHistoryIncompleteAndSaysSo() throws {
        let result = run(["history", "max", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["complete"], .bool(false))
        let reason = try XCTUnwrap(doc["incompleteReason"]?.stringValue)
        XCTAssertTrue(reason.contains("more than \(QonversionV4Source.pageCap) pages"), reason)
        XCTAssertEqual(result.stderr, "subs: note: incomplete history: \(reason)\n")
        // The newest 150 are shown, oldest first.
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        XCTAssertEqual(entries.count, QonversionV4Source.pageCap * 3)
        XCTAssertEqual(entries.last?["transactionId"], .string("m159"))
        XCTAssertEqual(api.seen.filter { $0.contains("/purchases") }.count, QonversionV4Source.pageCap)
        let count = run(["renew-count", "max", "--json"])
        let counted = try JSON.parse(count.stdout)
        XCTAssertEqual(counted["complete"], .bool(false))
        XCTAssertEqual(counted["byEntitlement"]?["premium"], .number("149"))
        XCTAssertEqual(counted["renewsCount"], .number("149"))
        XCTAssertTrue(count.stderr.contains("subs: note: incomplete renewal counts: "), count.stderr)
    }

    func testAServerThatSaysHasMoreOnAnEmptyPageIsAProtocolError() {
        api.set { $0.canned["GET /v4/users/QON_emma/purchases"] = .json(.object(JSONObject([
            ("object", .string("list")), ("has_more", .bool(true)), ("next_cursor", .null), ("data", .array([])),
        ]))) }
        let result = run(["history", "emma"])
        XCTAssertEqual(result.status, .protocolError, result.stderr)
        XCTAssertTrue(result.stderr.contains("has_more is true on an empty page"), result.stderr)
    }

    func testOneMalformedPurchaseNeverHidesTheRest() throws {
        api.set { api in
            api.purchases["QON_paula"]![1] = .object(JSONObject([("id", .string("q2")), ("product_id", .number("7"))]))
        }
        let result = run(["history", "paula", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["entries"]?.arrayValue?.count, 2)
        XCTAssertTrue(result.stderr.contains("data[1].product_id: expected string"), result.stderr)
    }

    func testCheckReadsV4EntitlementNames() throws {
        let doc = try JSON.parse(run(["check", "alice", "--json"]).stdout)
        let premium = try XCTUnwrap(doc["entitlements"]?["premium"])
        XCTAssertEqual(premium["isActive"], .bool(true))
        XCTAssertEqual(premium["startedDate"], .string("2026-01-10T09:00:00Z"))
        XCTAssertEqual(premium["expirationDate"], .string("2026-12-10T09:00:00Z"))
        XCTAssertEqual(premium["renewState"], .string("willRenew"))
        XCTAssertEqual(premium["productId"], .string("pro_monthly"))
        XCTAssertEqual(doc["entitlements"]?["lifetime"]?["expirationDate"], .null)
        XCTAssertEqual(doc["aliases"], .array([.string("QON_alice")]))
    }

    func testGrantRevokeAndAPaidEntitlementRefused() throws {
        let lifetime = run(["grant", "emma", "beta", "--lifetime", "--json"])
        XCTAssertEqual(lifetime.status, .success, lifetime.stderr)
        XCTAssertTrue(api.seen.contains("POST /v4/users/QON_emma/entitlements"))
        XCTAssertEqual(try JSON.parse(lifetime.stdout)["entitlement"]?["expirationDate"], .null)
        XCTAssertEqual(run(["revoke", "emma", "beta", "-q"]).status, .success)
        XCTAssertEqual(run(["revoke", "emma", "beta"]).status, .notFound)
        let paid = run(["grant", "alice", "premium", "--duration", "P1M"])
        XCTAssertEqual(paid.status, .dataError, paid.stderr)
        XCTAssertEqual(paid.stderr.split(separator: "\n").count, 1)
        XCTAssertTrue(paid.stderr.contains("Cannot modify an entitlement granted by a paid purchase (paid_entitlement)"), paid.stderr)
    }

    func testOfflineHistoryComesFromTheCachedPages() throws {
        XCTAssertEqual(run(["history", "alice", "-q"]).status, .success)
        api.forget()
        let offline = run(["history", "alice", "--json", "--offline"])
        XCTAssertEqual(offline.status, .success, offline.stderr)
        XCTAssertEqual(try JSON.parse(offline.stdout)["entries"]?.arrayValue?.count, 8)
        XCTAssertEqual(api.seen, [])
        XCTAssertEqual(run(["history", "paula", "--offline"]).status, .unavailable)
    }
}
