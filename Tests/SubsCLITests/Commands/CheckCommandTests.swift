// `check` in-process: formats, exit statuses, users from stdin, terminal behaviour.

import SubsCLI
import SubsJSON
import XCTest

final class CheckCommandTests: XCTestCase {
    var dir: TempDir!
    var store: String!

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    func check(_ args: [String], stdin: String? = nil, terminal: Bool = false, env: [String: String] = [:]) -> CLIResult {
        runCLI(["--store", store, "check"] + args, env: env, stdin: stdin, terminal: terminal)
    }

    func testJSONDocumentHasEveryDocumentedKeyInOrder() throws {
        let result = check(["alice", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "projected", "aliases", "firstSeen", "attributes",
                                               "activeEntitlements", "entitlements", "totalSpent"])
        XCTAssertEqual(doc["customerId"], .string("alice"))
        XCTAssertEqual(doc["requestedId"], .string("alice"))
        XCTAssertEqual(doc["requestDate"], .string("2026-12-01T12:00:00Z"))
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium")]))
        let premium = try XCTUnwrap(doc["entitlements"]?["premium"]?.objectValue)
        XCTAssertEqual(premium.keys, ["id", "isActive", "state", "renewState", "willRenew", "periodType", "source",
                                      "grantType", "productId", "startedDate", "trialStartDate", "firstPurchaseDate",
                                      "lastPurchaseDate", "expirationDate", "accessEndDate", "gracePeriodExpirationDate",
                                      "billingIssueDetectedAt", "billingRetryEndDate", "autoRenewDisableDate", "autoResumeDate",
                                      "pauseEndedDate", "renewalProductId", "renewsCount", "isSandbox", "lastActivatedOfferCode",
                                      "grantId", "grantedBy", "grantReason", "refundedAt", "revokedAt", "revokedBy", "revokeReason",
                                      "transactions", "otherActiveSources"])
        XCTAssertEqual(premium["otherActiveSources"], .array([]))
        XCTAssertEqual(premium["state"], .string("active"))
        XCTAssertEqual(premium["renewState"], .string("willRenew"))
        XCTAssertEqual(premium["renewsCount"], .number("1"))
        XCTAssertEqual(premium["expirationDate"], .string("2026-12-15T09:00:00Z"))
        XCTAssertEqual(premium["trialStartDate"], .null)
        let transaction = try XCTUnwrap(premium["transactions"]?.arrayValue?.first?.objectValue)
        XCTAssertEqual(transaction.keys, ["transactionId", "originalTransactionId", "productId", "type", "transactionDate",
                                          "expirationDate", "source", "environment", "ownershipType", "offerCode",
                                          "orderId", "transactionRevocationDate", "price", "currency"])
        XCTAssertEqual(transaction["environment"], .string("production"))
        XCTAssertEqual(transaction["orderId"], .null)
    }

    func testAliasFindsTheCustomer() throws {
        let result = check(["alice-android", "--json"])
        XCTAssertEqual(result.status, .success)
        XCTAssertEqual(try JSON.parse(result.stdout)["customerId"], .string("alice"))
    }

    func testCustomerWithoutSourcesIsFoundWithEmptyEntitlements() throws {
        let result = check(["frank", "--json"])
        XCTAssertEqual(result.status, .success)
        XCTAssertEqual(try JSON.parse(result.stdout)["entitlements"], .object(JSONObject()))
    }

    func testTableExplainsGracePeriodWithDates() {
        let result = check(["bob"])
        XCTAssertEqual(result.status, .success)
        XCTAssertTrue(result.stdout.contains("ENTITLEMENT"), result.stdout)
        XCTAssertTrue(result.stdout.contains("grace period  2026-12-11 00:00Z"), result.stdout)
        XCTAssertFalse(result.stdout.contains("gracePeriod"), "cells in words, not API words")
        XCTAssertTrue(result.stdout.contains(
            "premium: in grace period — billing issue detected 2026-11-25; access ends 2026-12-11 unless payment recovers"),
            result.stdout)
    }

