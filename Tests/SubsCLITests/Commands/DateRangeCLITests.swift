// SPEC section 7 through the command line: an input or computed instant outside years 0001–9999
// is refused with the documented status (64 for options, 78 for SUBS_NOW, 65 for the store),
// one line on stderr naming the option or the JSON path, and nothing is written.

import Foundation
import SubsCLI
import XCTest

final class DateRangeCLITests: XCTestCase {
    var dir: TempDir!
    var store: String!

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    private func run(_ args: [String], now: String = testNow, terminal: Bool = false) -> CLIResult {
        runCLI(["--store", store] + args, env: ["USER": "tester"], terminal: terminal, now: now)
    }

    /// The store as readers see it (its journal folded in).
    private func storeText() -> String { StoreView.foldedText(store) }

    /// The refusal: status, one `subs: error:` line naming `mention`, no year-10000 date anywhere,
    /// and the store as it was.
    private func assertRefused(_ result: CLIResult, _ status: ExitCode, mentioning mention: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertTrue(first.hasPrefix("subs: error: "), result.stderr, file: file, line: line)
        XCTAssertTrue(first.contains(mention), "'\(mention)' not in: \(result.stderr)", file: file, line: line)
        XCTAssertFalse(result.stdout.contains("10000-"), result.stdout, file: file, line: line)
        XCTAssertEqual(storeText(), TestStore.json, "store changed", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["store.json"],
                       file: file, line: line)
    }

    // MARK: - grant

    func testGrantDurationPastYear9999IsAUsageError() {
        for duration in ["P7974Y", "P95677M", "P2913000D", "P416200W", "PT69912000H", "P999999999Y",
                         "P7973Y1M", "P7973YT999999999S"] {
            for mode in [[], ["--dry-run"]] {
                let result = run(["grant", "alice", "premium", "--duration", duration] + mode)
                assertRefused(result, .usage, mentioning: "'--duration'")
                XCTAssertTrue(result.stderr.contains("past year 9999"), result.stderr)
            }
        }
    }

