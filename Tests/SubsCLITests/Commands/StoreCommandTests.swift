// `store init` and `store validate`.

import Foundation
import SubsCLI
import SubsJSON
import XCTest

final class StoreCommandTests: XCTestCase {
    let dir = TempDir()

    func testInitCreatesAnEmptyPrivateStoreAndRefusesToOverwrite() throws {
        let path = dir.path + "/new/sub/store.json"
        let first = runCLI(["--store", path, "store", "init"])
        XCTAssertEqual(first.status, .success, first.stderr)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(runCLI(["--store", path, "store", "validate"]).status, .success)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let second = runCLI(["--store", path, "store", "init", "--demo"])
        XCTAssertEqual(second.status, .cannotWrite)
        XCTAssertTrue(second.stderr.contains("already exists"), second.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/new/sub")
        XCTAssertEqual(leftovers.sorted(), ["store.json", "store.json.lock"])
    }

    func testInitDemoCreatesAValidStore() {
        let path = dir.path + "/demo.json"
        XCTAssertEqual(runCLI(["--store", path, "store", "init", "--demo"]).status, .success)
        XCTAssertEqual(runCLI(["--store", path, "store", "validate"]).status, .success)
        XCTAssertEqual(runCLI(["--store", path, "check", "alice", "-q"]).status, .success)
    }

    func testDefaultStorePathFollowsXDGDataHome() {
        let result = runCLI(["store", "init"], env: ["XDG_DATA_HOME": dir.path + "/data"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path + "/data/subs/store.json"))
    }

    func testValidateListsEveryProblemWithItsPath() throws {
        let text = """
        {"schemaVersion": 1,
         "products": {"m": {"type": "subscription", "entitlements": ["premium"]}, "bad": {"type": "gift", "entitlements": []}},
         "customers": {
           "a": {"aliases": ["shared"], "firstSeen": "2026-02-30T00:00:00Z"},
           "b": {"aliases": ["shared", "a"], "transactions": [{"transactionId": "t", "originalTransactionId": "t",
                 "productId": "m", "type": "subscriptionStarted", "transactionDate": "2026-01-01T00:00:00Z",
                 "expirationDate": "2026-02-01T00:00:00Z", "source": "googleplay"}]}
         }}
        """
        let result = runCLI(["--store", dir.write("s.json", text), "store", "validate", "--json"])
        XCTAssertEqual(result.status, .dataError)
        let problems = try XCTUnwrap(JSON.parse(result.stdout)["problems"]?.arrayValue)
        XCTAssertEqual(problems.compactMap { $0["path"]?.stringValue }, [
            "products.bad.type",
            "customers.a.firstSeen",
            "customers.b.transactions[0].source",
            "customers.b.aliases[0]",
            "customers.b.aliases[1]",
        ])
        XCTAssertTrue(result.stderr.contains("5 problems"), result.stderr)
    }

    /// A store that is not JSON at all (truncated, not UTF-8, nested too deep) is one problem of
    /// the same document, so that `| jq .valid` says false exactly when the store is worst; a
    /// missing or unreadable store is still an error of its own.
    func testValidateOfAStoreThatIsNotJSONAnswersTheSameDocument() throws {
        let cases: [(String, [UInt8], String)] = [
            ("truncated.json", Array(#"{"schemaVersion": 1, "#.utf8), "1:22: "),
            ("latin1.json", Array(#"{"schemaVersion": 1, "products": {}, "customers": {"caf"#.utf8) + [0xE9] + Array(#"": {}}}"#.utf8), "1:"),
            ("deep.json", Array((String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).utf8), "1:"),
        ]
        for (name, bytes, position) in cases {
            let path = dir.path + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let json = runCLI(["--store", path, "store", "validate", "--json"])
            XCTAssertEqual(json.status, .dataError, name)
            let doc = try JSON.parse(json.stdout)
            XCTAssertEqual(doc.objectValue?.keys, ["store", "valid", "problems"], name)
            XCTAssertEqual(doc["valid"], .bool(false), name)
            let problems = try XCTUnwrap(doc["problems"]?.arrayValue, name)
            XCTAssertEqual(problems.count, 1, name)
            XCTAssertEqual(problems.first?["path"], .string(""), name)
            XCTAssertTrue(problems.first?["message"]?.stringValue?.hasPrefix(position) == true, "\(name): \(json.stdout)")
            XCTAssertEqual(json.stderr, "subs: error: \(path): 1 problem found\n", name)
            let table = runCLI(["--store", path, "store", "validate"])
            XCTAssertTrue(table.stdout.hasPrefix(path + ":" + position), table.stdout)
        }
        let missing = runCLI(["--store", dir.path + "/none.json", "store", "validate", "--json"])
        XCTAssertEqual(missing.status.rawValue, 66)
        XCTAssertEqual(missing.stdout, "")
    }
}
