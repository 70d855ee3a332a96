// Missing, unreadable, malformed and invalid stores: the documented status and a position or path.

import SubsCLI
import XCTest

final class StoreErrorTests: XCTestCase {
    let dir = TempDir()

    func run(_ storeText: String, _ args: [String] = ["check", "alice"]) -> CLIResult {
        runCLI(["--store", dir.write("s.json", storeText)] + args)
    }

    func testMissingStoreIsExit66() {
        let result = runCLI(["--store", dir.path + "/nope.json", "check", "alice"])
        XCTAssertEqual(result.status, .noInput)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(dir.path)/nope.json: no such store"), result.stderr)
    }

    func testDirectoryAsStoreIsExit66() {
        XCTAssertEqual(runCLI(["--store", dir.path, "check", "alice"]).status, .noInput)
    }

    func testSyntaxErrorAnywhereGivesLineAndColumn() {
        // The customer asked for is fine; the error is in another customer further down.
        let text = "{\"schemaVersion\": 1, \"products\": {},\n \"customers\": {\"alice\": {},\n  \"bob\": {\"x\": [1,]}}}\n"
        let result = run(text)
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(dir.path)/s.json:3:18: trailing comma\n"), result.stderr)
        XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, "one line")
    }

    func testEmptyAndTruncatedStoresAreDataErrors() {
        XCTAssertEqual(run("").status, .dataError)
        XCTAssertEqual(run("{\"schemaVersion\": 1, \"products\": {}, \"customers\": {\"alice\": {").status, .dataError)
    }

    func testDeepNestingIsADataErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        let result = run("{\"schemaVersion\": 1, \"products\": {}, \"customers\": {\"alice\": {\"x\": \(deep)}}}")
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.contains("nesting"), result.stderr)
    }

    func testInvalidUTF8IsADataError() {
        var bytes = Array("{\"schemaVersion\": 1, \"products\": {}, \"customers\": {\"a".utf8)
        bytes += [0xFF]
        bytes += Array("\": {}}}".utf8)
        let result = runCLI(["--store", dir.write("bad.json", bytes: bytes), "check", "a"])
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.contains(":1:"), result.stderr)
    }

    func testWrongSchemaVersionNamesThePath() {
        let result = run("{\"schemaVersion\": 2, \"products\": {}, \"customers\": {}}")
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.contains("schemaVersion: unsupported version 2"), result.stderr)
    }

    func testInvalidCustomerRecordNamesTheJSONPath() {
        let text = """
        {"schemaVersion": 1, "products": {"m": {"type": "subscription", "entitlements": ["premium"]}},
         "customers": {"alice": {"transactions": [
           {"transactionId": "t1", "originalTransactionId": "t1", "productId": "m", "type": "subscriptionRenewed",
            "transactionDate": "2026-01-01T00:00:00Z"}]}}}
        """
        let result = run(text)
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.contains(
            "customers.alice.transactions[0].expirationDate: required for subscriptionRenewed"), result.stderr)
    }

    func testUnknownProductIsADataError() {
        let text = """
        {"schemaVersion": 1, "products": {},
         "customers": {"alice": {"transactions": [
           {"transactionId": "t1", "originalTransactionId": "t1", "productId": "ghost", "type": "nonConsumablePurchase",
            "transactionDate": "2026-01-01T00:00:00Z"}]}}}
        """
        let result = run(text)
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stderr.contains("customers.alice.transactions[0].productId: unknown product 'ghost'"), result.stderr)
    }

    func testOtherCustomersSchemaIsNotCheckedByCheckButIsByValidate() {
        let text = """
        {"schemaVersion": 1, "products": {}, "customers": {"alice": {}, "bob": {"aliases": "oops"}}}
        """
        XCTAssertEqual(run(text).status, .success)
        let validate = run(text, ["store", "validate"])
        XCTAssertEqual(validate.status, .dataError)
        XCTAssertTrue(validate.stdout.contains("customers.bob.aliases: expected array, found string"), validate.stdout)
    }
}
