// The contract a script relies on (SPEC sections 1 and 4, rev. 3): one JSON shape per command,
// one element/line/row per USER asked, `-` for every command that takes USER, did-you-mean for
// every unknown entitlement, `check --environment`, the gate naming who failed it, and exit
// statuses with one meaning each. Run on the demo store at the fixed clock.

import Foundation
import SubsCLI
import SubsJSON
import XCTest

final class ContractTests: XCTestCase {
    func demo(_ args: [String], stdin: String? = nil, terminal: Bool = false, env: [String: String] = [:]) -> CLIResult {
        runCLI(["--store", Repo.exampleStore] + args, env: env, stdin: stdin, terminal: terminal)
    }

    // MARK: one JSON shape

    func testOneUserIsAnObjectOrNothingForEveryCommand() throws {
        for command in [["check"], ["history"], ["renew-count"]] {
            let found = demo(command + ["gwen", "--json"])
            XCTAssertEqual(found.status, .success, "\(command): \(found.stderr)")
            XCTAssertEqual(try JSON.parse(found.stdout)["customerId"], .string("gwen"), "\(command)")
            let missing = demo(command + ["zed", "--json"])
            XCTAssertEqual(missing.status, .notFound, "\(command)")
            XCTAssertEqual(missing.stdout, "", "\(command): one USER not found prints nothing on stdout")
            XCTAssertEqual(missing.stderr, "subs: error: customer 'zed' not found\n", "\(command)")
            let jsonl = demo(command + ["zed", "--format", "jsonl"])
            XCTAssertEqual(jsonl.stdout, "", "\(command) jsonl")
        }
    }

