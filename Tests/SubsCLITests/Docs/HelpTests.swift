// Help text: golden files for every command (re-recorded only with SUBS_RECORD=1), the shape
// of swift-argument-parser's help, wrapping to the terminal width, usage lines.

import XCTest
@testable import SubsCLI

/// The repository root (TestSupport's Repo).
let repositoryRoot = Repo.root.path

/// Compares `text` with the file at `path` (relative to the repository root). With SUBS_RECORD=1
/// the file is rewritten instead, and the test fails so that a recording never passes silently.
func assertMatchesRecorded(_ text: String, _ path: String, file: StaticString = #filePath, line: UInt = #line) {
    let full = repositoryRoot + "/" + path
    if ProcessInfo.processInfo.environment["SUBS_RECORD"] == "1" {
        try? FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        XCTAssertNoThrow(try text.write(toFile: full, atomically: true, encoding: .utf8))
        XCTFail("recorded \(path); run again without SUBS_RECORD to check it", file: file, line: line)
        return
    }
    guard let recorded = try? String(contentsOfFile: full, encoding: .utf8) else {
        XCTFail("\(path) is missing; record it with SUBS_RECORD=1", file: file, line: line)
        return
    }
    if recorded != text {
        let a = recorded.split(separator: "\n", omittingEmptySubsequences: false)
        let b = text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        let was = first < a.count ? String(a[first]) : "<end>"
        let now = first < b.count ? String(b[first]) : "<end>"
        XCTFail("\(path) differs at line \(first + 1):\n  recorded: \(was)\n  now:      \(now)\n"
                + "re-record with SUBS_RECORD=1 if the change is intended", file: file, line: line)
    }
}

func goldenName(_ command: CommandName?) -> String {
    "help-" + (command?.rawValue.replacingOccurrences(of: " ", with: "-") ?? "overview") + ".txt"
}

final class HelpTests: XCTestCase {
    func testGoldenHelpForEveryVisibleCommandAndTheOverview() {
        assertMatchesRecorded(HelpRenderer(.subs).help(for: nil, columns: 80), "Tests/Fixtures/golden/" + goldenName(nil))
        for spec in CommandLineSpec.subs.visibleCommands {
            assertMatchesRecorded(HelpRenderer(.subs).help(for: spec.name, columns: 80),
                                  "Tests/Fixtures/golden/" + goldenName(spec.name))
        }
        assertMatchesRecorded(HelpRenderer(.subs).help(forGroup: "store", columns: 80), "Tests/Fixtures/golden/help-store.txt")
    }

    func testGoldenNarrowHelp() {
        assertMatchesRecorded(HelpRenderer(.subs).help(for: .grant, columns: 50), "Tests/Fixtures/golden/help-grant-50-columns.txt")
    }

    func testSectionsComeInSwiftArgumentParserOrder() {
        let text = HelpRenderer(.subs).help(for: .check, columns: 80)
        let order = ["OVERVIEW: ", "\nUSAGE: subs check [options] USER...\n", "\nARGUMENTS:\n", "\nOPTIONS:\n",
                     "\nEXIT STATUS:\n", "\nEXAMPLES:\n", "\nSee 'subs help <command>' for more.\n"]
        var last = text.startIndex
        for heading in order {
            guard let range = text.range(of: heading, range: last..<text.endIndex) else {
                return XCTFail("'\(heading)' missing or out of order in:\n\(text)")
            }
            last = range.upperBound
        }
        XCTAssertTrue(text.hasSuffix("See 'subs help <command>' for more.\n"))
        let overview = HelpRenderer(.subs).help(for: nil, columns: 80)
        XCTAssertTrue(overview.contains("\nCOMMANDS:\n  check "), overview)
        XCTAssertTrue(overview.contains("\n  store init "), overview)
        XCTAssertTrue(overview.hasSuffix("\nSee 'subs help <command>' for more.\n"))
    }

    func testCommandHelpListsItsOptionsExitStatusesAndExamplesAndTheGlobalOptionsOnlyOnce() {
        for spec in CommandLineSpec.subs.visibleCommands {
            let text = HelpRenderer(.subs).help(for: spec.name, columns: 100)
            let name = spec.name.rawValue
            XCTAssertTrue(text.contains("\nEXIT STATUS:\n  0 "), "\(name): \(text)")
            XCTAssertTrue(text.contains("\nEXAMPLES:\n  ") && text.contains("subs \(name)"), "\(name) has an example")
            XCTAssertFalse(text.contains("GLOBAL OPTIONS"), name)
            for option in CommandLineSpec.subs.globalOptions where option.long != "help" {
                XCTAssertFalse(text.contains("\n  " + option.label + " "), "\(name) repeats the global --\(option.long)")
            }
            XCTAssertTrue(text.contains("'subs help' lists them"), name)
        }
        let check = HelpRenderer(.subs).help(for: .check, columns: 100)
        for status in ["\n  1       --require: a customer lacks an active ENTITLEMENT", "\n  3       A customer not found",
                       "\n  64      Usage error; or something this provider or API version does not offer"] {
            XCTAssertTrue(check.contains(status), status)
        }
        let overview = HelpRenderer(.subs).help(for: nil, columns: 100)
        XCTAssertTrue(overview.contains("\n  69      Remote unreachable: worth retrying later.\n"), overview)
        XCTAssertTrue(overview.contains("\n  --store PATH "), overview)
    }

