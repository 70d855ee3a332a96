// man/subs.1: equal to the generator, clean under `mandoc -Tlint`, and complete: every command,
// option, exit status, environment variable, field and JSON key is in it.

import XCTest
@testable import SubsCLI

final class ManPageTests: XCTestCase {
    let page = ManPage.render()

    /// The text of one `.Sh` section of the mdoc source.
    func section(_ name: String) -> String {
        guard let start = page.range(of: "\n.Sh \(name)\n") else { return "" }
        let rest = page[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n.Sh ")?.lowerBound ?? rest.endIndex)])
    }

    func testCommittedManPageIsWhatTheGeneratorPrints() {
        assertMatchesRecorded(page, "man/subs.1")
    }

    func testMandocLintFindsNothing() throws {
        let result = try runProcess(try requireTool("mandoc"), ["-Tlint", repositoryRoot + "/man/subs.1"])
        // Whether jq(1) is installed and indexed is the machine's business, not the page's:
        // only those two notes about the `.Xr jq 1` cross-reference are let through.
        XCTAssertEqual(Self.lintMessages(result), [], "mandoc -Tlint man/subs.1")
    }

    /// Whether jq(1) or subs' own pages are installed and indexed is the machine's business, not
    /// the page's: only notes about `.Xr` cross-references are let through.
    static func lintMessages(_ result: ProcessResult) -> [Substring] {
        (result.stdout + result.stderr).split(separator: "\n").filter {
            !$0.contains("outdated mandoc.db lacks") && !$0.contains("STYLE: referenced manual not found: Xr ")
        }
    }

    func testStoreFormatPageLintsCleanAndNamesEveryField() throws {
        let path = repositoryRoot + "/man/subs-store.5"
        let result = try runProcess(try requireTool("mandoc"), ["-Tlint", path])
        XCTAssertEqual(Self.lintMessages(result), [], "mandoc -Tlint man/subs-store.5")
        let page = try String(contentsOfFile: path, encoding: .utf8)
        // Every field of the store format (the decoder reads exactly these).
        let fields = ["schemaVersion", "products", "customers", "type", "entitlements", "gracePeriod",
                      "billingRetryPeriod", "aliases", "firstSeen", "attributes", "transactions", "events",
                      "grants", "transactionId", "originalTransactionId", "productId", "transactionDate",
                      "expirationDate", "source", "environment", "ownershipType", "offerCode", "orderId",
                      "transactionRevocationDate", "date", "autoResumeDate", "id", "entitlement", "grantedAt",
                      "grantedBy", "reason", "revokedAt", "revokedBy", "revokeReason"]
        for field in fields {
            XCTAssertTrue(page.contains(".It Sy \(field)") || page.contains("Sy \(field) ,") || page.contains(", \(field)"),
                          "subs-store(5) does not document \(field)")
        }
        let values = ["subscription", "nonConsumable", "consumable", "trialStarted", "introStarted", "introRenewed",
                      "subscriptionStarted", "subscriptionRenewed", "nonConsumablePurchase", "consumablePurchase",
                      "appstore", "playstore", "stripe", "amazon", "unknown", "production", "sandbox", "owner",
                      "familySharing", "autoRenewDisabled", "autoRenewEnabled", "billingIssue", "billingRecovered",
                      "renewalProductChanged", "pauseScheduled", "pauseCanceled"]
        for value in values {
            XCTAssertTrue(page.contains(".Cm \(value)"), "subs-store(5) does not name \(value)")
        }
    }

    func testSectionsInConventionalOrder() {
        let names = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "ENTITLEMENT STATES AND FIELDS",
                     "OUTPUT", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]
        var last = page.startIndex
        for name in names {
            guard let range = page.range(of: "\n.Sh \(name)\n", range: last..<page.endIndex) else {
                return XCTFail("section \(name) missing or out of order")
            }
            last = range.upperBound
        }
        XCTAssertTrue(section("SEE ALSO").contains(".Xr jq 1"))
    }

    func testEveryCommandAndOptionIsDocumented() {
        let commands = section("COMMANDS"), options = section("OPTIONS"), synopsis = section("SYNOPSIS")
        for spec in CommandLineSpec.subs.visibleCommands {
            XCTAssertTrue(commands.contains(".It Cm \(spec.name.rawValue)"), "\(spec.name.rawValue) missing from COMMANDS")
            XCTAssertTrue(synopsis.contains(".Cm \(spec.name.rawValue)\n"), "\(spec.name.rawValue) missing from SYNOPSIS")
            for option in spec.options where !option.hidden {
                XCTAssertTrue(options.contains("Fl -\(option.long)"), "\(option.longName) of \(spec.name.rawValue) missing")
            }
        }
        for option in CommandLineSpec.subs.globalOptions where !option.hidden {
            XCTAssertTrue(options.contains(".It " + (option.short.map { "Fl \($0) , " } ?? "") + "Fl -\(option.long)"),
                          "\(option.longName) missing from OPTIONS")
            if let variable = option.environment { XCTAssertTrue(options.contains("Environment: \(variable).")) }
        }
        XCTAssertFalse(page.contains("__complete"), "hidden commands stay out of the man page")
    }

    func testEveryExitStatusOfTheSpecIsDocumented() {
        let exit = section("EXIT STATUS")
        for code in [0, 1, 3, 64, 65, 66, 69, 70, 73, 74, 75, 76, 77, 78, 130, 141] {
            XCTAssertTrue(exit.contains("\n.It \(code)\n") || exit.hasPrefix(".It \(code)\n"), "exit status \(code) missing")
        }
        let statics: [ExitCode] = [.success, .requirementMissing, .notFound, .usage, .dataError, .noInput, .unavailable,
                                   .internalError, .cannotWrite, .cannotWriteOutput, .temporaryFailure, .protocolError,
                                   .permissionDenied, .configError, .interrupted, .brokenPipe]
        XCTAssertEqual(statics.map(\.rawValue), ExitCode.meanings.map(\.code.rawValue))
    }

