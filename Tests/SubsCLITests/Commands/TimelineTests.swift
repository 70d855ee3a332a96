// The history table as a timeline (SPEC section 4, "history table"): one plain sentence per entry
// in `check`'s vocabulary, the derived "Access ended" milestones in place, ids only with --wide,
// and the documents for programs left exactly as recorded.

import Foundation
import SubsJSON
import SubsModel
import XCTest

final class TimelineTests: XCTestCase {
    let store = Repo.path("Tests/Fixtures/stores/timeline.json")

    func run(_ args: [String], stdin: String? = nil, terminal: Bool = false, env: [String: String] = [:]) -> CLIResult {
        runCLI(["--store", store, "--no-color"] + args, env: env, stdin: stdin, terminal: terminal)
    }

    func testEveryKindOfEntryIsOnePlainSentence() {
        let result = run(["history", "-"], stdin: "t\nu\n")
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stdout, """
            t
            DATE               ENTITLEMENT      WHAT HAPPENED
            2026-01-01 00:00Z  premium          Started a 7-day free trial of monthly (App Store)
            2026-01-08 00:00Z  premium          Subscribed to monthly (App Store, offer code SAVE), paid through 2026-02-08
            2026-02-01 00:00Z  premium, pro     Scheduled a pause of monthly from 2026-02-08 until 2026-03-08
            2026-02-02 00:00Z  premium, pro     Cancelled the scheduled pause of monthly
            2026-02-08 00:00Z  premium          Renewed monthly (App Store), paid through 2026-03-08
            2026-02-20 00:00Z  premium, pro     Turned off auto-renew of monthly; active until 2026-03-08
            2026-02-25 00:00Z  premium, pro     Turned auto-renew of monthly back on
            2026-03-08 00:01Z  premium, pro     Billing issue: payment for monthly failed; grace period until 2026-03-15
            2026-03-10 00:00Z  premium          Renewed monthly (App Store), paid through 2026-04-10
            2026-03-10 00:00Z  premium, pro     Billing issue resolved: payment for monthly recovered
            2026-03-20 00:00Z  premium, pro     Scheduled a pause of monthly from 2026-04-10 until 2026-05-10
            2026-04-10 00:00Z  premium          Access ended: monthly paused until 2026-05-10
            2026-05-10 00:00Z  premium          Resumed monthly (App Store) after the pause, paid through 2026-06-10
            2026-05-15 00:00Z  premium, pro     Plan change: renews as plus from 2026-06-10
            2026-06-10 00:00Z  premium, pro     Renewed as plus (App Store), changed from monthly, paid through 2026-07-10
            2026-06-12 00:00Z  premium, pro     Refunded plus (period 2026-06-10 → 2026-07-10)
            2026-06-12 00:00Z  premium          Access ended: plus refunded
            2026-06-12 00:00Z  pro              Access ended: plus refunded
            2026-08-01 00:00Z  premium          Started an intro offer of basic (Google Play), paid through 2026-09-01
            2026-09-01 00:00Z  premium          Renewed the intro offer of basic (Google Play), paid through 2026-10-01
            2026-09-15 00:00Z  premium          Turned off auto-renew of basic; active until 2026-10-01
            2026-10-01 00:00Z  premium          Access ended: basic expired (auto-renew was off)
            2026-10-05 00:00Z  premium          Bought life (Amazon, sandbox), no expiration
            2026-10-06 00:00Z  -                Bought coins (Stripe), a consumable (unlocks nothing)
            2026-10-07 00:00Z  premium          Refunded life (bought 2026-10-05)
            2026-10-07 00:00Z  premium          Access ended: life refunded
            2026-10-10 00:00Z  family, premium  Subscribed to fam (App Store, family sharing), paid through 2026-11-10
            2026-10-20 00:00Z  family, premium  Family-sharing access to fam withdrawn (period 2026-10-10 → 2026-11-10)
            2026-10-20 00:00Z  family           Access ended: family-sharing access to fam withdrawn
            2026-10-20 00:00Z  premium          Access ended: family-sharing access to fam withdrawn
            2026-11-01 00:00Z  premium          Granted premium until 2026-11-15 by dana: goodwill
            2026-11-15 00:00Z  premium          Access ended: the manual grant expired
            2026-11-20 00:00Z  premium          Granted premium for life by sam
            2026-11-25 00:00Z  premium          Revoked the manual grant of premium by dana: mistake
            2026-11-25 00:00Z  premium          Access ended: the manual grant was revoked by dana

            u
            DATE               ENTITLEMENT  WHAT HAPPENED
            2026-01-01 00:00Z  premium      Subscribed to basic (Stripe), paid through 2026-02-01
            2026-01-10 00:00Z  premium      Plan change: renews as monthly from 2026-02-01
            2026-02-01 00:00Z  premium      Access ended: the payment for basic was not recovered
            2026-02-01 00:05Z  premium      Billing issue: payment for basic failed; no grace period, the store retries until 2026-04-02

            """)
    }

    func testAccessEndedIsOnlyOnTheScreen() throws {
        let doc = try JSON.parse(run(["history", "t", "--json"]).stdout)
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        XCTAssertEqual(entries.count, 26, "what the records say: 11 transactions, 3 refunds, 9 events, 3 grant entries, and no milestone")
        XCTAssertFalse(entries.contains { $0["type"] == .string("accessEnded") || $0["kind"] == .string("milestone") })
        XCTAssertFalse(run(["history", "t", "--format", "jsonl"]).stdout.contains("Access ended"))
        XCTAssertFalse(run(["history", "t", "--format", "tsv"]).stdout.contains("Access ended"))
    }

    func testFiltersApplyToTheMilestonesToo() {
        let pro = run(["history", "t", "--entitlement", "pro"]).stdout
        let lines = pro.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("2026-06-12 00:00Z  pro ") && $0.hasSuffix("  Access ended: plus refunded") }, pro)
        XCTAssertEqual(lines.filter { $0.contains("Access ended") }.count, 1, pro)
        let since = run(["history", "t", "--since", "2026-11-16"]).stdout
        XCTAssertEqual(since, """
            DATE               ENTITLEMENT  WHAT HAPPENED
            2026-11-20 00:00Z  premium      Granted premium for life by sam
            2026-11-25 00:00Z  premium      Revoked the manual grant of premium by dana: mistake
            2026-11-25 00:00Z  premium      Access ended: the manual grant was revoked by dana

            """)
        let limit = run(["history", "t", "--limit", "1"]).stdout
        XCTAssertTrue(limit.hasSuffix("Revoked the manual grant of premium by dana: mistake\n"
                                      + "2026-11-25 00:00Z  premium      Access ended: the manual grant was revoked by dana\n"), limit)
        // --at: the timeline as it stood then, milestones included only when they had happened.
        let then = run(["history", "t", "--at", "2026-10-01T00:00Z"]).stdout
        XCTAssertTrue(then.hasPrefix("as of 2026-10-01 00:00Z (--at)\n"), then)
        XCTAssertTrue(then.contains("Access ended: basic expired (auto-renew was off)"), then)
        XCTAssertFalse(then.contains("Bought life"), then)
        let before = run(["history", "t", "--at", "2026-09-30T23:59Z"]).stdout
        XCTAssertFalse(before.contains("Access ended: basic"), "not ended yet: \(before)")
    }

    func testWideAddsTheIdsAndTheTableOtherwiseHasNone() {
        let plain = run(["history", "t"]).stdout
        for id in ["a1", "a6", "g1", "f1"] { XCTAssertFalse(plain.contains(" \(id) "), id) }
        let wide = run(["history", "t", "--wide"]).stdout
        XCTAssertTrue(wide.hasPrefix("DATE               ENTITLEMENT      WHAT HAPPENED"), wide)
        XCTAssertTrue(wide.contains("PRODUCT  TRANSACTION  ORIGINAL  GRANT\n"), wide)
        let refund = wide.split(separator: "\n").first { $0.contains("Refunded plus (period 2026-06-10 → 2026-07-10)") }
        XCTAssertTrue(refund?.hasSuffix("  plus     a6") ?? false, wide)
        let renewal = wide.split(separator: "\n").first { $0.contains("Renewed as plus") }
        XCTAssertTrue(renewal?.hasSuffix("  plus     a6           a1") ?? false, wide)
        XCTAssertTrue(wide.contains("Revoked the manual grant of premium by dana: mistake"), wide)
        XCTAssertTrue(wide.contains(" g2\n"), wide)
    }

    func testTheVocabularyIsCheckVocabulary() {
        // check and history say the same things in the same words.
        let check = runCLI(["--store", Repo.exampleStore, "check", "erin", "ivan", "dave"]).stdout
        let history = runCLI(["--store", Repo.exampleStore, "history", "-"], stdin: "erin\nivan\ndave\n").stdout
        XCTAssertTrue(check.contains("pro_yearly_web (Stripe)") && history.contains("pro_yearly_web (Stripe)"))
        XCTAssertTrue(check.contains("grace period") && history.contains("grace period until 2026-12-12"))
        XCTAssertTrue(check.contains("refunded on 2026-10-06") && history.contains("Refunded pro_yearly"))
        XCTAssertTrue(check.contains("access lost on 2026-11-06") && history.contains("2026-11-06 08:15Z  premium      Access ended"))
    }

    func testAHugeHistoryIsWordedInLinearTime() throws {
        // 30 000 renewals of one chain: a per-entry scan of the chain to word each renewal
        // (quadratic) would not finish in the suite's time; no timing is asserted.
        var transactions: [String] = []
        for i in 0..<30_000 {
            let day = 1_600_000_000 + 86_400 * Int64(i)
            let date = ISODate.format(Instant(seconds: day)), end = ISODate.format(Instant(seconds: day + 86_400))
            transactions.append("""
                {"transactionId": "t\(i)", "originalTransactionId": "t0", "productId": "m", "type": "\(i == 0 ? "subscriptionStarted" : "subscriptionRenewed")",
                 "transactionDate": "\(date)", "expirationDate": "\(end)"}
                """)
        }
        let dir = TempDir()
        let big = dir.write("big.json", """
            {"schemaVersion": 1, "products": {"m": {"type": "subscription", "entitlements": ["premium"]}},
             "customers": {"u": {"transactions": [\(transactions.joined(separator: ","))],
               "events": [{"type": "autoRenewDisabled", "date": "2020-09-14T00:00:00Z", "originalTransactionId": "t0"}]}}}
            """)
        let result = runCLI(["--store", big, "history", "u", "--at", "2200-01-01"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 1 + 1 + 30_000 + 1 + 1, "as of, header, entries, one event, one end")
        XCTAssertTrue(result.stdout.hasSuffix("Access ended: m expired without a renewal\n"), String(result.stdout.suffix(200)))
    }
}