    func testLinesFitTheTerminalWidth() {
        for columns in [40, 60, 80, 120] {
            for command in [nil] + CommandLineSpec.subs.visibleCommands.map(\.name) {
                let text = HelpRenderer(.subs).help(for: command, columns: columns)
                for line in text.split(separator: "\n") {
                    // An example command line or a single long word may not fit; nothing else may overflow.
                    let words = line.split(separator: " ")
                    if line.hasPrefix("  subs ") || words.count == 1 { continue }
                    XCTAssertLessThanOrEqual(line.count, max(columns, 46),
                                             "\(command?.rawValue ?? "overview") at \(columns): \(line)")
                }
            }
        }
        // Wider terminals use the room.
        XCTAssertLessThan(HelpRenderer(.subs).help(for: .grant, columns: 120).split(separator: "\n").count,
                          HelpRenderer(.subs).help(for: .grant, columns: 60).split(separator: "\n").count)
    }

    func testWrapKeepsIndentAndLongWords() {
        XCTAssertEqual(HelpLayout.wrap("aaa bbb ccc", indent: 2, columns: 29), "  aaa bbb ccc\n")
        XCTAssertEqual(HelpLayout.wrap("aaaa bbbb cccc dddd eeee", indent: 4, columns: 24),
                       "    aaaa bbbb cccc dddd\n    eeee\n")
        XCTAssertEqual(HelpLayout.row("--x", "Short.", columns: 80), "  --x" + String(repeating: " ", count: 21) + "Short.\n")
        let long = HelpLayout.row("--a-very-long-option-name VALUE", "Text.", columns: 80)
        XCTAssertEqual(long, "  --a-very-long-option-name VALUE\n" + String(repeating: " ", count: 26) + "Text.\n")
    }

    func testUsageLines() {
        let expected: [CommandName: String] = [
            .check: "subs check [options] USER...",
            .grant: "subs grant [options] USER... ENTITLEMENT",
            .revoke: "subs revoke [options] USER... ENTITLEMENT",
            .history: "subs history [options] USER...",
            .renewCount: "subs renew-count [options] USER [ENTITLEMENT]",
            .storeInit: "subs store init [options]",
            .storeValidate: "subs store validate [options]",
            .serve: "subs serve [options]",
            .completion: "subs completion [options] SHELL",
            .help: "subs help [options] [COMMAND]",
        ]
        for (command, line) in expected { XCTAssertEqual(HelpRenderer(.subs).usageLine(for: command), line) }
        XCTAssertEqual(HelpRenderer(.subs).usageLine(for: nil), "subs [options] COMMAND [ARGS]")
    }

    func testEveryOptionAndCommandIsInHelpAndHiddenOnesAreNot() {
        let overview = HelpRenderer(.subs).help(for: nil, columns: 80)
        for option in CommandLineSpec.subs.globalOptions where !option.hidden {
            XCTAssertTrue(overview.contains("  " + option.label), "--\(option.long) missing from the overview")
        }
        for spec in CommandLineSpec.subs.visibleCommands {
            XCTAssertTrue(overview.contains("\n  \(spec.name.rawValue) "), "\(spec.name.rawValue) missing from the overview")
            let text = HelpRenderer(.subs).help(for: spec.name, columns: 80)
            for option in spec.options where !option.hidden {
                XCTAssertTrue(text.contains("  " + option.label), "\(option.label) missing from \(spec.name.rawValue) help")
            }
            for argument in spec.arguments {
                XCTAssertTrue(text.contains("\n  \(argument.name) "), "\(argument.name) missing from \(spec.name.rawValue) help")
            }
        }
        XCTAssertFalse(overview.contains("__complete"))
        XCTAssertTrue(CommandLineSpec.subs.command(.complete).hidden)
    }

    func testHelpDocumentsDefaultsChoicesAndEnvironment() {
        let overview = HelpRenderer(.subs).help(for: nil, columns: 200)
        XCTAssertTrue(overview.contains("Output format (one of table, json, jsonl, tsv, csv; default table; env SUBS_FORMAT)."))
        XCTAssertTrue(overview.contains("(default $XDG_DATA_HOME/subs/store.json; env SUBS_STORE)"))
        let serve = HelpRenderer(.subs).help(for: .serve, columns: 200)
        XCTAssertTrue(serve.contains("--listen HOST:PORT      Address to listen on (default 127.0.0.1:8787)."))
        XCTAssertTrue(HelpRenderer(.subs).help(for: .check, columns: 200).contains("(repeatable)"))
    }

    func testCLIPrintsHelpForTheCommandAtTheTerminalWidth() {
        let run = runCLI(["help", "grant"], env: ["COLUMNS": "50"])
        XCTAssertEqual(run.status, .success)
        XCTAssertEqual(run.stdout, HelpRenderer(.subs).help(for: .grant, columns: 50))
        XCTAssertEqual(runCLI(["store", "--help"]).stdout, HelpRenderer(.subs).help(forGroup: "store", columns: 80))
        XCTAssertEqual(runCLI(["-h"]).stdout, HelpRenderer(.subs).help(for: nil, columns: 80))
    }
}
