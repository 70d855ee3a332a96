// Issue 30, "one shape per command": find keeps a TSV row and a JSON line per term asked (an
// `error` column for a term without a match, as check has for a customer not found);
// renew-count's renewsCount is always a number or null (byEntitlement beside it); history JSON
// Lines carry customerId always; grant/revoke TSV carry requestedId and error.

import Foundation
import SubsJSON
import XCTest

final class OneShapeTests: XCTestCase {
    private func demo(_ args: [String], stdin: String? = nil) -> CLIResult {
        runCLI(["--store", Repo.exampleStore] + args, stdin: stdin)
    }

    private func rows(_ tsv: String) -> [[String: String]] {
        let lines = tsv.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }

    func testFindKeepsARowAndALinePerTermAsked() throws {
        let terms = ["nobody@example.com", "nina@example.com", "zzz", "fam_3921"]
        let tsv = demo(["find", "-", "--attribute", "familyId", "--format", "tsv"], stdin: terms.joined(separator: "\n"))
        XCTAssertEqual(tsv.status, .notFound)
        let table = rows(tsv.stdout)
        XCTAssertEqual(table.map { $0["term"] }, ["nobody@example.com", "nina@example.com", "zzz", "fam_3921", "fam_3921"])
        XCTAssertEqual(table.map { $0["error"] }, ["customer_not_found", "", "customer_not_found", "", ""])
        XCTAssertEqual(table.map { $0["customerId"] }, ["", "nina", "", "nina", "oscar"])
        let jsonl = demo(["find", "-", "--format", "jsonl"], stdin: terms.joined(separator: "\n"))
        let lines = try jsonl.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        XCTAssertEqual(lines.map { $0["term"] }, terms.map { .string($0) })
        XCTAssertEqual(lines[0]["matches"], .array([]))
        XCTAssertEqual(lines.map { $0.objectValue?.keys ?? [] }, Array(repeating: ["term", "matches"], count: 4), "one shape per line")
    }

    func testRenewCountIsAlwaysANumberOrNullWithByEntitlementBeside() throws {
        let keys = ["customerId", "requestedId", "requestDate", "complete", "incompleteReason", "entitlement", "renewsCount",
                    "byEntitlement"]
        let expected: [(String, String?, JSONValue, [(String, JSONValue)])] = [
            // One chain renews premium and pro_plus together: counted once.
            ("sybil", nil, .number("5"), [("premium", .number("5")), ("pro_plus", .number("1"))]),
            ("sybil", "pro_plus", .number("1"), [("pro_plus", .number("1"))]),
            // Every chain counts: alice's older Google Play chain renewed once too.
            ("alice", nil, .number("19"), [("premium", .number("18"))]),
            ("oscar", nil, .number("1"), [("family", .number("1")), ("premium", .number("1"))]),
            ("trent", nil, .number("0"), []),
        ]
        for (id, entitlement, count, by) in expected {
            let doc = try JSON.parse(demo(["renew-count", id] + (entitlement.map { [$0] } ?? []) + ["--json"]).stdout)
            XCTAssertEqual(doc.objectValue?.keys, keys, id)
            XCTAssertEqual(doc["entitlement"], entitlement.map { .string($0) } ?? .null, id)
            XCTAssertEqual(doc["renewsCount"], count, "\(id) \(entitlement ?? "")")
            XCTAssertEqual(doc["byEntitlement"], .object(JSONObject(by)), id)
        }
        // Several (-): the same shape per element, an error element for a USER not found.
        let several = try XCTUnwrap(JSON.parse(demo(["renew-count", "-", "--json"], stdin: "alice\nzed\n").stdout).arrayValue)
        XCTAssertEqual(several.first?.objectValue?.keys, keys)
        XCTAssertEqual(several.last?["error"]?["code"], .string("customer_not_found"))
    }

    func testHistoryJSONLinesCarryTheirCustomerWithOneUserOrSeveral() throws {
        for args in [["history", "xavier"], ["history", "xavier", "uma"], ["history", "-"]] {
            let result = demo(args + ["--format", "jsonl"], stdin: "xavier\n")
            XCTAssertEqual(result.status, .success, result.stderr)
            let lines = try result.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
            XCTAssertFalse(lines.isEmpty)
            for line in lines {
                XCTAssertEqual(line.objectValue?.keys.prefix(4), ["customerId", "requestedId", "date", "kind"], "\(args)")
                XCTAssertNotNil(line["customerId"]?.stringValue, "\(args)")
            }
        }
    }

    func testGrantAndRevokeTSVCarryRequestedIdAndError() throws {
        let dir = TempDir()
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let grant = runCLI(["--store", store, "grant", "alice-android", "trent", "premium", "--duration", "P7D", "--format", "tsv"])
        XCTAssertEqual(grant.status, .success, grant.stderr)
        let granted = rows(grant.stdout)
        XCTAssertEqual(grant.stdout.split(separator: "\n").first,
                       "customerId\trequestedId\tentitlement\tgrantId\texpirationDate\tdryRun\tstate\tisActive\terror")
        XCTAssertEqual(granted.map { $0["customerId"] }, ["alice", "trent"])
        XCTAssertEqual(granted.map { $0["requestedId"] }, ["alice-android", "trent"], "as given: an alias stays the alias")
        XCTAssertEqual(granted.map { $0["error"] }, ["", ""])
        let revoke = runCLI(["--store", store, "revoke", "trent", "premium", "--format", "tsv"])
        XCTAssertEqual(rows(revoke.stdout).map { $0["requestedId"] }, ["trent"])
        XCTAssertEqual(rows(revoke.stdout).map { $0["error"] }, [""])
        let json = try JSON.parse(runCLI(["--store", store, "grant", "alice-android", "premium", "--lifetime", "--json"]).stdout)
        XCTAssertEqual(json.objectValue?.keys.prefix(2), ["customerId", "requestedId"])
        XCTAssertEqual(json["requestedId"], .string("alice-android"))
    }
}

