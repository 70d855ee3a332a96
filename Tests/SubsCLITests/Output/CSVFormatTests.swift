// `--format csv` (SPEC section 1, rev. 4): RFC 4180 with a header row, for every command. A CSV
// reader that is not ours (Python's csv module) reads back every value byte for byte — commas,
// quotes, line breaks, a quote before a combining mark, the same letters in NFC and NFD, control
// characters — and every command's CSV holds the same header and rows as its TSV. On a terminal
// the values are escaped as in tsv, so data never drives it.

import XCTest
import SubsJSON
@testable import SubsCLI
import SubsModel
import TestSupport

final class CSVFormatTests: XCTestCase {
    /// Every record as a CSV reader sees it: Python's csv module, strict, reading `text` from a
    /// file opened with newline='' as the module asks; the values come back as JSON with every
    /// non-ASCII character escaped, so that no layer in between normalises them.
    func readWithPython(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [[[UInt8]]] {
        let python = try Prerequisite.tool("python3")
        let dir = TempDir()
        let path = dir.write("out.csv", text)
        let script = """
            import csv, json, sys
            with open(sys.argv[1], newline='', encoding='utf-8') as f:
                rows = list(csv.reader(f, strict=True))
            print(json.dumps(rows))
            """
        let run = try runProcess(python, ["-c", script, path])
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        let rows = try XCTUnwrap(try JSON.parse(run.stdout).arrayValue, file: file, line: line)
        return try rows.map { row in
            try XCTUnwrap(row.arrayValue, file: file, line: line).map { Array(($0.stringValue ?? "").utf8) }
        }
    }

    func bytes(_ rows: [[String]]) -> [[[UInt8]]] { rows.map { $0.map { Array($0.utf8) } } }

    static let piped = OutputStyle(color: false, terminal: false, columns: 80, now: Instant(seconds: 0))

    func csv(_ rows: Rows) -> String {
        var text = ""
        CSVFormat.write(rows, style: Self.piped) { text += $0 }
        return text
    }

    func testFieldsAreQuotedAsRFC4180Says() {
        XCTAssertEqual(CSVFormat.field("alice"), "alice")
        XCTAssertEqual(CSVFormat.field(""), "")
        XCTAssertEqual(CSVFormat.field("  spaced  "), "  spaced  ", "spaces are part of the field")
        XCTAssertEqual(CSVFormat.field("a,b"), "\"a,b\"")
        XCTAssertEqual(CSVFormat.field("say \"hi\""), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(CSVFormat.field("two\nlines"), "\"two\nlines\"")
        XCTAssertEqual(CSVFormat.field("cr\ronly"), "\"cr\ronly\"")
        XCTAssertEqual(CSVFormat.field("crlf\r\nhere"), "\"crlf\r\nhere\"", "CRLF is one Character in Swift")
        XCTAssertEqual(Array(CSVFormat.field("\"\u{301}").unicodeScalars), Array("\"\"\"\u{301}\"".unicodeScalars),
                       "a quote followed by a combining mark is one Character, and still a quote")
        let rows = Rows(headers: ["customerId", "note"], values: [["alice", "x"], ["bob", ""]])
        XCTAssertEqual(csv(rows), "customerId,note\r\nalice,x\r\nbob,\r\n",
                       "a header row, then one record a row, each ended by CRLF")
    }

    func testAReaderThatIsNotOursGetsEveryValueBackByteForByte() throws {
        let values = ["plain", "a,b", "say \"hi\"", "two\nlines", "cr\ronly", "crlf\r\nhere", "\"\u{301}quote and accent",
                      "", "  spaced  ", "caf\u{E9}", "cafe\u{301}", "esc\u{1B}[31m", "bell\u{7}", "csi\u{9B}", "back\\slash",
                      "tab\there", "\u{202E}rtl", "=1+1", "👩‍👩‍👧 family", ",", "\"", "\n", "ends with quote\""]
        let rows = Rows(headers: ["id", "value"], values: values.enumerated().map { [String($0.offset), $0.element] })
        let read = try readWithPython(csv(rows))
        XCTAssertEqual(read, bytes([rows.headers] + rows.values))
        // NFC and NFD stay two spellings: a reader sees the bytes written.
        XCTAssertNotEqual(read[10][1], read[11][1])
    }

    /// Every command's CSV has its TSV's header and rows (the demo's values hold no character
    /// either format writes differently), and ends as the same command does in TSV.
    func testEveryCommandWritesItsRowsAsCSV() throws {
        let dir = TempDir()
        let store = dir.path + "/store.json"
        XCTAssertEqual(runCLI(["--store", store, "store", "init", "--demo", "-q"]).status, .success)
        let at = ["--at", "2026-12-01T12:00:00Z"]
        // A manual grant for revoke to find.
        XCTAssertEqual(runCLI(["--store", store, "grant", "bob", "premium", "--duration", "P1Y", "-q"]).status, .success)
        let commands: [[String]] = [
            ["check", "alice"], ["check", "alice", "erin", "nobody"] + at, ["history", "erin"] + at,
            ["history", "alice", "erin"] + at, ["renew-count", "alice"] + at, ["renew-count", "alice", "premium"] + at,
            ["find", "alice@example.com", "nobody@example.com"] + at, ["grant", "alice", "premium", "--duration", "P1M", "--dry-run"],
            ["revoke", "bob", "premium", "--dry-run"], ["store", "validate"], ["commands"], ["audit"],
        ]
        var covered: Set<String> = []
        for command in commands {
            let csv = runCLI(["--store", store] + command + ["--format", "csv"])
            let tsv = runCLI(["--store", store] + command + ["--format", "tsv"])
            XCTAssertEqual(csv.status, tsv.status, "\(command): \(csv.stderr)")
            XCTAssertEqual(csv.stderr, tsv.stderr, "\(command)")
            XCTAssertTrue(csv.stdout.hasSuffix("\r\n"), "\(command): \(csv.stdout)")
            let tsvRows = tsv.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
            XCTAssertFalse(tsv.stdout.contains("\\"), "\(command): a value TSV escapes")
            XCTAssertEqual(try readWithPython(csv.stdout), bytes(tsvRows), "\(command)")
            // A valid store's findings are none: its header alone.
            XCTAssertGreaterThan(tsvRows.count, command == ["store", "validate"] ? 0 : 1, "\(command): rows under the header")
            covered.insert(command[0] == "store" ? "store " + command[1] : command[0])
        }
        // store init writes a new store: its one row.
        let created = runCLI(["--store", dir.path + "/new.json", "store", "init", "--format", "csv"])
        XCTAssertEqual(created.status, .success, created.stderr)
        XCTAssertEqual(try readWithPython(created.stdout), bytes([["store", "created", "demo"], [dir.path + "/new.json", "true", "false"]]))
        covered.insert("store init")
        // store compact folds the journal the grant above wrote: its one row.
        let folded = runCLI(["--store", store, "store", "compact", "--format", "csv"])
        XCTAssertEqual(folded.status, .success, folded.stderr)
        let foldedRows = try readWithPython(folded.stdout)
        XCTAssertEqual(foldedRows.first, bytes([["store", "changes", "customers", "journalBytes"]])[0])
        XCTAssertEqual(foldedRows.count, 2)
        XCTAssertEqual(foldedRows.last?.prefix(3).map { String(decoding: $0, as: UTF8.self) }, [store, "1", "1"])
        covered.insert("store compact")
        // Every command that prints a result (serve prints none, completion a script, help text).
        let printing = CommandLineSpec.subs.visibleCommands.map(\.name.rawValue).filter { !["serve", "completion", "help"].contains($0) }
        XCTAssertEqual(covered, Set(printing))
    }

    /// Ids a spreadsheet would split or merge: a comma and quotes, the same letters in NFD and NFC,
    /// a line break; each comes back as the store writes it, in its own record.
    func testIdsWithCommasQuotesAndOtherSpellingsComeBackWhole() throws {
        let ids = ["smith, \"jr\"", "cafe\u{301}", "caf\u{E9}", "two\nlines"]
        let customers = ids.map { id -> String in
            "\(JSONWriter.compact(.string(id))): {\"attributes\": {\"email\": \"x@example.com\"}}"
        }.joined(separator: ", ")
        let dir = TempDir()
        let store = dir.write("store.json", "{\"schemaVersion\": 1, \"products\": {}, \"customers\": {\(customers)}}")
        let result = runCLI(["--store", store, "check", "--format", "csv"] + ids)
        XCTAssertEqual(result.status, .success, result.stderr)
        let read = try readWithPython(result.stdout)
        XCTAssertEqual(read.count, 1 + ids.count)
        XCTAssertEqual(read.dropFirst().map { $0[0] }, ids.map { Array($0.utf8) }, "customerId, byte for byte")
        XCTAssertEqual(read.dropFirst().map { $0[1] }, ids.map { Array($0.utf8) }, "requestedId, byte for byte")
    }

    /// On a terminal a person reads the CSV: control characters are shown escaped, as in tsv;
    /// piped, the same id is written as the store holds it, ESC included.
    func testOnATerminalDataNeverDrivesIt() throws {
        let dir = TempDir()
        let store = dir.write("store.json", TestStore.json)
        let evil = "evil\u{1b}[31m"
        let shown = runCLI(["--store", store, "check", evil, "--format", "csv"], terminal: true)
        XCTAssertEqual(shown.status, .success, shown.stderr)
        XCTAssertFalse(shown.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\r" && $0 != "\n" }, shown.stdout)
        XCTAssertTrue(shown.stdout.contains("evil\\x1b[31m"), shown.stdout)
        let piped = runCLI(["--store", store, "check", evil, "--format", "csv"])
        XCTAssertEqual(try readWithPython(piped.stdout)[1][0], Array(evil.utf8))
    }
}
