// The revised rules as a user meets them: requestedId to join output to input, consumables that
// claim entitlements rejected with their path, and sentences that name what matters.

import XCTest
import SubsJSON
@testable import SubsCLI

final class RulesRevisionCLITests: XCTestCase {
    private var dir: TempDir!
    private var store: String!

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    private func run(_ args: [String], store: String? = nil, stdin: String? = nil) -> CLIResult {
        runCLI(["--store", store ?? self.store] + args, stdin: stdin)
    }

    // MARK: - requestedId

    func testCheckCarriesTheIdAsGivenNextToTheCanonicalId() throws {
        let doc = try JSON.parse(run(["check", "alice-android", "--json"]).stdout)
        XCTAssertEqual(doc["customerId"], .string("alice"))
        XCTAssertEqual(doc["requestedId"], .string("alice-android"))
    }

    func testJSONLinesJoinBackToTheirInput() throws {
        let input = "alice-android\nbob\n# comment\nalice\n"
        let result = run(["check", "-", "--format", "jsonl"], stdin: input)
        XCTAssertEqual(result.status, .success, result.stderr)
        let lines = try result.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        XCTAssertEqual(lines.map { $0["requestedId"] }, [.string("alice-android"), .string("bob"), .string("alice")])
        XCTAssertEqual(lines.map { $0["customerId"] }, [.string("alice"), .string("bob"), .string("alice")])
    }

    func testHistoryAndRenewCountCarryTheIdAsGiven() throws {
        let history = try JSON.parse(run(["history", "alice-android", "--json"]).stdout)
        XCTAssertEqual(history.objectValue?.keys.prefix(3), ["customerId", "requestedId", "requestDate"])
        XCTAssertEqual(history["requestedId"], .string("alice-android"))
        let one = try JSON.parse(run(["renew-count", "alice-android", "premium", "--json"]).stdout)
        XCTAssertEqual(one["customerId"], .string("alice"))
        XCTAssertEqual(one["requestedId"], .string("alice-android"))
        let all = try JSON.parse(run(["renew-count", "alice-android", "--json"]).stdout)
        XCTAssertEqual(all["requestedId"], .string("alice-android"))
    }

    // MARK: - Consumables cannot unlock entitlements