/// Issue 30: `find` trims whitespace pasted around a term and matches the display-name
/// attributes (`$displayName`, `name`) in any case.
final class FindTermTests: XCTestCase {
    func testWhitespaceAroundATermIsNotPartOfIt() throws {
        for term in [" alice@example.com ", "\talice@example.com", "alice@example.com\u{A0}", "  MK7W2Q9TXL  "] {
            let result = runCLI(["--store", Repo.exampleStore, "find", term, "--json"])
            XCTAssertEqual(result.status, .success, "'\(term)': \(result.stderr)")
            let doc = try JSON.parse(result.stdout)
            XCTAssertEqual(doc["matches"]?.arrayValue?.first?["customerId"], .string("alice"), term)
            XCTAssertEqual(doc["term"]?.stringValue?.first?.isWhitespace, false, "the term as looked for")
        }
        // Inside a term, whitespace is kept; a term of whitespace only is empty.
        XCTAssertEqual(runCLI(["--store", Repo.exampleStore, "find", "alice @example.com"]).status, .notFound)
        let blank = runCLI(["--store", Repo.exampleStore, "find", "   "])
        XCTAssertEqual(blank.status, .usage)
        XCTAssertTrue(blank.stderr.contains("an empty term matches nothing"), blank.stderr)
    }

    func testDisplayNamesMatchInAnyCase() throws {
        let dir = TempDir()
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"life": {"type": "nonConsumable", "entitlements": ["premium"]}},
             "customers": {
               "u1": {"attributes": {"$displayName": "Dana Kowalski", "email": "dana@example.com"}},
               "u2": {"attributes": {"name": "DANA KOWALSKI"}},
               "u3": {"attributes": {"nickname": "Dana Kowalski"}},
               "dana kowalski": {}
             }}
            """)
        for args in [["find", "dana kowalski", "--json"], ["find", "-", "--json"]] {
            let result = runCLI(["--store", store] + args, stdin: "dana kowalski\nx\ny\n")
            XCTAssertEqual(result.status, args[1] == "-" ? .notFound : .success, result.stderr)
            let parsed = try JSON.parse(result.stdout)
            let doc = parsed.arrayValue?.first ?? parsed
            // The exact id first, then the display names in store order; `nickname` is no name.
            XCTAssertEqual(doc["matches"]?.arrayValue?.map { $0["customerId"] }, [.string("dana kowalski"), .string("u1"), .string("u2")])
            XCTAssertEqual(doc["matches"]?.arrayValue?.map { $0["matchedBy"] }, [.string("customerId"), .string("displayName"), .string("displayName")])
        }
    }
}

/// Issue 30: `history` takes several customers, as check and find do.
final class HistorySeveralTests: XCTestCase {
    func testSeveralCustomersGiveOneTimelineEachAndAMissingOneDoesNotStopThem() throws {
        let table = runCLI(["--store", Repo.exampleStore, "history", "ivan", "zed", "uma"])
        XCTAssertEqual(table.status, .notFound)
        XCTAssertEqual(table.stderr, "subs: error: customer 'zed' not found\n")
        XCTAssertTrue(table.stdout.hasPrefix("ivan\nDATE"), table.stdout)
        XCTAssertTrue(table.stdout.contains("\numa\nDATE"), table.stdout)
        let json = try XCTUnwrap(JSON.parse(runCLI(["--store", Repo.exampleStore, "history", "ivan", "zed", "uma", "--json"]).stdout).arrayValue)
        XCTAssertEqual(json.map { $0["requestedId"] }, [.string("ivan"), .string("zed"), .string("uma")])
        XCTAssertEqual(json[1]["error"]?["code"], .string("customer_not_found"))
        XCTAssertEqual(json[2]["entries"]?.arrayValue?.count, 4)
    }
}

/// Issue 30: `--wide` shows every column it names, wrapping if needed; the relative hints are
/// dropped before any column the user asked for.
final class WideColumnsTests: XCTestCase {
    func testWideKeepsEveryColumnItNamesAndDropsTheHintsFirst() {
        for columns in [60, 70, 80, 100, 120, 200] {
            let check = screen(["check", "uma", "liam", "--wide"], columns: columns).stdout
            for id in ["2000000765223817", "2000000712004411", "grant-1", "grant-2"] {
                XCTAssertTrue(check.contains(id), "COLUMNS=\(columns): \(id) missing\n\(check)")
            }
            for line in check.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, columns, "\(columns): \(line)") }
            let history = screen(["history", "uma", "--wide"], columns: columns).stdout
            XCTAssertTrue(history.contains("2000000765223817") && history.contains("pro_monthly"), "COLUMNS=\(columns)\n\(history)")
            for line in history.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, columns, "\(columns): \(line)") }
        }
        // Wide enough for the ids but not for the hints too: the hints go, the ids stay.
        // (95 columns hold the ids with the dates alone, not with their hints: 99 would.)
        let tight = screen(["check", "uma", "--wide"], columns: 95).stdout
        XCTAssertTrue(tight.contains("TRANSACTION") && tight.contains("ORIGINAL"), tight)
        XCTAssertFalse(tight.contains("ago)"), "hints dropped before an asked-for column:\n\(tight)")
        XCTAssertFalse(tight.contains("until:"), "a table, not blocks:\n\(tight)")
        let roomy = screen(["check", "uma", "--wide"], columns: 110).stdout
        XCTAssertTrue(roomy.contains("ago)") && roomy.contains("ORIGINAL"), "room for everything: the hint stays\n\(roomy)")
    }
}
