// Writes on a store large enough for the prefix copier to work during the scan: the result
// must be the same bytes as ever — untouched outside the changed records.

import Foundation
import SubsJSON
import XCTest

final class LargeStoreWriteTests: XCTestCase {
    var dir: TempDir!
    var store: String!
    var original: [UInt8] = []

    override func setUp() {
        dir = TempDir()
        var text = "{\n  \"schemaVersion\": 1,\n  \"products\": {\"m\": {\"type\": \"subscription\", \"entitlements\": [\"premium\"]}},\n  \"customers\": {\n"
        let count = 15_000   // ≈ 12 MB: several copier steps
        for i in 0..<count {
            text += "    \"user\(i)\": {\"aliases\": [\"alias\(i)\"], \"note\": \"\(String(repeating: "x", count: 560))\", \"transactions\": [{\"transactionId\": \"t\(i)\", \"originalTransactionId\": \"t\(i)\", \"productId\": \"m\", \"type\": \"subscriptionStarted\", \"transactionDate\": \"2026-11-01T00:00:00Z\", \"expirationDate\": \"2026-12-20T00:00:00Z\"}]}"
            text += i == count - 1 ? "\n" : ",\n"
        }
        text += "  }\n}\n"
        original = Array(text.utf8)
        store = dir.write("big.json", bytes: original)
    }

    /// The store as readers see it (its journal folded in).
    func bytes() -> [UInt8] { StoreView.folded(store) }

    func offset(of needle: String, from: Int = 0) -> Int {
        let data = Data(original)
        return data.range(of: Data(needle.utf8), in: from..<data.count)?.lowerBound ?? -1
    }

    /// Everything before the record of `first` and after the record of `last` is unchanged.
    func assertUnchangedOutside(_ first: String, _ last: String, file: StaticString = #filePath, line: UInt = #line) {
        let after = bytes()
        let start = offset(of: "\"\(first)\": {")
        let end = offset(of: "\"\(last)\": {")
        let tail = original.count - offset(of: "\n", from: end)
        XCTAssertEqual(Array(after.prefix(start)), Array(original.prefix(start)), "prefix", file: file, line: line)
        XCTAssertEqual(Array(after.suffix(tail)), Array(original.suffix(tail)), "suffix", file: file, line: line)
    }

    func grants(_ id: String) throws -> Int {
        try JSON.parse(bytes())["customers"]?[id]?["grants"]?.arrayValue?.count ?? 0
    }

    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.contains(".tmp-") }
    }

    func testGrantInTheMiddleByIdAndByAlias() throws {
        XCTAssertEqual(runCLI(["--store", store, "grant", "user7000", "premium", "--lifetime"]).status, .success)
        assertUnchangedOutside("user7000", "user7000")
        XCTAssertEqual(try grants("user7000"), 1)
        original = bytes()
        XCTAssertEqual(runCLI(["--store", store, "grant", "alias11000", "premium", "--lifetime"]).status, .success)
        assertUnchangedOutside("user11000", "user11000")
        XCTAssertEqual(try grants("user11000"), 1)
        XCTAssertEqual(temporaries(), [])
    }

    func testBatchAndCreate() throws {
        let result = runCLI(["--store", store, "grant", "user14999", "user5000", "newcomer", "premium", "--lifetime", "--create"])
        XCTAssertEqual(result.status, .success, result.stderr)
        assertUnchangedOutside("user5000", "user14999")
        XCTAssertEqual(try grants("user5000"), 1)
        XCTAssertEqual(try grants("user14999"), 1)
        XCTAssertEqual(try grants("newcomer"), 1)
        XCTAssertEqual(runCLI(["--store", store, "store", "validate"]).status, .success)
        XCTAssertEqual(temporaries(), [])
    }

    func testRefusalAfterTheCopyStartedWritesNothing() {
        for args in [["grant", "user13000", "premum", "--lifetime"], ["grant", "user13000", "nobody", "premium", "--lifetime"],
                     ["revoke", "user13000", "premium"]] {
            XCTAssertEqual(runCLI(["--store", store] + args).status, .notFound, "\(args)")
            XCTAssertEqual(bytes(), original, "\(args)")
            XCTAssertEqual(temporaries(), [], "\(args)")
        }
    }

    func testSyntaxErrorAfterTheCopyStartedWritesNothing() {
        var broken = original
        broken.insert(UInt8(ascii: ","), at: broken.count - 5)   // a stray comma near the end
        store = dir.write("broken.json", bytes: broken)
        XCTAssertEqual(runCLI(["--store", store, "grant", "user1", "premium", "--lifetime"]).status, .dataError)
        XCTAssertEqual(bytes(), broken)
        XCTAssertEqual(temporaries(), [])
    }
}
