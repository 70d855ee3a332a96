// `history` and `renew-count` for provider `iaphub` against the loopback fake: the user answer
// plus IAPHUB's purchase listing (TestSupport/Fakes/IAPHUBListing.swift), read page by page in pages
// smaller than asked. Each entry field by field, chains, refunds, a consumable, a malformed
// purchase, an empty listing, an unknown user, page caps and pacing.

import XCTest
import SubsJSON
@testable import SubsProviders
@testable import SubsCLI

final class IAPHUBHistoryTests: IAPHUBTestCase {
    private let user = "active-renewing"

    private func history(_ id: String, _ extra: [String] = []) throws -> (doc: JSONValue, result: CLIResult) {
        let result = iaphub(["history", id, "--json"] + extra)
        XCTAssertEqual(result.status, .success, result.stderr)
        return (try JSON.parse(result.stdout), result)
    }

    private func purchasePages() -> [String] { server.listings }

    func testHistoryReadsEveryPageOldestFirstFieldByField() throws {
        let (doc, result) = try history(user)
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "provider", "complete",
                                               "incompleteReason", "entries"])
        XCTAssertEqual(doc["customerId"], .string(user))
        XCTAssertEqual(doc["requestedId"], .string(user))
        XCTAssertEqual(doc["provider"], .string("iaphub"))
        XCTAssertEqual(doc["complete"], .bool(true))
        XCTAssertEqual(doc["incompleteReason"], .null)
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        XCTAssertEqual(entries.map { "\($0["date"]!.stringValue!) \($0["kind"]!.stringValue!) \($0["type"]!.stringValue!) \($0["productId"]!.stringValue!)" }, [
            "2026-07-20T10:00:00Z transaction trialStarted pro_monthly",
            "2026-07-27T10:00:00Z transaction subscriptionRenewed pro_monthly",
            "2026-08-27T10:00:00Z transaction subscriptionRenewed pro_monthly",
            "2026-09-02T08:30:00Z refund revoked pro_monthly",
            "2026-09-10T18:45:00Z transaction consumablePurchase coins_100",
            "2026-09-27T10:00:00Z transaction subscriptionRenewed pro_monthly",
            "2026-10-01T12:00:00Z transaction nonConsumablePurchase sticker_pack",
            "2026-10-05T09:00:00Z transaction subscriptionStarted season_pass",
            "2026-11-20T10:00:00Z transaction subscriptionRenewed pro_monthly",
        ])
        let keys: [String] = ["date", "kind", "type", "entitlements", "transactionId", "originalTransactionId", "productId",
                              "expirationDate", "source", "environment", "ownershipType", "offerCode", "price", "currency"]
        func expect(_ entry: JSONValue, _ fields: [String: JSONValue], line: UInt = #line) {
            XCTAssertEqual(entry.objectValue?.keys, keys, line: line)
            for (key, value) in fields { XCTAssertEqual(entry[key], value, key, line: line) }
        }
        let chain = JSONValue.string("1e5198930c48ed07aa275fd6")
        expect(entries[0], ["entitlements": .array([.string("premium")]), "transactionId": chain, "originalTransactionId": chain,
                            "expirationDate": .string("2026-07-27T10:00:00Z"), "source": .string("playstore"),
                            "environment": .string("production"), "ownershipType": .null, "offerCode": .string("SUMMER26"),
                            "price": .string("0"), "currency": .string("EUR")])
        // Milliseconds are dropped; the price is the number as written.
        expect(entries[1], ["transactionId": .string("a15198930c48ed07aa275f01"), "originalTransactionId": chain,
                            "expirationDate": .string("2026-08-27T10:00:00Z"), "offerCode": .null, "price": .string("9.99"),
                            "currency": .string("EUR"), "entitlements": .array([.string("premium")])])
        XCTAssertEqual(entries[3].objectValue?.keys, ["date", "kind", "type", "entitlements", "transactionId", "productId"])
        XCTAssertEqual(entries[3]["transactionId"], .string("a15198930c48ed07aa275f02"))
        XCTAssertEqual(entries[3]["entitlements"], .array([.string("premium")]))
        expect(entries[4], ["entitlements": .array([]), "transactionId": .string("c15198930c48ed07aa275f03"),
                            "originalTransactionId": .string("c15198930c48ed07aa275f03"), "expirationDate": .null,
                            "source": .string("appstore"), "price": .string("1.99"), "currency": .string("USD")])
        expect(entries[6], ["entitlements": .array([.string("sticker_pack")]), "expirationDate": .null, "price": .string("2.49")])
        // A non-renewing subscription: its own chain, its group its entitlement, "19.90" as written.
        expect(entries[7], ["entitlements": .array([.string("seasons")]), "originalTransactionId": .string("s15198930c48ed07aa275f06"),
                            "expirationDate": .string("2027-01-05T09:00:00Z"), "source": .string("stripe"), "price": .string("19.90"),
                            "currency": .string("USD")])
        // The malformed purchase (page 3, first item) is left out with its path; the rest is answered.
        XCTAssertEqual(result.stderr, "subs: warning: list[0].purchaseDate: expected an ISO 8601 date, found \"yesterday\" "
                       + "(IAPHUB purchases of user 'active-renewing', page 3: this item is left out, the rest is answered)\n")
        // Pages of 2 though 100 were asked: every page, in order, then no more.
        XCTAssertEqual(purchasePages(), (1...5).map {
            "/v1/app/app_123/purchases?userId=active-renewing&environment=production&page=\($0)&limit=100&order=asc"
        })
    }

    func testHistoryFiltersAndFormatsWorkAsForTheStore() throws {
        let premium = try history(user, ["--entitlement", "premium", "--since", "2026-09-01"]).doc
        XCTAssertEqual(premium["entries"]?.arrayValue?.map { $0["type"] }, [.string("revoked"), .string("subscriptionRenewed"),
                                                                          .string("subscriptionRenewed")])
        let until = try history(user, ["--until", "2026-08-01"]).doc
        XCTAssertEqual(until["entries"]?.arrayValue?.count, 2)
        let lines = iaphub(["history", user, "--format", "jsonl", "--limit", "2"]).stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(iaphub(["history", user, "--format", "tsv"]).stdout.split(separator: "\n").count, 10)
        let table = iaphub(["history", user])
        XCTAssertEqual(table.status, .success, table.stderr)
        XCTAssertTrue(table.stdout.contains("pro_monthly"), table.stdout)
    }

    func testRenewCountCountsPaidUnrefundedRenewalsOfTheActiveChain() throws {
        let one = iaphub(["renew-count", user, "premium"])
        XCTAssertEqual(one.status, .success, one.stderr)
        // Renewals of 1e51…fd6: Jul 27, Aug 27 (refunded: not counted), Sep 27, Nov 20; the trial start is not one.
        XCTAssertEqual(one.stdout, "3\n")
        let result = iaphub(["renew-count", user, "--json"])
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "complete", "incompleteReason", "entitlement",
                                               "renewsCount", "byEntitlement"])
        XCTAssertEqual(doc["customerId"], .string(user))
        XCTAssertEqual(doc["complete"], .bool(true))
        XCTAssertEqual(doc["incompleteReason"], .null)
        XCTAssertEqual(doc["renewsCount"], .number("3"))
        XCTAssertEqual(doc["byEntitlement"], .object(JSONObject([("premium", .number("3"))])))
        XCTAssertEqual(iaphub(["renew-count", user, "basic"]).status, .notFound)
        // check reads no purchase.
        let before = purchasePages().count
        XCTAssertEqual(iaphub(["check", user]).status, .success)
        XCTAssertEqual(purchasePages().count, before)
    }

    func testRenewCountAtAnEarlierInstantCountsOnlyWhatHadHappened() throws {
        let result = iaphub(["renew-count", user, "premium", "--at", "2026-09-01T00:00:00Z"])
        XCTAssertEqual(result.status, .success, result.stderr)
        // By then: Jul 27 and Aug 27, the latter not yet refunded (refunded Sep 2).
        XCTAssertEqual(result.stdout, "2\n")
    }

    func testAnEmptyListingIsACompleteEmptyHistory() throws {
        let doc = try history("no-purchases").doc
        XCTAssertEqual(doc["entries"], .array([]))
        XCTAssertEqual(doc["complete"], .bool(true))
        // No purchase of the premium chain is listed: the count is unknown, not 0.
        let count = try JSON.parse(iaphub(["renew-count", "no-purchases", "--json"]).stdout)
        XCTAssertEqual(count["renewsCount"], .null)
        XCTAssertEqual(count["byEntitlement"], .object(JSONObject([("premium", .null)])))
    }

    func testAnUnknownUserIsExit3AndNoListingIsAsked() {
        for command in ["history", "renew-count"] {
            let result = iaphub([command, "nobody"])
            XCTAssertEqual(result.status, .notFound, command)
            XCTAssertEqual(result.stderr, "subs: error: customer 'nobody' not found\n")
        }
        XCTAssertEqual(purchasePages(), [])
    }

    func testPastThePageCapTheAnswerSaysItIsIncomplete() throws {
        let result = iaphub(["history", "endless", "--json", "--timeout", "30"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["complete"], .bool(false))
        let reason = try XCTUnwrap(doc["incompleteReason"]?.stringValue)
        XCTAssertTrue(reason.contains("more than \(IAPHUBSource.pageCap) pages"), reason)
        XCTAssertEqual(result.stderr, "subs: note: incomplete history: \(reason)\n")
        XCTAssertEqual(doc["entries"]?.arrayValue?.count, IAPHUBSource.pageCap)
        XCTAssertEqual(purchasePages().count, IAPHUBSource.pageCap)
        // Paced: IAPHUB's limit of 5 a second was never met with a 429.
        XCTAssertEqual(server.refused, 0)
    }

    func testTheListingIsPacedUnderIAPHUBsLimit() throws {
        server.limitPerSecond = 5
        let (doc, _) = try history(user)
        XCTAssertEqual(doc["entries"]?.arrayValue?.count, 9)
        XCTAssertEqual(server.refused, 0, "a 429 was met: the listing was not paced")
        XCTAssertEqual(purchasePages().count, 5)
    }

    func testTheTimeoutBudgetIsSharedByEveryPage() throws {
        // 1.5 s for the user and pages paced at 5 a second: the budget runs out before page 20, and
        // what was read is answered, said to be partial.
        let result = iaphub(["history", "endless", "--json", "--timeout", "1.5"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["complete"], .bool(false))
        XCTAssertTrue(doc["incompleteReason"]?.stringValue?.contains("the --timeout of 1.5 s was spent") == true, result.stdout)
        let read = try XCTUnwrap(doc["entries"]?.arrayValue?.count)
        XCTAssertGreaterThan(read, 0)
        XCTAssertLessThan(read, IAPHUBSource.pageCap)
        XCTAssertEqual(server.listings.count, read)
    }

    func testABrokenListingIsExit76WithThePath() {
        let cases: [(String, String)] = [
            ("list-not-array", "list: expected an array, found object"),
            ("empty-next", "hasNextPage is true on an empty page"),
        ]
        for (id, words) in cases {
            let result = iaphub(["history", id])
            XCTAssertEqual(result.status, .protocolError, id)
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
        }
    }

    func testTheEnvironmentIsAskedOfTheListingToo() throws {
        server.expectedQuery = "environment=sandbox&platform=ios"
        let doc = try JSON.parse(iaphub(["history", user, "--json"], env: ["SUBS_IAPHUB_ENVIRONMENT": "sandbox"]).stdout)
        // The purchase's own isSandbox (false) wins over the environment asked.
        XCTAssertEqual(doc["entries"]?.arrayValue?.first?["environment"], .string("production"))
        XCTAssertTrue(purchasePages().allSatisfy { $0.contains("&environment=sandbox&") }, "\(purchasePages())")
    }

    func testAUserIdIsOneEncodedQueryValue() throws {
        for id in ["a?b#c%d+e&f=g", "alice/ü x"] {
            let doc = try history(id).doc
            XCTAssertEqual(doc["customerId"], .string(id))
            XCTAssertEqual(doc["entries"], .array([]))
        }
        // The fake decoded exactly the five parameters, the id whole (else it would have noted a problem).
        XCTAssertEqual(server.listings.count, 2)
        XCTAssertTrue(server.listings[0].contains("userId=a%3Fb%23c%25d%2Be%26f%3Dg&"), server.listings[0])
    }

    func testTheListingIsCachedPerUserAndOfflineAnswersFromIt() throws {
        _ = try history(user)
        let offline = iaphub(["history", user, "--json", "--offline"])
        XCTAssertEqual(offline.status, .success, offline.stderr)
        XCTAssertEqual(try JSON.parse(offline.stdout)["entries"]?.arrayValue?.count, 9)
        XCTAssertTrue(offline.stderr.contains("cache"), offline.stderr)
        XCTAssertEqual(iaphub(["history", "no-purchases", "--offline"]).status, .unavailable)
    }
}