    func testSeveralUsersOrDashGiveOneElementPerUserAskedInOrder() throws {
        let asked = ["heidi", "zed", "heidi-nope", "gwen"]
        for command in [["check"], ["history"], ["renew-count"]] {
            let result = demo(command + ["-", "--json"], stdin: asked.joined(separator: "\n") + "\n")
            XCTAssertEqual(result.status, .notFound, "\(command)")
            let array = try XCTUnwrap(JSON.parse(result.stdout).arrayValue, "\(command): \(result.stdout)")
            XCTAssertEqual(array.map { $0["requestedId"] }, asked.map { .string($0) }, "\(command)")
            XCTAssertEqual(array.map { $0["customerId"] }, [.string("heidi"), .null, .null, .string("gwen")], "\(command)")
            for element in [array[1], array[2]] {
                XCTAssertEqual(element.objectValue?.keys, ["requestedId", "customerId", "error"], "\(command)")
                XCTAssertEqual(element["error"]?.objectValue?.keys, ["code", "message"])
                XCTAssertEqual(element["error"]?["code"], .string("customer_not_found"))
            }
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 2, "each missing USER said on stderr: \(result.stderr)")
        }
        // check with several USERs on the command line: the same array.
        let check = try JSON.parse(demo(["check", "gwen", "zed", "--json"]).stdout)
        XCTAssertEqual(check.arrayValue?.map { $0["requestedId"] }, [.string("gwen"), .string("zed")])
        // `-` with one id is still an array (a script gets the same shape every time).
        XCTAssertEqual(try JSON.parse(demo(["history", "-", "--json"], stdin: "gwen\n").stdout).arrayValue?.count, 1)
        XCTAssertEqual(demo(["renew-count", "-", "--json"], stdin: "").stdout, "[]\n")
    }

    func testFoundCustomersKeepTheirDocumentsWithProjectedAndOtherActiveSourcesAdded() throws {
        let entitlementKeys = ["id", "isActive", "state", "renewState", "willRenew", "periodType", "source", "grantType",
                               "productId", "startedDate", "trialStartDate", "firstPurchaseDate", "lastPurchaseDate",
                               "expirationDate", "accessEndDate", "gracePeriodExpirationDate", "billingIssueDetectedAt",
                               "billingRetryEndDate", "autoRenewDisableDate", "autoResumeDate", "pauseEndedDate",
                               "renewalProductId", "renewsCount", "isSandbox", "lastActivatedOfferCode", "grantId",
                               "grantedBy", "grantReason", "refundedAt", "revokedAt", "revokedBy", "revokeReason",
                               "transactions", "otherActiveSources"]
        let ids = try demoCustomerIds()
        let all = try XCTUnwrap(JSON.parse(demo(["check", "-", "--json"], stdin: ids.joined(separator: "\n")).stdout).arrayValue)
        XCTAssertEqual(all.count, ids.count)
        for document in all {
            let id = document["customerId"]?.stringValue ?? "?"
            XCTAssertEqual(document.objectValue?.keys, ["customerId", "requestedId", "requestDate", "projected", "aliases", "firstSeen",
                                                        "attributes", "activeEntitlements", "entitlements", "totalSpent"], id)
            for (name, e) in document["entitlements"]?.objectValue?.members.map({ ($0.key, $0.value) }) ?? [] {
                XCTAssertEqual(e.objectValue?.keys, entitlementKeys, "\(id).\(name)")
                let others = e["otherActiveSources"]?.arrayValue ?? []
                XCTAssertEqual(others.isEmpty, id != "quentin", "\(id).\(name): \(others)")
                for other in others {
                    XCTAssertEqual(other.objectValue?.keys, ["productId", "source", "expirationDate", "renewState"])
                }
            }
        }
        let quentin = try JSON.parse(demo(["check", "quentin", "--json"]).stdout)
        XCTAssertEqual(quentin["entitlements"]?["premium"]?["otherActiveSources"], .array([.object(JSONObject([
            ("productId", .string("pro_yearly")), ("source", .string("appstore")),
            ("expirationDate", .string("2027-01-10T19:25:00Z")), ("renewState", .string("willRenew")),
        ]))]))
        XCTAssertEqual(quentin["entitlements"]?["premium"]?["productId"], .string("lifetime"), "the describing source is unchanged")
    }

    func testJSONLinesKeepOneLinePerUserAsked() throws {
        let check = demo(["check", "-", "--format", "jsonl"], stdin: "olivia\nzed\ntrent\n")
        let lines = try check.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        XCTAssertEqual(lines.map { $0["requestedId"] }, [.string("olivia"), .string("zed"), .string("trent")])
        XCTAssertEqual(lines[1]["error"]?["code"], .string("customer_not_found"))
        XCTAssertEqual(lines[2]["entitlements"], .object(JSONObject()))
        // history: one line per entry, each carrying its customer when several are asked.
        let history = demo(["history", "-", "--format", "jsonl"], stdin: "xavier\nzed\n")
        let entries = try history.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        XCTAssertEqual(entries.count, 4)
        XCTAssertTrue(entries.prefix(3).allSatisfy { $0["customerId"] == .string("xavier") && $0["date"] != nil })
        XCTAssertEqual(entries[0].objectValue?.keys.prefix(4), ["customerId", "requestedId", "date", "kind"])
        XCTAssertEqual(entries[3]["requestedId"], .string("zed"))
        // One USER: each line carries its customer too (issue 30: one shape per command).
        let one = try JSON.parse(String(demo(["history", "xavier", "--format", "jsonl"]).stdout.split(separator: "\n")[0]))
        XCTAssertEqual(one.objectValue?.keys.prefix(4), ["customerId", "requestedId", "date", "kind"])
        XCTAssertEqual(one["customerId"], .string("xavier"))
    }

    func testTSVHasOneRowPerUserAskedWithRequestedId() {
        let result = demo(["check", "kim", "zed", "trent", "judy-alias-unknown", "--format", "tsv"])
        let rows = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        XCTAssertEqual(rows[0].prefix(3), ["customerId", "requestedId", "entitlement"])
        XCTAssertEqual(rows[0].last, "error")
        XCTAssertTrue(rows.allSatisfy { $0.count == rows[0].count }, result.stdout)
        XCTAssertEqual(rows.dropFirst().map { $0[1] }, ["kim", "zed", "trent", "judy-alias-unknown"])
        XCTAssertEqual(rows[1].prefix(5), ["kim", "kim", "premium", "false", "revoked"])
        XCTAssertEqual(rows[2].first, "")
        XCTAssertEqual(rows[2].last, "customer_not_found")
        XCTAssertEqual(rows[3].prefix(3), ["trent", "trent", ""], "found without entitlements: still a row")
        XCTAssertEqual(rows[3].last, "")
        // An alias asked is joined back by requestedId.
        XCTAssertTrue(demo(["check", "alice-android", "--format", "tsv"]).stdout.contains("\nalice\talice-android\tpremium\t"))
    }

    func testHistoryTSVHasOneColumnPerField() {
        let result = demo(["history", "frank", "--format", "tsv"])
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows[0]
        XCTAssertFalse(header.contains("details"))
        XCTAssertEqual(Array(header.prefix(6)), ["customerId", "requestedId", "date", "kind", "type", "entitlements"])
        for key in ["transactionId", "originalTransactionId", "productId", "expirationDate", "source", "environment",
                    "ownershipType", "offerCode", "autoResumeDate", "grantId", "grantedBy", "reason", "revokedBy", "revokeReason"] {
            XCTAssertTrue(header.contains(key), key)
        }
        XCTAssertTrue(rows.allSatisfy { $0.count == header.count })
        let pause = rows.last { $0[4] == "pauseScheduled" }
        XCTAssertEqual(pause?[header.firstIndex(of: "autoResumeDate")!], "2027-01-09T12:00:00Z")
        XCTAssertEqual(pause?[header.firstIndex(of: "transactionId")!], "", "an event has no transaction id")
        let grants = demo(["history", "mia", "--format", "tsv"]).stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let revoked = grants.last { $0[3] == "grant" && $0[4] == "revoked" }
        XCTAssertEqual(revoked?[grants[0].firstIndex(of: "revokedBy")!], "dana")
        // A USER not found is a row too.
        let missing = demo(["history", "-", "--format", "tsv"], stdin: "zed\n").stdout.split(separator: "\n")
        XCTAssertEqual(missing.count, 2)
        XCTAssertTrue(missing[1].hasPrefix("\tzed\t") && missing[1].hasSuffix("\tcustomer_not_found"), String(missing[1]))
    }

    // MARK: `-` everywhere, did-you-mean everywhere

    func testDashReadsIdsForHistoryAndRenewCount() throws {
        let counts = demo(["renew-count", "-", "premium"], stdin: "alice\n# comment\nfrank\n")
        XCTAssertEqual(counts.status, .success, counts.stderr)
        XCTAssertEqual(counts.stdout, "CUSTOMER  ENTITLEMENT  RENEWS\nalice     premium      18\nfrank     premium      4\n")
        let history = demo(["history", "-"], stdin: "ivan\nkim\n")
        XCTAssertEqual(history.status, .success, history.stderr)
        XCTAssertTrue(history.stdout.hasPrefix("ivan\nDATE"), history.stdout)
        XCTAssertTrue(history.stdout.contains("\nkim\nDATE"), history.stdout)
        let never = try JSON.parse(demo(["renew-count", "-", "early_access", "--json"], stdin: "liam\nalice\n").stdout)
        XCTAssertEqual(never.arrayValue?[0]["renewsCount"], .number("0"))
        XCTAssertEqual(never.arrayValue?[1]["customerId"], .string("alice"))
        XCTAssertEqual(never.arrayValue?[1]["error"]?["code"], .string("entitlement_not_found"))
    }

    func testUnknownEntitlementIsADidYouMeanAndExit3InEveryCommand() {
        for args in [["history", "alice", "--entitlement", "premiun"], ["renew-count", "alice", "premum"],
                     ["check", "alice", "--require", "premiumm"], ["history", "-", "--entitlement", "familly"],
                     ["renew-count", "-", "early_acess"]] {
            let result = demo(args, stdin: "alice\nnina\n")
            XCTAssertEqual(result.status, .notFound, "\(args)")
            XCTAssertEqual(result.stdout, "", "\(args)")
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: no product unlocks entitlement '"), "\(args): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("(did you mean '"), "\(args): \(result.stderr)")
        }
        // A real entitlement the customer never had is no typo: an empty timeline, exit 0.
        let none = demo(["history", "alice", "--entitlement", "family"])
        XCTAssertEqual(none.status, .success, none.stderr)
        XCTAssertEqual(none.stdout, "alice: no history\n")
    }

    // MARK: the gate

    func testRequireOverABatchNamesEachUserThatFailedAndWhy() {
        let result = demo(["check", "-", "--require", "premium", "-q"], stdin: "alice\nerin\ntrent\nheidi\nbob\n")
        XCTAssertEqual(result.status, .requirementMissing)
        XCTAssertEqual(result.stdout, "")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stderr)
        XCTAssertTrue(lines[0].hasPrefix("subs: 'erin' lacks 'premium': billing retry — billing issue detected 2026-10-21"), lines[0])
        XCTAssertEqual(lines[1], "subs: 'trent' lacks 'premium': never had it")
        XCTAssertEqual(lines[2], "subs: 'heidi' lacks 'premium': cancelled on 2026-07-29, expired on 2026-08-04")
        // Two entitlements: each one missing is named.
        let two = demo(["check", "nina", "oscar", "sybil", "--require", "family", "--require", "pro_plus", "-q"])
        XCTAssertEqual(two.stderr, """
            subs: 'nina' lacks 'pro_plus': never had it
            subs: 'oscar' lacks 'pro_plus': never had it
            subs: 'sybil' lacks 'family': never had it

            """)
    }

    func testEnvironmentDecidesWhichPurchasesCountAndGrantsAlwaysCount() throws {
        // peggy's premium comes from a sandbox purchase only.
        XCTAssertEqual(demo(["check", "peggy", "--require", "premium", "-q"]).status, .success)
        let production = demo(["check", "peggy", "--require", "premium", "--environment", "production", "-q"])
        XCTAssertEqual(production.status, .requirementMissing)
        XCTAssertEqual(production.stderr, "subs: 'peggy' lacks 'premium': no production purchase or grant of it\n")
        XCTAssertEqual(demo(["check", "peggy", "--require", "premium", "--environment", "sandbox", "-q"]).status, .success)
        XCTAssertEqual(demo(["check", "alice", "--require", "premium", "--environment", "sandbox", "-q"]).status,
                       .requirementMissing)
        // Grants count in every environment.
        for environment in ["production", "sandbox", "any"] {
            let liam = try JSON.parse(demo(["check", "liam", "--environment", environment, "--json"]).stdout)
            XCTAssertEqual(liam["activeEntitlements"], .array([.string("early_access"), .string("premium")]), environment)
        }
        // The JSON of a filtered check lists only what counted.
        let filtered = try JSON.parse(demo(["check", "peggy", "alice", "--environment", "production", "--json"]).stdout)
        XCTAssertEqual(filtered.arrayValue?[0]["entitlements"], .object(JSONObject()))
        XCTAssertEqual(filtered.arrayValue?[1]["activeEntitlements"], .array([.string("premium")]))
        // A bad value is a usage error with a suggestion.
        let bad = demo(["check", "peggy", "--environment", "prod"])
        XCTAssertEqual(bad.status, .usage)
        XCTAssertTrue(bad.stderr.contains("one of production, sandbox, any"), bad.stderr)
    }

    func testAProductionChainStillDescribesWhatASandboxPurchaseKeepsActive() throws {
        let dir = TempDir()
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"m": {"type": "subscription", "entitlements": ["premium"]}},
             "customers": {"u": {"transactions": [
               {"transactionId": "p1", "originalTransactionId": "p1", "productId": "m", "type": "subscriptionStarted",
                "transactionDate": "2026-09-01T00:00:00Z", "expirationDate": "2026-10-01T00:00:00Z"},
               {"transactionId": "s1", "originalTransactionId": "s1", "productId": "m", "type": "subscriptionStarted",
                "transactionDate": "2026-11-15T00:00:00Z", "expirationDate": "2026-12-15T00:00:00Z", "environment": "sandbox"}]}}}
            """)
        let any = try JSON.parse(runCLI(["--store", store, "check", "u", "--json"]).stdout)
        XCTAssertEqual(any["entitlements"]?["premium"]?["isSandbox"], .bool(true))
        let production = try JSON.parse(runCLI(["--store", store, "check", "u", "--json", "--environment", "production"]).stdout)
        XCTAssertEqual(production["entitlements"]?["premium"]?["state"], .string("expired"))
        XCTAssertEqual(production["entitlements"]?["premium"]?["transactions"]?.arrayValue?.count, 1)
    }

    // MARK: exit statuses

    func testAMissingAPIKeyFileIsAConfigurationError() {
        let result = runCLI(["--remote", "http://127.0.0.1:9", "--api-key-file", "/nonexistent/key", "check", "alice"])
        XCTAssertEqual(result.status, .configError, result.stderr)
        XCTAssertTrue(result.stderr.contains("/nonexistent/key: cannot read the API key file"), result.stderr)
        let dir = TempDir()
        let directory = runCLI(["--remote", "http://127.0.0.1:9", "--api-key-file", dir.path, "check", "alice"])
        XCTAssertEqual(directory.status, .configError, directory.stderr)
    }

    func testAnAPIKeyFileThisUserMayNotReadIsPermissionDenied() throws {
        try XCTSkipIf(geteuid() == 0, "root reads every file: permission cannot be denied")
        let dir = TempDir()
        let key = dir.write("key", "secret\n")
        chmod(key, 0)
        let result = runCLI(["--remote", "http://127.0.0.1:9", "--api-key-file", key, "check", "alice"])
        XCTAssertEqual(result.status, .permissionDenied, result.stderr)
    }

    // MARK: the newcomer

    func testWithoutAStoreTheMessageSaysHowToNameOneOrTryTheDemo() {
        let dir = TempDir()
        for args in [["check", "alice"], ["history", "alice"], ["renew-count", "alice"]] {
            let result = runCLI(args, env: ["HOME": dir.path, "XDG_DATA_HOME": ""])
            XCTAssertEqual(result.status, .noInput, "\(args)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            for words in ["\(dir.path)/.local/share/subs/store.json: no such store", "--store PATH", "SUBS_STORE",
                          "'subs store init'", "'subs store init --demo'", "examples/store.json"] {
                XCTAssertTrue(result.stderr.contains(words), "\(words) missing: \(result.stderr)")
            }
        }
    }

    // MARK: dates in every printed form

    func testEveryDateFormSubsPrintsIsAcceptedByEveryDateOption() throws {
        for form in ["2026-12-12 14:30Z", "2026-12-12T14:30Z", "2026-12-12T14:30:00Z", "2026-12-12T15:30+01:00",
                     "2026-12-12 15:30:00+01:00"] {
            let doc = try JSON.parse(demo(["check", "dave", "--at", form, "--json"]).stdout)
            XCTAssertEqual(doc["requestDate"], .string("2026-12-12T14:30:00Z"), form)
            XCTAssertEqual(doc["entitlements"]?["premium"]?["state"], .string("billingRetry"), "\(form): the grace ends then")
            for option in ["--since", "--until"] {
                XCTAssertEqual(demo(["history", "dave", option, form, "-q"]).status, .success, "\(option) \(form)")
            }
        }
        for bad in ["2026-12-12 14:30", "2026-12-12  14:30Z", "2026-12-12T14Z", "2026-12-12x14:30Z"] {
            let result = demo(["check", "dave", "--at", bad])
            XCTAssertEqual(result.status, .usage, bad)
            XCTAssertTrue(result.stderr.contains("2026-03-01 12:00Z"), result.stderr)
        }
    }
}