    func testEnvironmentAndFiles() {
        let environment = section("ENVIRONMENT")
        for variable in ["SUBS_STORE", "SUBS_REMOTE", "SUBS_PROVIDER", "SUBS_API_KEY_FILE", "SUBS_API_KEY", "SUBS_FORMAT",
                         "SUBS_TIMEOUT", "SUBS_CONFIG", "SUBS_NOW", "SUBS_ACTOR", "USER", "SUBS_LOCK_TIMEOUT",
                         "SUBS_SERVER_TOKEN", "NO_COLOR", "TERM", "COLUMNS", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                         "XDG_CACHE_HOME"] {
            XCTAssertTrue(environment.contains(".It Ev \(variable)\n"), "\(variable) missing from ENVIRONMENT")
        }
        let files = section("FILES")
        for path in ["$XDG_DATA_HOME/subs/store.json", "STORE.lock", "$XDG_CONFIG_HOME/subs/config", "$XDG_CACHE_HOME/subs/"] {
            XCTAssertTrue(files.contains(".It Pa \(path)\n"), "\(path) missing from FILES")
        }
    }

    func testStatesAndFieldsOfSpecSection3() {
        let text = section("ENTITLEMENT STATES AND FIELDS")
        for word in ["active", "gracePeriod", "billingRetry", "paused", "expired", "revoked",
                     "isActive", "state", "renewState", "willRenew", "periodType", "source", "grantType", "productId",
                     "startedDate", "trialStartDate", "firstPurchaseDate", "lastPurchaseDate", "expirationDate",
                     "gracePeriodExpirationDate", "billingIssueDetectedAt", "autoRenewDisableDate", "autoResumeDate",
                     "renewalProductId", "renewsCount", "isSandbox", "lastActivatedOfferCode", "grantId", "transactions",
                     "accessEndDate", "billingRetryEndDate", "pauseEndedDate", "grantedBy", "refundedAt", "revokedAt",
                     "revokedBy"] {
            XCTAssertTrue(text.contains(".It Li \(word)\n"), "\(word) missing")
        }
        for value in ["willRenew", "canceled", "billingIssue", "nonRenewable", "unknown", "trial", "intro", "promotional", "prepaid",
                      "appstore", "playstore", "stripe", "amazon", "manual", "familySharing", "offerCode"] {
            XCTAssertTrue(text.contains(value), "value \(value) missing")
        }
    }

    func testOutputDocumentsListEveryKey() {
        let text = section("OUTPUT")
        let keys = ["customerId", "requestDate", "projected", "aliases", "firstSeen", "attributes", "activeEntitlements", "entitlements",
                    "transactionId", "originalTransactionId", "productId", "type", "transactionDate", "expirationDate",
                    "environment", "ownershipType", "offerCode", "orderId", "transactionRevocationDate",
                    "term", "matches", "matchedBy", "email",
                    "entries", "date", "kind", "grantId", "grantedBy", "reason", "revokedBy", "revokeReason",
                    "entitlement", "renewsCount", "byEntitlement", "dryRun", "grants", "grantedAt", "revokedAt", "displayName"]
        for key in keys { XCTAssertTrue(text.contains(key), "\(key) missing from OUTPUT") }
        for format in ["table", "tsv", "json", "jsonl"] { XCTAssertTrue(text.contains(format)) }
    }

    func testExamplesTheBriefAsksFor() {
        let text = section("EXAMPLES")
        for example in ["subs check alice\n", "subs check alice --require premium -q\n", "| jq -r",
                        "subs grant - early_access --duration P3M < ids.txt\n"] {
            XCTAssertTrue(text.contains(example), "example '\(example)' missing")
        }
    }

    func testEscapingAndOneSentencePerLine() {
        XCTAssertEqual(ManPage.escapeLine(".hidden"), "\\&.hidden")
        XCTAssertEqual(ManPage.escapeLine("'quoted'"), "\\&'quoted'")
        XCTAssertEqual(ManPage.escapeLine("a\\b"), "a\\eb")
        XCTAssertEqual(ManPage.sentences("One. Two? Three! four"), ["One.", "Two?", "Three!", "four"])
        XCTAssertEqual(ManPage.sentences("Keep 0.5 and ~/.config whole."), ["Keep 0.5 and ~/.config whole."])
    }

    func testRenderedPageShowsEveryOptionAndCommand() throws {
        let result = try runProcess(try requireTool("mandoc"), ["-Tascii", "-Owidth=200", repositoryRoot + "/man/subs.1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // -Tascii draws bold and underline by overstriking: "X\bX", "_\bX".
        var scalars: [Unicode.Scalar] = []
        for scalar in result.stdout.unicodeScalars {
            if scalar == "\u{8}" { _ = scalars.popLast() } else { scalars.append(scalar) }
        }
        let plain = String(String.UnicodeScalarView(scalars))
        XCTAssertTrue(plain.hasPrefix("SUBS(1)"))
        XCTAssertTrue(plain.contains("\nEXIT STATUS\n"))
        for option in CommandLineSpec.subs.globalOptions + CommandLineSpec.subs.visibleCommands.flatMap(\.options) {
            XCTAssertTrue(plain.contains(option.longName), "\(option.longName) not rendered")
        }
        for spec in CommandLineSpec.subs.visibleCommands {
            XCTAssertTrue(plain.contains("subs \(spec.name.rawValue) [options]"), "\(spec.name.rawValue) not in the synopsis")
        }
    }
}
