// `history` and `renew-count` in-process.

import SubsCLI
import SubsJSON
import XCTest

final class HistoryAndRenewCountTests: XCTestCase {
    var dir: TempDir!
    var store: String!

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    func run(_ args: [String]) -> CLIResult { runCLI(["--store", store] + args) }

    func testHistoryJSONIsOldestFirstWithKinds() throws {
        let result = run(["history", "bob", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "provider", "complete",
                                               "incompleteReason", "entries"])
        XCTAssertEqual(doc["provider"], .string("store"))
        XCTAssertEqual(doc["complete"], .bool(true))
        XCTAssertEqual(doc["incompleteReason"], .null)
        XCTAssertEqual(result.stderr, "", "a complete history says nothing on stderr")
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        XCTAssertEqual(entries.map { $0["kind"] }, [.string("transaction"), .string("event")])
        XCTAssertEqual(entries[1]["type"], .string("billingIssue"))
        XCTAssertEqual(entries[1]["entitlements"], .array([.string("premium")]))
        XCTAssertEqual(entries[0].objectValue?.keys.prefix(4), ["date", "kind", "type", "entitlements"])
    }

    func testHistoryTransactionEntriesCarryPriceAndCurrencyNullFromTheStore() throws {
        let doc = try JSON.parse(run(["history", "alice", "--json"]).stdout)
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        let transaction = try XCTUnwrap(entries.first { $0["kind"] == .string("transaction") })
        XCTAssertEqual(transaction.objectValue?.keys, ["date", "kind", "type", "entitlements", "transactionId",
                                                       "originalTransactionId", "productId", "expirationDate", "source",
                                                       "environment", "ownershipType", "offerCode", "price", "currency"])
        // The store format keeps no price: unknown, not invented.
        XCTAssertEqual(transaction["price"], .null)
        XCTAssertEqual(transaction["currency"], .null)
        // Refunds, events and grants carry no price.
        for entry in entries where entry["kind"] != .string("transaction") { XCTAssertNil(entry["price"]) }
    }

    func testHistoryJSONLIsOneEntryPerLineAndLimitKeepsTheMostRecent() throws {
        let result = run(["history", "alice", "--format", "jsonl", "--limit", "1"])
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(try JSON.parse(String(lines[0]))["transactionId"], .string("a2"))
    }

    func testHistorySinceAndUntil() throws {
        let doc = try JSON.parse(run(["history", "alice", "--json", "--since", "2026-11-01", "--until", "2026-11-30"]).stdout)
        XCTAssertEqual(doc["entries"]?.arrayValue?.count, 1)
        let early = try JSON.parse(run(["history", "alice", "--json", "--at", "2026-10-20"]).stdout)
        XCTAssertEqual(early["entries"]?.arrayValue?.count, 1, "records after --at do not exist yet")
    }

    func testASinceAfterTheUntilIsAUsageErrorBeforeAnythingIsRead() {
        let empty = run(["history", "alice", "--since", "2026-12-01", "--until", "2026-11-30T23:59Z", "--json"])
        XCTAssertEqual(empty.status, .usage)
        XCTAssertEqual(empty.stdout, "")
        XCTAssertTrue(empty.stderr.contains("--since 2026-12-01T00:00:00Z is after --until 2026-11-30T23:59:00Z"), empty.stderr)
        // The same instant is a window of one instant, not an error.
        XCTAssertEqual(run(["history", "alice", "--since", "2026-11-30", "--until", "2026-11-30"]).status, .success)
    }

    func testHistoryOfGrantsAndTable() {
        let out = run(["history", "dave"]).stdout
        XCTAssertTrue(out.hasPrefix("DATE               ENTITLEMENT  WHAT HAPPENED\n"), out)
        XCTAssertTrue(out.contains("2026-11-01 00:00Z  premium      Granted premium until 2027-01-01 by dana: goodwill\n"), out)
        XCTAssertFalse(out.contains("grantedBy="), "a timeline, not a key=value dump")
    }

    func testHistoryUnknownCustomerIsExit3() {
        XCTAssertEqual(run(["history", "nobody"]).status, .notFound)
    }