    func testConsumableListingAnEntitlementIsADataErrorWithItsPath() {
        let bad = dir.write("bad.json", TestStore.json.replacingOccurrences(
            of: #""coins": { "type": "consumable", "entitlements": [] }"#,
            with: #""coins": { "type": "consumable", "entitlements": ["premium"] }"#))
        for args in [["store", "validate"], ["check", "frank"], ["check", "alice", "--require", "premium"]] {
            let result = run(args, store: bad)
            XCTAssertEqual(result.status, .dataError, "\(args): \(result.stderr)")
            // `store validate` lists problems on stdout; other commands name them on stderr.
            let said = result.stdout + result.stderr
            XCTAssertTrue(said.contains("products.coins.entitlements: a consumable product unlocks no entitlement"), said)
        }
    }

    // MARK: - Sentences

    /// One customer per sentence, as of 2026-12-01T12:00Z (the tests' clock).
    private static let sentenceStore = #"""
    {
      "schemaVersion": 1,
      "products": {
        "pro_monthly": { "type": "subscription", "entitlements": ["premium"], "gracePeriod": "P16D", "billingRetryPeriod": "P60D" },
        "pro_yearly": { "type": "subscription", "entitlements": ["premium", "cloud"] },
        "lifetime": { "type": "nonConsumable", "entitlements": ["premium"] }
      },
      "customers": {
        "retry": {
          "transactions": [ { "transactionId": "r1", "originalTransactionId": "r1", "productId": "pro_monthly", "type": "subscriptionStarted",
                              "transactionDate": "2026-10-10T00:00:00Z", "expirationDate": "2026-11-10T00:00:00Z" } ],
          "events": [ { "type": "billingIssue", "date": "2026-11-10T00:00:00Z", "originalTransactionId": "r1" } ]
        },
        "lapsed": {
          "transactions": [ { "transactionId": "l1", "originalTransactionId": "l1", "productId": "pro_monthly", "type": "subscriptionStarted",
                              "transactionDate": "2026-06-01T00:00:00Z", "expirationDate": "2026-07-01T00:00:00Z" } ],
          "events": [ { "type": "billingIssue", "date": "2026-07-01T00:00:00Z", "originalTransactionId": "l1" } ]
        },
        "refunded": {
          "transactions": [
            { "transactionId": "f1", "originalTransactionId": "f1", "productId": "pro_monthly", "type": "subscriptionStarted",
              "transactionDate": "2026-10-01T00:00:00Z", "expirationDate": "2026-11-01T00:00:00Z" },
            { "transactionId": "f2", "originalTransactionId": "f1", "productId": "pro_monthly", "type": "subscriptionRenewed",
              "transactionDate": "2026-11-01T00:00:00Z", "expirationDate": "2026-12-01T00:00:00Z", "transactionRevocationDate": "2026-11-05T00:00:00Z" }
          ]
        },
        "family": {
          "transactions": [
            { "transactionId": "h1", "originalTransactionId": "h1", "productId": "pro_monthly", "type": "subscriptionStarted",
              "transactionDate": "2026-11-20T00:00:00Z", "expirationDate": "2026-12-20T00:00:00Z", "ownershipType": "familySharing",
              "transactionRevocationDate": "2026-11-25T00:00:00Z" }
          ]
        },
        "familyPurchase": {
          "transactions": [
            { "transactionId": "k1", "originalTransactionId": "k1", "productId": "lifetime", "type": "nonConsumablePurchase",
              "transactionDate": "2026-01-20T00:00:00Z", "ownershipType": "familySharing", "transactionRevocationDate": "2026-11-26T00:00:00Z" }
          ]
        },
        "paused": {
          "transactions": [ { "transactionId": "p1", "originalTransactionId": "p1", "productId": "pro_monthly", "type": "subscriptionStarted",
                              "transactionDate": "2026-09-01T00:00:00Z", "expirationDate": "2026-10-01T00:00:00Z", "source": "playstore" } ],
          "events": [ { "type": "pauseScheduled", "date": "2026-09-15T00:00:00Z", "originalTransactionId": "p1", "autoResumeDate": "2026-11-01T00:00:00Z" } ]
        },
        "downgrade": {
          "transactions": [ { "transactionId": "d1", "originalTransactionId": "d1", "productId": "pro_yearly", "type": "subscriptionStarted",
                              "transactionDate": "2026-03-01T00:00:00Z", "expirationDate": "2027-03-01T00:00:00Z" } ],
          "events": [ { "type": "renewalProductChanged", "date": "2026-11-01T00:00:00Z", "originalTransactionId": "d1", "productId": "pro_monthly" } ]
        }
      }
    }
    """#

    private func sentences(_ id: String) -> String {
        let path = dir.write("sentences.json", Self.sentenceStore)
        let result = run(["check", id], store: path)
        XCTAssertEqual(result.status, .success, result.stderr)
        return result.stdout
    }

    func testBillingRetryNamesTheGraceEndAsTheDayAccessEnded() {
        // Period ended 2026-11-10; grace to 2026-11-26; the store retries until 2027-01-09.
        let out = sentences("retry")
        XCTAssertTrue(out.contains("premium: billing retry — billing issue detected 2026-11-10, access lost on 2026-11-26; the store retries the payment until 2027-01-09"), out)
    }

    func testExpiryAfterABillingIssueNamesTheGraceEnd() {
        XCTAssertTrue(sentences("lapsed").contains("premium: expired on 2026-07-17 after a billing issue detected 2026-07-01"))
    }

    func testRefundedRenewalIsNamed() {
        let out = sentences("refunded")
        XCTAssertTrue(out.contains("premium: renewal of 2026-11-01 refunded on 2026-11-05"), out)
    }

    func testFamilySharingWithdrawalIsNotARefund() {
        for id in ["family", "familyPurchase"] {
            let out = sentences(id)
            XCTAssertTrue(out.contains("premium: family-sharing access withdrawn on 2026-11-2"), out)
            XCTAssertFalse(out.contains("refund"), out)
        }
    }

    func testPauseThatEndedWithoutRenewalSaysSo() {
        let out = sentences("paused")
        XCTAssertTrue(out.contains("premium: paused 2026-10-01 → 2026-11-01, not resumed"), out)
    }

    func testEntitlementDroppedByAProductChangeSaysWhenAndWhy() {
        let out = sentences("downgrade")
        XCTAssertTrue(out.contains("cloud: ends 2027-03-01 — renews as pro_monthly, which does not include cloud"), out)
        XCTAssertTrue(out.contains("premium: switches to pro_monthly at the next renewal (2027-03-01)"), out)
    }
}

/// "How subs maps to the platforms" (docs/providers.md, moved there from the README): every subs field it names exists in `check --json`.
final class PlatformMappingDocTests: XCTestCase {
    func testEverySubsFieldNamedInTheMappingSectionExistsInCheckJSON() throws {
        let readme = try String(contentsOfFile: repositoryRoot + "/docs/providers.md", encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "## How subs maps to the platforms"))
        let rest = readme[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]

        let dir = TempDir()
        let store = dir.write("store.json", TestStore.json)
        let doc = try JSON.parse(runCLI(["--store", store, "check", "alice", "--json"]).stdout)
        let premium = try XCTUnwrap(doc["entitlements"]?["premium"]?.objectValue)
        let known = Set((doc.objectValue?.keys ?? []) + premium.keys)
        // Values the fields take are named too (`willRenew`, `appstore`, …): those are enum values.
        let values: Set<String> = Set(["willRenew", "canceled", "billingIssue", "nonRenewable", "unknown",
                                       "active", "gracePeriod", "billingRetry", "paused", "expired", "revoked",
                                       "appstore", "playstore", "stripe", "amazon", "manual", "normal", "trial",
                                       "intro", "prepaid", "familySharing", "offerCode", "purchase", "null"])
        var checked = 0
        // The values tables (`| field | value | subs field | subs value |`) are checked row by row
        // by PlatformValuesTableTests; here only the field tables are read.
        var inValuesTable = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else { inValuesTable = false; continue }
            if line.hasPrefix("| field | value |") { inValuesTable = true }
            if inValuesTable || line.hasPrefix("|---") { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[1] != "RevenueCat", cells[1] != "Qonversion", cells[1] != "IAPHUB field",
                  !cells[1].hasPrefix("IAPHUB `subscriptionState`") else { continue }
            // The subs column is the second one in every table of the section.
            let subsCell = cells[2]
            var names: [String] = []
            var rest = Substring(subsCell)
            while let open = rest.firstIndex(of: "`") {
                let after = rest[rest.index(after: open)...]
                guard let close = after.firstIndex(of: "`") else { break }
                names.append(String(after[..<close]))
                rest = after[after.index(after: close)...]
            }
            for name in names where !values.contains(name) {
                checked += 1
                XCTAssertTrue(known.contains(name), "docs/providers.md names subs field '\(name)', which check --json does not have")
            }
        }
        XCTAssertGreaterThan(checked, 40, "the mapping tables were not found or not read")
    }
}
