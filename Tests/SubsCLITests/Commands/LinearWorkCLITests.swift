// SPEC section 7, linear work, through the whole read path (scan, index, decode, rules): stores
// whose size would make any per-alias or per-customer scan over the others never finish.
// No timing is asserted; the suite's time budget is the limit.

import Foundation
import SubsCLI
import XCTest

final class LinearWorkCLITests: XCTestCase {
    func testACustomerWithTwoHundredThousandAliasesIsFoundByAnyOfThem() throws {
        let dir = TempDir()
        let aliases = (0..<200_000).map { "\"alias-\($0)\"" }.joined(separator: ",")
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"m": {"type": "nonConsumable", "entitlements": ["premium"]}},
             "customers": {"u": {"aliases": [\(aliases)], "transactions": [{"transactionId": "t1",
               "originalTransactionId": "t1", "productId": "m", "type": "nonConsumablePurchase",
               "transactionDate": "2026-01-01T00:00:00Z"}]}, "v": {}}}
            """)
        let result = runCLI(["--store", store, "check", "alias-199999", "--require", "premium", "--format", "jsonl"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix(#"{"customerId":"u","#), String(result.stdout.prefix(200)))
        XCTAssertTrue(result.stdout.contains(#""alias-199999"]"#))
        XCTAssertTrue(result.stdout.contains(#""activeEntitlements":["premium"]"#))
    }

    func testAnAliasSharedByFiftyThousandCustomersIsReportedOnce() {
        let dir = TempDir()
        let customers = (0..<50_000).map { "\"u\($0)\": {\"aliases\": [\"shared\", \"shared\"]}" }.joined(separator: ",")
        let store = dir.write("store.json", #"{"schemaVersion": 1, "products": {}, "customers": {\#(customers)}}"#)
        let result = runCLI(["--store", store, "check", "shared"])
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), String(result.stderr.prefix(200)))
        XCTAssertTrue(result.stderr.contains("belongs to several customers: 'u0', 'u1', 'u2'"), String(result.stderr.prefix(200)))
        // Each customer named once, although each lists the alias twice.
        XCTAssertEqual(result.stderr.components(separatedBy: "'u1'").count, 2)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1)
    }
}

extension LinearWorkCLITests {
    func testGrantCreatingFiftyThousandCustomersNamesEachOnce() throws {
        let dir = TempDir()
        let store = dir.write("store.json", #"{"schemaVersion": 1, "products": {"m": {"type": "nonConsumable", "entitlements": ["premium"]}}, "customers": {}}"#)
        // Every id twice: created once each.
        let ids = (0..<50_000).map { "new-\($0)" }
        let result = runCLI(["--store", store, "grant"] + ids + ids + ["premium", "--lifetime", "--create", "-q"],
                            env: ["SUBS_ACTOR": "test"])
        XCTAssertEqual(result.status, .success, String(result.stderr.prefix(300)))
        let found = runCLI(["--store", store, "check", "new-0", "new-49999", "--format", "jsonl"])
        XCTAssertEqual(found.status, .success, found.stderr)
        XCTAssertEqual(found.stdout.split(separator: "\n").count, 2)
        let text = try String(contentsOfFile: store, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: "\"new-49999\"").count, 2, "created once")
    }
}
