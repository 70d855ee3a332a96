// What the support agent sees, pinned: `check` and `history` of every demo customer on a
// terminal 60, 80 and 160 columns wide, with and without colour, judged now and at --at, plus
// the piped form. One golden file per command and customer under Tests/Fixtures/golden/screen/
// (re-recorded on purpose with SUBS_RECORD=1; ESC is written ␛ so a diff is readable).

import Foundation
import SubsJSON
import XCTest

/// The demo store's customer ids, in store order.
func demoCustomerIds() throws -> [String] {
    let text = try String(contentsOfFile: Repo.exampleStore, encoding: .utf8)
    return try XCTUnwrap(JSON.parse(text)["customers"]?.objectValue?.keys)
}

/// Runs subs on the demo store as a terminal of `columns` (nil: piped).
func screen(_ args: [String], columns: Int?, color: Bool = false, at: String? = nil) -> CLIResult {
    var all = ["--store", Repo.exampleStore, "--color", color ? "always" : "never"] + args
    if let at { all += ["--at", at] }
    return runCLI(all, env: columns.map { ["COLUMNS": String($0)] } ?? [:], terminal: columns != nil)
}

/// The instant the --at variants judge at: before several demo customers' current state.
let screenAt = "2026-11-05 09:30Z"

final class ScreenGoldenTests: XCTestCase {
    func render(_ command: String, _ id: String) -> String {
        var out = ""
        for at in [nil, screenAt] {
            let atText = at.map { " --at '\($0)'" } ?? ""
            let piped = screen([command, id], columns: nil, at: at)
            out += "=== subs \(command) \(id)\(atText) | cat\n" + piped.stdout
            for columns in [60, 80, 160] {
                for color in [false, true] {
                    let result = screen([command, id], columns: columns, color: color, at: at)
                    XCTAssertEqual(result.status, .success, "\(command) \(id): \(result.stderr)")
                    out += "=== COLUMNS=\(columns) subs \(command) \(id)\(atText) --color \(color ? "always" : "never")\n"
                    out += result.stdout.replacingOccurrences(of: "\u{1B}", with: "␛")
                }
            }
        }
        return out
    }

    func testCheckOfEveryDemoCustomer() throws {
        for id in try demoCustomerIds() {
            assertMatchesRecorded(render("check", id), "Tests/Fixtures/golden/screen/check-\(id).txt")
        }
    }

    func testHistoryOfEveryDemoCustomer() throws {
        for id in try demoCustomerIds() {
            assertMatchesRecorded(render("history", id), "Tests/Fixtures/golden/screen/history-\(id).txt")
        }
    }
}