    func testTableExplainsCancellationAndGrant() {
        XCTAssertTrue(check(["carol"]).stdout.contains("premium: cancelled on 2026-09-10, expired on 2026-10-01"))
        XCTAssertTrue(check(["carol", "--at", "2026-09-20"]).stdout.contains(
            "premium: cancelled on 2026-09-10, active until 2026-10-01"))
        XCTAssertTrue(check(["dave"]).stdout.contains("premium: manual grant by dana (goodwill), until 2027-01-01"))
    }

    func testActiveAndRenewingNeedsNoSentence() {
        let out = check(["alice"]).stdout
        XCTAssertFalse(out.contains("premium:"), out)
    }

    func testUnknownCustomerIsExit3AndOthersStillPrinted() throws {
        let result = check(["alice", "nobody", "bob", "--json"])
        XCTAssertEqual(result.status, .notFound)
        XCTAssertEqual(result.stderr, "subs: error: customer 'nobody' not found\n")
        let docs = try XCTUnwrap(JSON.parse(result.stdout).arrayValue)
        // One element per USER asked, in order; the missing one says so in the same array.
        XCTAssertEqual(docs.map { $0["customerId"] }, [.string("alice"), .null, .string("bob")])
        XCTAssertEqual(docs.map { $0["requestedId"] }, [.string("alice"), .string("nobody"), .string("bob")])
        XCTAssertEqual(docs[1].objectValue?.keys, ["requestedId", "customerId", "error"])
        XCTAssertEqual(docs[1]["error"]?["code"], .string("customer_not_found"))
        XCTAssertEqual(docs[1]["error"]?["message"], .string("customer 'nobody' not found"))
        // One USER not found: nothing on stdout, the error on stderr.
        let one = check(["nobody", "--json"])
        XCTAssertEqual(one.status, .notFound)
        XCTAssertEqual(one.stdout, "")
        XCTAssertEqual(one.stderr, "subs: error: customer 'nobody' not found\n")
    }

    func testRequireGivesExit1WhenAnyCustomerLacksIt() {
        XCTAssertEqual(check(["alice", "--require", "premium", "-q"]).status, .success)
        let result = check(["alice", "carol", "--require", "premium", "-q"])
        XCTAssertEqual(result.status, .requirementMissing)
        XCTAssertEqual(result.stdout, "")
        // The gate names who failed it and why, so a CI log answers "which one?".
        XCTAssertEqual(result.stderr, "subs: 'carol' lacks 'premium': cancelled on 2026-09-10, expired on 2026-10-01\n")
        // not found (3) outranks a missing entitlement (1)
        XCTAssertEqual(check(["carol", "nobody", "--require", "premium", "-q"]).status, .notFound)
        // grace period counts as active
        XCTAssertEqual(check(["bob", "--require", "premium", "-q"]).status, .success)
    }

    func testRequireOfAnEntitlementNoProductUnlocksIsAnErrorWithSuggestion() {
        let result = check(["alice", "--require", "premum"])
        XCTAssertEqual(result.status, .notFound)
        XCTAssertTrue(result.stderr.contains("did you mean 'premium'?"), result.stderr)
    }

