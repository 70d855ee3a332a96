// Issue 30, "table, TSV and JSON tell the same story": every cell of the check table and every
// date of the sentence under it is derived from the JSON document (CheckStory), and the TSV
// carries the same values, for every demo customer at instants across the demo's story.

import SubsJSON
import XCTest

final class CheckStoryTests: XCTestCase {
    static let instants = ScreenTruthTests.instants + ["2026-11-04", "2026-10-03T15:20:00Z", "2026-10-06T09:00:00Z"]

    func testEveryDemoCustomerTellsOneStoryInTableTSVAndJSON() throws {
        let ids = try demoCustomerIds()
        for at in Self.instants {
            let problems = CheckStory.disagreements(store: Repo.exampleStore, customers: ids, at: at)
            XCTAssertEqual(problems, [], "at \(at)")
        }
    }

    /// The walk of the issue: the table's UNTIL is the JSON's and TSV's accessEndDate for a refunded,
    /// a revoked and a paused entitlement, while expirationDate keeps the period's end.
    func testRefundedRevokedAndPausedCarryTheTablesDateAsAccessEndDate() throws {
        let json = try XCTUnwrap(JSON.parse(screen(["check", "ivan", "uma", "mia", "frank", "--json"], columns: nil).stdout).arrayValue)
        let premium = json.map { $0["entitlements"]?["premium"] }
        XCTAssertEqual(premium.map { $0?["accessEndDate"]?.stringValue },
                       ["2026-10-06T09:00:00Z", "2026-11-16T19:40:00Z", "2026-10-02T16:30:00Z", "2026-11-09T12:00:00Z"])
        XCTAssertEqual(premium[0]?["expirationDate"], .string("2027-10-03T15:20:00Z"), "the period's end stays beside it")
        XCTAssertEqual(premium[0]?["refundedAt"], .string("2026-10-06T09:00:00Z"))
        XCTAssertEqual(premium[2]?["refundedAt"], .null, "a revoked grant is no refund")
        XCTAssertEqual(premium[2]?["revokedAt"], .string("2026-10-02T16:30:00Z"))
        XCTAssertEqual(premium[2]?["revokedBy"], .string("dana"))
        XCTAssertEqual(premium[2]?["revokeReason"], .string("campaign cancelled"))
        // Nobody refunded, revoked or paused counts as covered by the date a script compares.
        for e in premium {
            XCTAssertLessThan(try XCTUnwrap(e?["accessEndDate"]?.stringValue), "2026-12-01T12:00:00Z")
        }
        let tsv = screen(["check", "ivan", "erin", "dave", "peggy", "--format", "tsv"], columns: nil).stdout
        let lines = tsv.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = try XCTUnwrap(lines.first)
        for column in ["accessEndDate", "willRenew", "isSandbox", "gracePeriodExpirationDate", "billingRetryEndDate",
                       "refundedAt", "revokedAt", "revokedBy", "revokeReason"] {
            XCTAssertTrue(header.contains(column), column)
        }
        XCTAssertEqual(header.last, "error")
        let row = { (n: Int, key: String) in lines[n][header.firstIndex(of: key)!] }
        XCTAssertEqual(row(1, "accessEndDate"), "2026-10-06T09:00:00Z")
        XCTAssertEqual(row(2, "billingRetryEndDate"), "2026-12-20T08:15:00Z")
        XCTAssertEqual(row(3, "gracePeriodExpirationDate"), "2026-12-12T14:30:00Z")
        XCTAssertEqual(row(4, "isSandbox"), "true")
        XCTAssertEqual(row(4, "willRenew"), "true")
    }

    func testARevokedGrantsSentenceSaysWhoRevokedItAndWhy() {
        let mia = screen(["check", "mia"], columns: nil).stdout
        XCTAssertTrue(mia.contains("premium: manual grant by sam (influencer campaign), revoked on 2026-10-02 by dana (campaign cancelled)\n"), mia)
    }

    func testADryRunSaysWhatWouldHappenNeverWhatIsNow() throws {
        let dir = TempDir()
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let grant = runCLI(["--store", store, "grant", "trent", "premium", "--duration", "P7D", "--dry-run"])
        XCTAssertEqual(grant.status, .success, grant.stderr)
        XCTAssertTrue(grant.stdout.contains("trent: premium would be active\n"), grant.stdout)
        XCTAssertFalse(grant.stdout.contains("is now"), grant.stdout)
        let revoke = runCLI(["--store", store, "revoke", "liam", "premium", "--dry-run"])
        XCTAssertEqual(revoke.status, .success, revoke.stderr)
        XCTAssertTrue(revoke.stdout.contains("liam: premium would be "), revoke.stdout)
        XCTAssertFalse(revoke.stdout.contains("is now"), revoke.stdout)
        let written = runCLI(["--store", store, "grant", "trent", "premium", "--duration", "P7D"])
        XCTAssertTrue(written.stdout.contains("trent: premium is now active\n"), written.stdout)
    }

    /// The demo's walter: a Stripe renewal charge failed 2026-11-03 and a retry succeeded
    /// 2026-11-05. Between the two he is in grace (the renewal was not paid), not "active until
    /// 2027-12-03, renewal at risk".
    func testWaltersFailedRenewalIsAGracePeriodUntilTheRetrySucceeds() throws {
        let during = screen(["check", "walter"], columns: nil, at: "2026-11-04").stdout
        XCTAssertTrue(during.contains("premium      grace period  2026-12-03 00:00Z"), during)
        XCTAssertTrue(during.contains("premium: in grace period — billing issue detected 2026-11-03; access ends 2026-12-03 unless payment recovers"), during)
        let after = try JSON.parse(screen(["check", "walter", "--json"], columns: nil).stdout)
        XCTAssertEqual(after["entitlements"]?["premium"]?["state"], .string("active"))
        XCTAssertEqual(after["entitlements"]?["premium"]?["willRenew"], .bool(true))
        XCTAssertEqual(after["entitlements"]?["premium"]?["expirationDate"], .string("2027-11-03T00:00:00Z"))
    }
}
