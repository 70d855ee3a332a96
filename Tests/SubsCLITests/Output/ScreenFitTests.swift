// Tables that tell the truth at any width: on a terminal no line is wider than COLUMNS, no date
// cell is cut and nothing ends in "…"; piped output is never cut or wrapped; every cell agrees
// with the sentence under it; relative hints count from the instant judged.

import Foundation
import SubsJSON
import XCTest

/// The text without colour sequences.
func withoutColour(_ text: String) -> String {
    text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
}

/// Columns a line takes (CJK and emoji two, combining marks none), as the tables measure.
func displayWidth(_ line: Substring) -> Int {
    line.unicodeScalars.reduce(0) { total, scalar in
        let v = scalar.value
        if scalar.properties.generalCategory == .nonspacingMark { return total }
        let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x3FFFD).contains(v)
        return total + (wide ? 2 : 1)
    }
}

func tableDates(_ text: String) -> [String] {
    let regex = try! NSRegularExpression(pattern: "[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}Z")
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) }
}

final class ScreenFitTests: XCTestCase {
    static let widths = [10, 13, 17, 19, 20, 24, 33, 40, 52, 59, 60, 61, 66, 72, 79, 80, 81, 100, 120, 160, 220]

    func assertFits(_ args: [String], at: String?, file: StaticString = #filePath, line: UInt = #line) {
        let piped = screen(args, columns: nil, at: at)
        XCTAssertFalse(piped.stdout.contains("…"), "piped: \(args)", file: file, line: line)
        let datesPiped = tableDates(piped.stdout)
        for columns in Self.widths {
            let result = screen(args, columns: columns, color: columns % 2 == 0, at: at)
            let text = withoutColour(result.stdout)
            let label = "COLUMNS=\(columns) \(args) \(at ?? "")"
            for row in text.split(separator: "\n") where displayWidth(row) > columns {
                XCTFail("\(label): line wider than COLUMNS: '\(row)'", file: file, line: line)
            }
            XCTAssertFalse(text.contains("…"), "\(label): nothing is cut", file: file, line: line)
            // Every date of the piped table is whole on one line of the terminal's (from 19
            // columns on: a date and its indent need them).
            let datesShown = tableDates(text)
            guard columns >= 19 else { continue }
            for date in Set(datesPiped) where !datesShown.contains(date) {
                XCTFail("\(label): date cell \(date) cut or missing:\n\(text)", file: file, line: line)
            }
        }
    }

    func testNoLineIsWiderThanTheTerminalAndNoDateIsCut() throws {
        for id in try demoCustomerIds() {
            for at in [nil, screenAt] {
                assertFits(["check", id], at: at)
                assertFits(["check", id, "--wide"], at: at)
                assertFits(["history", id], at: at)
                assertFits(["history", id, "--wide"], at: at)
            }
        }
        assertFits(["check", "alice", "dave", "yara", "quentin"], at: nil)
        assertFits(["renew-count", "nina"], at: nil)
        assertFits(["check", "trent", "--active"], at: nil)
        assertFits(["history", "-"], at: nil)
    }