    func testUsersFromStdinSkipBlankAndCommentLines() throws {
        let result = check(["-", "--format", "jsonl"], stdin: "# ids\nalice\n\n  bob  \r\n#carol\n")
        XCTAssertEqual(result.status, .success, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(try JSON.parse(String(lines[1]))["customerId"], .string("bob"))
    }

    func testStdinWithInvalidUTF8IsDataError() {
        let result = runCLI(["--store", store, "check", "-"], stdin: String(decoding: [0x61, 0x0A], as: UTF8.self) + "\u{0}x\n")
        XCTAssertEqual(result.status, .dataError)
    }

    func testSeveralUsersGiveAJSONArrayAndOneUserAnObject() throws {
        XCTAssertNotNil(try JSON.parse(check(["alice", "--json"]).stdout).objectValue)
        XCTAssertEqual(try JSON.parse(check(["alice", "bob", "--json"]).stdout).arrayValue?.count, 2)
    }

    func testActiveShowsOnlyActiveEntitlements() throws {
        let doc = try JSON.parse(check(["carol", "--json", "--active"]).stdout)
        XCTAssertEqual(doc["entitlements"], .object(JSONObject()))
    }

    func testTSVHasHeaderAndEscapesControlCharacters() {
        let result = check(["evil\u{1b}[31m", "--format", "tsv"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first?.split(separator: "\t").first, "customerId")
        XCTAssertTrue(lines[1].hasPrefix("evil\\x1b[31m\tevil\\x1b[31m\tpremium\ttrue\tactive"), String(lines[1]))
        XCTAssertFalse(result.stdout.contains("\u{1b}"))
    }

    func testTableNeverPrintsRawControlCharactersEvenWithColour() {
        for terminal in [false, true] {
            let result = check(["evil\u{1b}[31m", "--color", "never"], terminal: terminal)
            XCTAssertFalse(result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, result.stdout)
            XCTAssertTrue(result.stdout.contains("evil\\x1b[31m"))
            XCTAssertTrue(result.stdout.contains("manual grant by x\\x1b[2J"))
        }
        let coloured = check(["evil\u{1b}[31m", "--color", "always"])
        XCTAssertFalse(coloured.stdout.contains("\u{1b}[31m\n"))
        XCTAssertTrue(coloured.stdout.contains("evil\\x1b[31m"))
    }

    func testColourOnlyOnATerminalWithoutNoColor() {
        XCTAssertFalse(check(["alice"]).stdout.contains("\u{1b}["), "piped: no colour")
        XCTAssertTrue(check(["alice"], terminal: true).stdout.contains("\u{1b}[32mactive"), "terminal: green active")
        XCTAssertFalse(check(["alice"], terminal: true, env: ["NO_COLOR": "1"]).stdout.contains("\u{1b}["))
        XCTAssertFalse(check(["alice"], terminal: true, env: ["TERM": "dumb"]).stdout.contains("\u{1b}["))
        XCTAssertFalse(check(["alice", "--no-color"], terminal: true).stdout.contains("\u{1b}["))
        XCTAssertTrue(check(["alice", "--color", "always"]).stdout.contains("\u{1b}[32m"))
    }

    func testRelativeDatesOnlyOnATerminal() {
        XCTAssertTrue(check(["alice"], terminal: true, env: ["COLUMNS": "120"]).stdout.contains("2026-12-15 09:00Z (in 13d)"))
        let piped = check(["alice"]).stdout
        XCTAssertTrue(piped.contains("2026-12-15 09:00Z"))
        XCTAssertFalse(piped.contains("(in "))
    }

    func testAtEvaluatesInThePast() throws {
        let doc = try JSON.parse(check(["bob", "--at", "2026-11-01T00:00:00Z", "--json"]).stdout)
        XCTAssertEqual(doc["requestDate"], .string("2026-11-01T00:00:00Z"))
        XCTAssertEqual(doc["entitlements"]?["premium"]?["state"], .string("active"))
        let before = try JSON.parse(check(["bob", "--at", "2026-10-01", "--json"]).stdout)
        XCTAssertEqual(before["entitlements"], .object(JSONObject()), "nothing existed yet")
    }

    func testTableFitsTheTerminalWithoutCuttingOnlyOnATerminal() {
        let narrow = check(["alice", "--no-color"], terminal: true, env: ["COLUMNS": "60"]).stdout
        XCTAssertTrue(narrow.split(separator: "\n").allSatisfy { $0.count <= 60 }, narrow)
        XCTAssertFalse(narrow.contains("…"), "nothing is cut")
        XCTAssertTrue(narrow.contains("2026-12-15 09:00Z"), narrow)
        let piped = check(["alice", "--at", "2026-11-20"], env: ["COLUMNS": "30"]).stdout
        XCTAssertFalse(piped.contains("…"))
        XCTAssertTrue(piped.contains("premium      active, renews  2026-12-15 09:00Z  pro_monthly (App Store)\n"), piped)
    }

    func testQuietPrintsNothing() {
        let result = check(["alice", "-q"])
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.status, .success)
    }

    func testBadSubsNowIsAConfigurationError() {
        let result = runCLI(["--store", store, "check", "alice"], now: "yesterday")
        XCTAssertEqual(result.status, .configError)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: SUBS_NOW: 'yesterday'"), result.stderr)
    }

    func testFormatFromEnvironment() throws {
        let result = check(["alice"], env: ["SUBS_FORMAT": "json"])
        XCTAssertNotNil(try JSON.parse(result.stdout).objectValue)
    }
}