    func testGrantDurationReachingTheLastYearIsWritten() {
        let result = run(["grant", "alice", "premium", "--duration", "P7973Y", "--format", "json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(storeText().contains(#""expirationDate": "9999-12-01T12:00:00Z""#))
        // The store stays usable by every command afterwards.
        XCTAssertEqual(run(["check", "alice"]).status, .success)
        XCTAssertEqual(run(["history", "alice"]).status, .success)
        XCTAssertEqual(run(["store", "validate"]).status, .success)
        XCTAssertEqual(run(["check", "alice"], terminal: true).status, .success)
    }

    func testGrantUntilOutsideTheRangeIsAUsageError() {
        for until in ["10000-01-01", "10000-01-01T00:00:00Z", "9999-12-31T23:30:00-01:00", "0000-12-31",
                      "0000-06-01T00:00:00Z", "0001-01-01T00:30:00+01:00", "-0001-01-01"] {
            let result = run(["grant", "alice", "premium", "--until=\(until)"])
            assertRefused(result, .usage, mentioning: "'--until'")
            XCTAssertTrue(result.stderr.contains("outside years 0001-9999"), result.stderr)
        }
    }

    func testSubsNowOutsideTheRangeIsAConfigurationError() {
        for now in ["9999-12-31T23:30:00-01:00", "0001-01-01T00:30:00+01:00", "0000-12-31T12:00:00Z",
                    "10000-01-01T00:00:00Z"] {
            for args in [["grant", "alice", "premium", "--lifetime"], ["grant", "zed", "premium", "--lifetime", "--create"],
                         ["check", "alice"], ["revoke", "dave", "premium"]] {
                let result = run(args, now: now)
                assertRefused(result, .configError, mentioning: "SUBS_NOW")
                XCTAssertTrue(result.stderr.contains("outside years 0001-9999"), result.stderr)
            }
        }
    }

    func testSubsNowAtTheVeryEndStillWorks() {
        let result = run(["grant", "alice", "premium", "--lifetime", "--format", "json"], now: "9999-12-31T23:59:59Z")
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stdout.contains(#""requestDate": "9999-12-31T23:59:59Z""#), result.stdout)
        XCTAssertEqual(run(["store", "validate"]).status, .success)
        // One second later nothing fits: the duration is refused.
        assertRefusedAfterReset(run(["grant", "bob", "premium", "--duration", "PT1S"], now: "9999-12-31T23:59:59Z"))
    }

    private func assertRefusedAfterReset(_ result: CLIResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, .usage, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains("'--duration'"), result.stderr, file: file, line: line)
        XCTAssertFalse(storeText().contains("10000-"), file: file, line: line)
    }

    // MARK: - --at, --since, --until

    func testAtOutsideTheRangeIsAUsageError() {
        for at in ["10000-01-01T00:00:00Z", "9999-12-31T23:30:00-01:00", "0000-12-31", "0001-01-01T00:30:00+01:00"] {
            for args in [["check", "alice"], ["history", "alice"], ["renew-count", "alice"],
                         ["grant", "alice", "premium", "--lifetime"]] {
                assertRefused(run(args + ["--at", at]), .usage, mentioning: "'--at'")
            }
        }
    }

    func testAtTheEdgesIsAccepted() {
        let end = run(["check", "alice", "--at", "9999-12-31T23:59:59Z", "--format", "json"])
        XCTAssertEqual(end.status, .success, end.stderr)
        XCTAssertTrue(end.stdout.contains(#""requestDate": "9999-12-31T23:59:59Z""#), end.stdout)
        let start = run(["check", "alice", "--at", "0001-01-01", "--format", "json"], terminal: true)
        XCTAssertEqual(start.status, .success, start.stderr)
        XCTAssertEqual(run(["check", "bob", "--at", "9999-12-31T23:59:59Z"], terminal: true).status, .success)
    }

    func testHistoryBoundsOutsideTheRangeAreUsageErrors() {
        for option in ["--since", "--until"] {
            for value in ["10000-01-01", "0000-01-01", "9999-12-31T23:30:00-01:00"] {
                assertRefused(run(["history", "alice", option, value]), .usage, mentioning: "'\(option)'")
            }
        }
    }

    // MARK: - The store

    @discardableResult
    private func storeWith(products: String, customer: String) -> String {
        dir.write("store.json", """
        {"schemaVersion": 1, "products": \(products), "customers": {"u": \(customer)}}
        """)
    }

    private let billingIssueCustomer = """
        {"transactions": [{"transactionId": "t1", "originalTransactionId": "t1", "productId": "m",
          "type": "subscriptionStarted", "transactionDate": "2026-01-01T00:00:00Z", "expirationDate": "2026-02-01T00:00:00Z"}],
         "events": [{"type": "billingIssue", "date": "2026-02-01T00:00:00Z", "originalTransactionId": "t1"}]}
        """

    func testStoredPeriodsPastYear9999AreDataErrors() {
        let cases: [(String, String)] = [
            (#""gracePeriod": "P999999999Y""#, "products.m.gracePeriod"),
            (#""billingRetryPeriod": "P999999999D""#, "products.m.billingRetryPeriod"),
            (#""gracePeriod": "P8000Y""#, "customers.u.transactions[0].expirationDate"),
            (#""billingRetryPeriod": "P96000M""#, "customers.u.transactions[0].expirationDate"),
        ]
        for (period, path) in cases {
            let text = storeWith(products: #"{"m": {"type": "subscription", "entitlements": ["premium"], \#(period)}}"#,
                                 customer: billingIssueCustomer)
            let before = try! String(contentsOfFile: text, encoding: .utf8)
            for args in [["check", "u"], ["history", "u"], ["renew-count", "u"], ["grant", "u", "premium", "--lifetime"],
                         ["store", "validate"]] {
                let result = run(args)
                XCTAssertEqual(result.status, .dataError, "\(period) \(args): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), result.stderr)
                // `store validate` lists the problems on stdout; the other commands name the first.
                XCTAssertTrue((result.stdout + result.stderr).contains(path), "\(path) not in \(result.stdout)\(result.stderr)")
                XCTAssertFalse(result.stdout.contains("10000-"))
            }
            XCTAssertEqual(try! String(contentsOfFile: text, encoding: .utf8), before)
        }
    }

    func testStoredDatesOutsideTheRangeAreDataErrors() {
        for (field, date) in [("transactionDate", "0000-12-31T00:00:00Z"), ("expirationDate", "9999-12-31T23:30:00-01:00"),
                              ("expirationDate", "10000-01-01T00:00:00Z"), ("transactionDate", "0001-01-01T00:30:00+01:00")] {
            var dates = ["transactionDate": "2026-01-01T00:00:00Z", "expirationDate": "2026-02-01T00:00:00Z"]
            dates[field] = date
            storeWith(products: #"{"m": {"type": "subscription", "entitlements": ["premium"]}}"#, customer: """
                {"transactions": [{"transactionId": "t1", "originalTransactionId": "t1", "productId": "m",
                  "type": "subscriptionStarted", "transactionDate": "\(dates["transactionDate"]!)",
                  "expirationDate": "\(dates["expirationDate"]!)"}]}
                """)
            for args in [["check", "u"], ["store", "validate"]] {
                let result = run(args)
                XCTAssertEqual(result.status, .dataError, result.stderr)
                let said = result.stdout + result.stderr
                XCTAssertTrue(said.contains("customers.u.transactions[0].\(field)"), said)
                XCTAssertTrue(said.contains("outside years 0001-9999"), said)
            }
        }
    }

    // MARK: - Duration wording

    func testDurationNearMissesSayWhatIsWrong() {
        let cases = [("P1Y2M3DT4H5M6.5S", "fractional seconds are not supported"),
                     ("PT0.5S", "fractional seconds are not supported"),
                     ("P1.5D", "fractional values are not supported"),
                     ("p1d", "uppercase"), ("P1d", "uppercase"),
                     ("-P1D", "negative durations are not supported"), ("P-1D", "negative durations are not supported"),
                     ("P", "'P' alone"), ("PT", "'T' must be followed"),
                     ("P9999999999Y", "too large"), ("P1H", "after a 'T'")]
        for (text, reason) in cases {
            for args in [["grant", "alice", "premium", "--duration=\(text)"], ["check", "alice", "--max-age=\(text)"]] {
                let result = run(args)
                XCTAssertEqual(result.status, .usage, result.stderr)
                let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
                XCTAssertTrue(first.contains(reason), "'\(reason)' not in: \(first)")
                XCTAssertFalse(first.contains("is not a duration"), first)
            }
        }
        XCTAssertEqual(storeText(), TestStore.json)
    }

    func testStoredDurationNearMissesSayWhatIsWrong() {
        storeWith(products: #"{"m": {"type": "subscription", "entitlements": ["premium"], "gracePeriod": "PT0.5S"}}"#,
                  customer: "{}")
        let result = run(["store", "validate"])
        XCTAssertEqual(result.status, .dataError)
        XCTAssertTrue(result.stdout.contains("products.m.gracePeriod: 'PT0.5S': fractional seconds are not supported"),
                      result.stdout)
    }
}
