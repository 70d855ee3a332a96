// The built `subs` binary as a user runs it: exit statuses, pipes into jq, ids on stdin.

import Foundation
import SubsJSON
import XCTest

final class EndToEndTests: XCTestCase {
    let small = Repo.path("Tests/Fixtures/stores/small.json")

    func testExitStatuses() throws {
        XCTAssertEqual(try Binary.run(["--store", small, "check", "alice"]).status.rawValue, 0)
        XCTAssertEqual(try Binary.run(["--store", small, "check", "alice", "bob", "--require", "premium", "-q"]).status.rawValue, 1)
        let notFound = try Binary.run(["--store", small, "check", "zed"])
        XCTAssertEqual(notFound.status.rawValue, 3)
        XCTAssertEqual(notFound.stderr, "subs: error: customer 'zed' not found\n")
        let usage = try Binary.run(["--store", small, "check", "alice", "--jsn"])
        XCTAssertEqual(usage.status.rawValue, 64)
        XCTAssertTrue(usage.stderr.hasPrefix("subs: error: unknown option '--jsn'\ndid you mean '--json'?\nusage: subs check"), usage.stderr)
        let malformed = try Binary.run(["--store", Repo.path("Tests/Fixtures/stores/trailing-comma.json"), "check", "alice"])
        XCTAssertEqual(malformed.status.rawValue, 65)
        XCTAssertTrue(malformed.stderr.contains("trailing-comma.json:41:10: trailing comma"), malformed.stderr)
        XCTAssertEqual(try Binary.run(["--store", "/nonexistent/store.json", "check", "alice"]).status.rawValue, 66)
        let unknownCommand = try Binary.run(["chek", "alice"])
        XCTAssertEqual(unknownCommand.status.rawValue, 64)
        XCTAssertTrue(unknownCommand.stderr.contains("did you mean 'check'?"), unknownCommand.stderr)
    }

    func testEveryMalformedFixtureIsExit65WithAPosition() throws {
        for name in ["trailing-comma", "truncated", "invalid-utf8", "duplicate-key", "deep-nesting", "bad-escape", "leading-zero"] {
            let result = try Binary.run(["--store", Repo.path("Tests/Fixtures/stores/\(name).json"), "check", "alice"])
            XCTAssertEqual(result.status.rawValue, 65, name)
            XCTAssertNotNil(result.stderr.range(of: #"\#(name)\.json:\d+:\d+: "#, options: .regularExpression), result.stderr)
        }
        for name in ["wrong-schema-version", "missing-products", "bad-product-type", "unknown-product", "missing-expiration",
                     "purchase-with-expiration", "bad-date", "bad-enum", "wrong-type", "duplicate-alias",
                     "alias-is-customer-key", "duplicate-transaction-id", "multiple-problems"] {
            let result = try Binary.run(["--store", Repo.path("Tests/Fixtures/stores/\(name).json"), "store", "validate"])
            XCTAssertEqual(result.status.rawValue, 65, name)
        }
    }

    func testJSONOutputPipesIntoJq() throws {
        let subs = Binary.url.path
        let script = "'\(subs)' --store '\(small)' check alice carol --json | jq -r '.[] | .customerId + \" \" + (.activeEntitlements | join(\",\"))'"
        let result = try shell(script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "alice premium\ncarol premium\n")
        let history = try shell("'\(subs)' --store '\(small)' history alice --format jsonl | jq -s 'length'")
        XCTAssertEqual(history.stdout.trimmingCharacters(in: .whitespacesAndNewlines), String(try historyCount()))
    }

    func testIdsFromStdin() throws {
        let result = try Binary.run(["--store", small, "check", "-", "--format", "jsonl"], stdin: "alice\n# comment\n\ncarol-android\n")
        XCTAssertEqual(result.status.rawValue, 0, result.stderr)
        let ids = try result.stdout.split(separator: "\n").map { try JSON.parse(String($0))["customerId"] }
        XCTAssertEqual(ids, [.string("alice"), .string("carol")])
    }

    func testAScriptReadsOneShapeAndTheGateSaysWhoFailed() throws {
        let subs = Binary.url.path
        // The same jq filter reads found customers whatever the batch holds.
        let joined = try shell("printf 'alice\\nzed\\nbob\\n' | '\(subs)' --store '\(small)' check - --json "
                               + "| jq -r '.[] | .requestedId + \" \" + (.customerId // \"-\") + \" \" + (.error.code // \"ok\")'")
        XCTAssertEqual(joined.stdout, "alice alice ok\nzed - customer_not_found\nbob bob ok\n", joined.stderr)
        let gate = try Binary.run(["--store", small, "check", "-", "--require", "premium", "-q"], stdin: "alice\nbob\n")
        XCTAssertEqual(gate.status.rawValue, 1)
        XCTAssertTrue(gate.stderr.hasPrefix("subs: 'bob' lacks 'premium': "), gate.stderr)
        let counts = try Binary.run(["--store", small, "renew-count", "-", "premium", "--format", "tsv"], stdin: "alice\nzed\n")
        XCTAssertEqual(counts.status.rawValue, 3)
        XCTAssertEqual(counts.stdout, "customerId\trequestedId\tentitlement\trenewsCount\tallChainsRenewsCount\terror\nalice\talice\tpremium\t1\t\t\n\tzed\t\t\t\tcustomer_not_found\n")
    }

    func testStoreFromAPipe() throws {
        let result = try shell("'\(Binary.url.path)' --store <(cat '\(small)') check alice --json | jq -r .customerId")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "alice\n")
    }

    func testClosedPipeDoesNotCrash() throws {
        let ids = String(repeating: "alice\n", count: 5000)
        let result = try shell("printf '\(ids.replacingOccurrences(of: "\n", with: "\\n"))' | '\(Binary.url.path)' --store '\(small)' check - --format jsonl | head -c 10")
        XCTAssertEqual(result.stdout.count, 10)
        XCTAssertFalse(result.stderr.contains("Fatal"), result.stderr)
    }

    private func historyCount() throws -> Int {
        let doc = try JSON.parse(try Binary.run(["--store", small, "history", "alice", "--json"]).stdout)
        return doc["entries"]?.arrayValue?.count ?? -1
    }
}

/// Runs `script` with bash (pipefail), fixed clock and no user config.
func shell(_ script: String) throws -> ProcessResult {
    var env = ProcessInfo.processInfo.environment
    env["SUBS_NOW"] = testNow
    env["XDG_CONFIG_HOME"] = "/nonexistent-config"
    return try runProcess("/bin/bash", ["-c", "set -o pipefail; " + script], environment: env)
}