    func testRenewCountWithEntitlementPrintsTheBareNumber() {
        let result = run(["renew-count", "alice", "premium"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stdout, "1\n")
    }

    func testRenewCountJSONShapes() throws {
        // One shape (SPEC section 4, rev. 4): renewsCount is always a number or null.
        let keys = ["customerId", "requestedId", "requestDate", "complete", "incompleteReason", "entitlement", "renewsCount",
                    "byEntitlement"]
        let one = try JSON.parse(run(["renew-count", "alice", "premium", "--json"]).stdout)
        XCTAssertEqual(one.objectValue?.keys, keys)
        XCTAssertEqual(one["complete"], .bool(true))
        XCTAssertEqual(one["incompleteReason"], .null)
        XCTAssertEqual(one["entitlement"], .string("premium"))
        XCTAssertEqual(one["renewsCount"], .number("1"))
        XCTAssertEqual(one["byEntitlement"], .object(JSONObject([("premium", .number("1"))])))
        let all = try JSON.parse(run(["renew-count", "alice", "--json"]).stdout)
        XCTAssertEqual(all.objectValue?.keys, keys)
        XCTAssertEqual(all["entitlement"], .null)
        XCTAssertEqual(all["renewsCount"], .number("1"))
        XCTAssertEqual(all["byEntitlement"], .object(JSONObject([("premium", .number("1"))])))
    }

    func testRenewCountOfAnEntitlementNeverHeldIsExit3() {
        XCTAssertEqual(run(["renew-count", "frank", "premium"]).status, .notFound)
        // Its TSV row names the entitlement asked for, as a found row names its own (a customer not
        // found has none).
        let tsv = run(["renew-count", "frank", "premium", "--format", "tsv"])
        XCTAssertEqual(tsv.status, .notFound)
        XCTAssertEqual(tsv.stdout, "customerId\trequestedId\tentitlement\trenewsCount\tallChainsRenewsCount\terror\nfrank\tfrank\tpremium\t\t\tentitlement_not_found\n")
        XCTAssertEqual(run(["renew-count", "nobody", "premium", "--format", "tsv"]).stdout.split(separator: "\n").last,
                       "\tnobody\t\t\t\tcustomer_not_found")
    }

    /// Without ENTITLEMENT the JSON's renewsCount counts each renewal once across all chains, and
    /// is not the sum of the rows (demo alice: premium 18, 19 across her chains). The table says
    /// that number under its rows, the TSV and CSV carry it in every row, the batch table in a
    /// column: no format shows less than the document.
    func testTheCountAcrossAllChainsIsInEveryFormat() throws {
        let dir = TempDir()
        let store = dir.path + "/store.json"
        XCTAssertEqual(runCLI(["--store", store, "store", "init", "--demo", "-q"]).status, .success)
        let at = ["--at", "2026-12-01T12:00:00Z"]
        let document = try JSON.parse(runCLI(["--store", store, "renew-count", "alice", "--json"] + at).stdout)
        func number(_ value: JSONValue?) -> String? { if case .number(let n)? = value { return n } else { return nil } }
        let across = try XCTUnwrap(number(document["renewsCount"]))
        let rows = try XCTUnwrap(document["byEntitlement"]?.objectValue).members.compactMap { number($0.value) }
        XCTAssertNotEqual(rows.compactMap { Int($0) }.reduce(0, +), Int(across), "the demo should show a total that is not the sum")
        let table = runCLI(["--store", store, "renew-count", "alice"] + at)
        XCTAssertTrue(table.stdout.hasSuffix("Across all subscription chains: \(across) renewals, each counted once.\n"), table.stdout)
        let tsv = runCLI(["--store", store, "renew-count", "alice", "--format", "tsv"] + at).stdout.split(separator: "\n")
        XCTAssertEqual(tsv.first?.split(separator: "\t")[4], "allChainsRenewsCount")
        XCTAssertEqual(Set(tsv.dropFirst().map { String($0.split(separator: "\t", omittingEmptySubsequences: false)[4]) }), [across])
        let batch = runCLI(["--store", store, "renew-count", "-"] + at, stdin: "alice\n")
        XCTAssertTrue(batch.stdout.hasPrefix("CUSTOMER  ENTITLEMENT  RENEWS  ALL CHAINS\n"), batch.stdout)
        XCTAssertTrue(batch.stdout.contains("  \(across)\n"), batch.stdout)
        // With ENTITLEMENT the bare number stays alone, and the column is empty.
        XCTAssertEqual(runCLI(["--store", store, "renew-count", "alice", "premium"] + at).stdout, "18\n")
    }
}