    func testDataThatCannotBeWrappedStillFitsAndIsNeverLost() throws {
        let dir = TempDir()
        let long = String(repeating: "x", count: 150)
        let wide = "会員プレミアム会員プレミアム会員プレミアム"
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"\(long)": {"type": "subscription", "entitlements": ["\(wide)"]}},
             "customers": {"\(long)": {"aliases": ["\(wide)", "a b c d e f g h i j k l m n o p q r s t u v w x y z"],
               "transactions": [{"transactionId": "\(long)", "originalTransactionId": "\(long)", "productId": "\(long)",
               "type": "subscriptionStarted", "transactionDate": "2026-11-01T00:00:00Z",
               "expirationDate": "2026-12-01T00:00:00Z", "offerCode": "\(wide)"}],
               "events": [{"type": "autoRenewDisabled", "date": "2026-11-02T00:00:00Z", "originalTransactionId": "\(long)"}]}}}
            """)
        for columns in Self.widths {
            for args in [["check", long], ["check", long, "--wide"], ["history", long, "--wide"]] {
                let result = runCLI(["--store", store, "--no-color"] + args, env: ["COLUMNS": String(columns)], terminal: true)
                XCTAssertEqual(result.status, .success, result.stderr)
                for row in result.stdout.split(separator: "\n") where displayWidth(row) > columns {
                    XCTFail("COLUMNS=\(columns) \(args): '\(row)'")
                }
                // Split across lines, never cut: with the line breaks and indents taken out, the
                // whole id is there in one piece.
                let joined = result.stdout.filter { !$0.isWhitespace }
                let longestRun = joined.split { $0 != "x" }.map(\.count).max() ?? 0
                XCTAssertGreaterThanOrEqual(longestRun, 150, "\(columns) \(args): \(result.stdout)")
            }
        }
    }

    func testPipedTablesAreNeverCutNorWrapped() {
        let piped = screen(["history", "sybil"], columns: nil)
        for line in piped.stdout.split(separator: "\n") {
            XCTAssertTrue(line.first.map { $0.isNumber || $0 == "D" } ?? false, "one line per entry: '\(line)'")
        }
        XCTAssertTrue(piped.stdout.contains(
            "Renewed as pro_plus_monthly (App Store), changed from pro_monthly, paid through 2026-11-18\n"))
        XCTAssertFalse(piped.stdout.contains("ago)"), "no relative hints when piped")
    }

    func testBelowSixtyColumnsEachEntitlementIsABlock() {
        let narrow = screen(["check", "yara"], columns: 59).stdout
        XCTAssertTrue(narrow.contains("""
            pro_plus
              status:  active, won't renew
              until:   2026-12-10 11:15Z (in 8d)
              product: pro_plus_monthly (App Store)
            """), narrow)
        XCTAssertFalse(narrow.contains("ENTITLEMENT"))
        let history = screen(["history", "ivan"], columns: 50).stdout
        XCTAssertTrue(history.contains("""
            2026-10-06 09:00Z (56d ago)
              entitlement:   premium
              what happened: Access ended: pro_yearly refunded
            """), history)
        XCTAssertTrue(screen(["check", "yara"], columns: 60).stdout.contains("ENTITLEMENT"), "60 columns: still a table")
    }

    func testColumnsGiveWayInTheDocumentedOrder() {
        // 80 columns: yara's PRODUCT wraps rather than go; nothing dropped.
        let eighty = screen(["check", "yara"], columns: 80).stdout
        XCTAssertTrue(eighty.contains("ENTITLEMENT  STATUS               UNTIL                      PRODUCT\n"), eighty)
        XCTAssertTrue(eighty.contains("  pro_plus_monthly\n"), eighty)
        // --wide at 80: the id columns go before anything else is squeezed out.
        let wide = screen(["check", "dave", "--wide"], columns: 160).stdout
        XCTAssertTrue(wide.contains("TRANSACTION                  ORIGINAL"), wide)
        XCTAssertFalse(screen(["check", "dave", "--wide"], columns: 80).stdout.contains("TRANSACTION"))
        // 60 columns: the relative hints go under the dates before PRODUCT is left out.
        let sixty = screen(["check", "olivia"], columns: 60).stdout
        XCTAssertTrue(sixty.contains("premium      active, renews  2026-12-08 12:30Z  pro_monthly\n"), sixty)
        XCTAssertTrue(sixty.contains("(in 7d)"), sixty)
        // The timeline's sentence wraps at word boundaries inside its column.
        let timeline = screen(["history", "erin"], columns: 80).stdout
        XCTAssertTrue(timeline.contains("""
            2026-10-21 08:16Z (41d ago)   premium      Billing issue: payment for
                                                       pro_monthly failed; grace period
                                                       until 2026-11-06
            """), timeline)
    }

    func testSentencesWrapAtWordsToTheTerminal() {
        let result = screen(["check", "quentin"], columns: 60).stdout
        XCTAssertTrue(result.contains("""
            premium: one-time purchase of lifetime on 2026-02-14, no
              expiration; also billed by pro_yearly (App Store), renews
              2027-01-10
            """), result)
        let piped = screen(["check", "quentin"], columns: nil).stdout
        XCTAssertTrue(piped.contains(
            "premium: one-time purchase of lifetime on 2026-02-14, no expiration; also billed by pro_yearly (App Store), renews 2027-01-10\n"))
    }

    func testRelativeHintsCountFromTheInstantJudgedAndTheTableNamesIt() {
        let now = screen(["check", "dave"], columns: 100).stdout
        XCTAssertTrue(now.contains("2026-12-12 14:30Z (in 11d)"), now)
        XCTAssertFalse(now.contains("as of"), "judged now: nothing to name")
        let at = screen(["check", "dave"], columns: 100, at: "2026-11-20 14:30Z").stdout
        XCTAssertTrue(at.hasPrefix("as of 2026-11-20 14:30Z (--at)\n"), at)
        XCTAssertTrue(at.contains("2026-12-12 14:30Z (in 22d)"), "counted from --at, not the clock: \(at)")
        let history = screen(["history", "dave"], columns: 100, at: "2026-11-20T14:30Z").stdout
        XCTAssertTrue(history.hasPrefix("as of 2026-11-20 14:30Z (--at)\n"), history)
        XCTAssertTrue(history.contains("2026-11-12 14:31Z (7d ago)"), history)
        let piped = screen(["check", "dave"], columns: nil, at: "2026-11-20").stdout
        XCTAssertTrue(piped.hasPrefix("as of 2026-11-20 00:00Z (--at)\n"), "piped too: \(piped)")
        // Any --at is named, the clock's instant included, so that a command pinned to an instant
        // prints the same whatever the date (issue 30: the README's examples).
        XCTAssertTrue(screen(["check", "dave"], columns: nil, at: "now").stdout.hasPrefix("as of 2026-12-01 12:00Z (--at)\n"))
        XCTAssertTrue(screen(["check", "dave"], columns: nil, at: "2026-12-01T12:00:00Z").stdout.hasPrefix("as of 2026-12-01 12:00Z (--at)\n"))
    }
}
