// The hand-rolled parser against SPEC section 1: shapes of arguments, values by kind,
// per-command rules, did-you-mean, and the three-line usage error of CLI.run.

import XCTest
import SubsModel
@testable import SubsCLI

/// A fixed "now" for parsing: 2026-11-22T10:00:00Z.
let parserNow = Instant(seconds: 1_795_341_600)

/// Parses with no environment (so no config file is looked for) unless one is given.
func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> ParseOutcome {
    try CommandLineParser.parse(arguments: arguments, of: .subs, environment: environment, now: parserNow)
}

func invocation(_ arguments: [String], environment: [String: String] = [:],
                file: StaticString = #filePath, line: UInt = #line) throws -> Invocation {
    let outcome = try parse(arguments, environment: environment)
    guard case .run(let invocation) = outcome else {
        XCTFail("expected a command to run, got \(outcome)", file: file, line: line)
        throw UsageError("not a run")
    }
    return invocation
}

func usageError(_ arguments: [String], environment: [String: String] = [:],
                file: StaticString = #filePath, line: UInt = #line) -> UsageError? {
    do {
        let outcome = try parse(arguments, environment: environment)
        XCTFail("expected a usage error, got \(outcome)", file: file, line: line)
    } catch let error as UsageError {
        return error
    } catch {
        XCTFail("expected a usage error, got \(error)", file: file, line: line)
    }
    return nil
}

final class ParserTests: XCTestCase {
    private typealias O = CommandLineSpec.Options

    func testOptionValuesArriveTyped() throws {
        let inv = try invocation(["--timeout", "0.5", "--max-age", "PT1H", "history", "a", "--since", "2026-03-01",
                                  "--limit", "7"])
        XCTAssertEqual(inv.global.timeout, 0.5)
        XCTAssertEqual(inv.global.maxAge, ISODuration(hours: 1))
        XCTAssertEqual(inv.instant(O.since), ISODate.parse("2026-03-01T00:00:00Z"))
        XCTAssertEqual(inv.count(O.limit), 7)
        XCTAssertEqual(inv.options[O.since.long], [.instant(ISODate.parse("2026-03-01T00:00:00Z")!)])
    }

    func testCheckTakesUsersAndKeepsDashForStandardInput() throws {
        let inv = try invocation(["check", "alice", "-", "bob"])
        XCTAssertEqual(inv.command, .check)
        XCTAssertEqual(inv.positionals, ["alice", "-", "bob"])
        XCTAssertEqual(inv.options.count, 0)
    }

    func testGlobalOptionsBeforeOrAfterTheCommand() throws {
        for args in [["--format", "json", "check", "alice"], ["check", "alice", "--format", "json"],
                     ["check", "--format", "json", "alice"]] {
            let inv = try invocation(args)
            XCTAssertEqual(inv.global.format, .json, "\(args)")
            XCTAssertEqual(inv.positionals, ["alice"], "\(args)")
        }
    }

    func testNameEqualsValueForm() throws {
        let inv = try invocation(["check", "--format=tsv", "--require=premium", "--store=/tmp/s.json", "alice"])
        XCTAssertEqual(inv.global.format, .tsv)
        XCTAssertEqual(inv.texts(O.require), ["premium"])
        XCTAssertEqual(inv.global.store, "/tmp/s.json")
        // A value may itself contain '=' and start with '-' in this form.
        let grant = try invocation(["grant", "alice", "premium", "--lifetime", "--reason=-a=b"])
        XCTAssertEqual(grant.text(O.reason), "-a=b")
    }

    func testShortAndLongQuiet() throws {
        XCTAssertTrue(try invocation(["-q", "check", "alice"]).global.quiet)
        XCTAssertTrue(try invocation(["check", "alice", "--quiet"]).global.quiet)
        XCTAssertFalse(try invocation(["check", "alice"]).global.quiet)
    }

    func testDoubleDashEndsOptionParsing() throws {
        let inv = try invocation(["check", "--", "-x", "--help", "--json"])
        XCTAssertEqual(inv.positionals, ["-x", "--help", "--json"])
        XCTAssertEqual(inv.global.format, .table)
        let grant = try invocation(["grant", "--lifetime", "--", "-weird-id", "premium"])
        XCTAssertEqual(grant.positionals, ["-weird-id", "premium"])
    }

    func testRepeatableOptionKeepsEveryValueInOrder() throws {
        let inv = try invocation(["check", "alice", "--require", "premium", "--require", "pro", "--active"])
        XCTAssertEqual(inv.texts(O.require), ["premium", "pro"])
        XCTAssertTrue(inv.flag(O.active))
        XCTAssertFalse(inv.flag(O.dryRun))
    }

    func testAliasesAndLastOneWins() throws {
        XCTAssertEqual(try invocation(["--json", "check", "a"]).global.format, .json)
        XCTAssertEqual(try invocation(["--json", "check", "a", "--format", "tsv"]).global.format, .tsv)
        XCTAssertEqual(try invocation(["--format", "tsv", "check", "a", "--json"]).global.format, .json)
        XCTAssertEqual(try invocation(["check", "a", "--no-color"]).global.color, .never)
        XCTAssertEqual(try invocation(["check", "a", "--color", "always"]).global.color, .always)
        XCTAssertEqual(try invocation(["check", "a"]).global.color, .auto)
    }

    func testEveryGlobalOptionReachesGlobalOptions() throws {
        let inv = try invocation(["check", "a", "--store", "s.json", "--remote", "http://127.0.0.1:1",
                                  "--provider", "revenuecat", "--api-key-file", "k", "--at", "2026-03-01",
                                  "--timeout", "2.5", "--offline", "--max-age", "PT12H"])
        XCTAssertEqual(inv.global.store, "s.json")
        XCTAssertEqual(inv.global.remote, "http://127.0.0.1:1")
        XCTAssertEqual(inv.global.provider, Provider(rawValue: "revenuecat"))
        XCTAssertEqual(inv.global.apiKeyFile, "k")
        XCTAssertEqual(inv.global.at, ISODate.parse("2026-03-01T00:00:00Z"))
        XCTAssertEqual(inv.global.timeout, 2.5)
        XCTAssertTrue(inv.global.offline)
        XCTAssertEqual(inv.global.maxAge, ISODuration(hours: 12))
    }

    func testAtNowIsTheClock() throws {
        XCTAssertEqual(try invocation(["check", "a", "--at", "now"]).global.at, parserNow)
        XCTAssertNil(try invocation(["check", "a"]).global.at)
    }

    func testStoreSubcommands() throws {
        let initInv = try invocation(["store", "init", "--demo"])
        XCTAssertEqual(initInv.command, .storeInit)
        XCTAssertTrue(initInv.flag(O.demo))
        XCTAssertEqual(try invocation(["--store", "x.json", "store", "validate"]).command, .storeValidate)
        XCTAssertEqual(try invocation(["store", "--json", "validate"]).global.format, .json)

        let alone = usageError(["store"])
        XCTAssertEqual(alone?.message, "store: missing subcommand: init or validate or compact")
        let unknown = usageError(["store", "inti"])
        XCTAssertEqual(unknown?.message, "store: unknown subcommand 'inti' (use init or validate or compact)")
        XCTAssertEqual(unknown?.suggestion, "store init")
        XCTAssertEqual(usageError(["store", "validate", "extra"])?.message, "store validate: too many arguments")
        XCTAssertEqual(usageError(["store", "validate", "--demo"])?.message, "unknown option '--demo'")
    }

    func testHelpFromEveryDirection() throws {
        func help(_ args: [String]) throws -> String {
            switch try parse(args) {
            case .help(let name): return "help:" + (name?.rawValue ?? "-")
            case .groupHelp(let group): return "group:" + group
            case .version: return "version"
            case .run(let inv): return "run:" + inv.command.rawValue
            }
        }
        XCTAssertEqual(try help(["help"]), "help:-")
        XCTAssertEqual(try help(["--help"]), "help:-")
        XCTAssertEqual(try help(["-h"]), "help:-")
        XCTAssertEqual(try help(["help", "check"]), "help:check")
        XCTAssertEqual(try help(["check", "--help"]), "help:check")
        XCTAssertEqual(try help(["check", "alice", "-h"]), "help:check")
        XCTAssertEqual(try help(["help", "renew-count"]), "help:renew-count")
        XCTAssertEqual(try help(["help", "store", "init"]), "help:store init")
        XCTAssertEqual(try help(["store", "init", "--help"]), "help:store init")
        XCTAssertEqual(try help(["help", "store"]), "group:store")
        XCTAssertEqual(try help(["store", "--help"]), "group:store")
        XCTAssertEqual(try help(["help", "--help"]), "help:help")
        // Help wins over mistakes elsewhere on the line, as in swift-argument-parser.
        XCTAssertEqual(try help(["check", "--jsn", "--help"]), "help:check")
        XCTAssertEqual(try help(["grant", "alice", "--help"]), "help:grant")
        XCTAssertEqual(try help(["--version"]), "version")
        // After "--", -h is a customer id.
        XCTAssertEqual(try help(["check", "--", "-h"]), "run:check")

        let unknown = usageError(["help", "chek"])
        XCTAssertEqual(unknown?.message, "unknown command 'chek'")
        XCTAssertEqual(unknown?.suggestion, "check")
        XCTAssertEqual(unknown?.command, .help)
    }

    func testFlagGivenAValueIsAnError() {
        XCTAssertEqual(usageError(["check", "a", "--quiet=x"])?.message, "option '--quiet' takes no value")
        XCTAssertEqual(usageError(["grant", "a", "p", "--lifetime=yes"])?.message, "option '--lifetime' takes no value")
        XCTAssertEqual(usageError(["check", "a", "--json=1"])?.message, "option '--json' takes no value")
    }

    func testUnknownOptionSuggestsTheClosestValidOne() {
        let jsn = usageError(["check", "--jsn", "alice"])
        XCTAssertEqual(jsn?.message, "unknown option '--jsn'")
        XCTAssertEqual(jsn?.suggestion, "--json")
        XCTAssertEqual(jsn?.command, .check)
        XCTAssertEqual(usageError(["check", "alice", "--requier", "premium"])?.suggestion, "--require")
        XCTAssertEqual(usageError(["grant", "a", "p", "--lifetiem"])?.suggestion, "--lifetime")
        XCTAssertEqual(usageError(["--stroe", "x", "check", "a"])?.suggestion, "--store")
        // Nothing close: no suggestion line.
        let far = usageError(["check", "alice", "--frobnicate"])
        XCTAssertEqual(far?.message, "unknown option '--frobnicate'")
        XCTAssertNil(far?.suggestion)
        // Only options valid for the command are suggested: --duration belongs to grant.
        let other = usageError(["check", "alice", "--duratio", "P1D"])
        XCTAssertEqual(other?.message, "unknown option '--duratio'")
        XCTAssertNil(other?.suggestion)
        // A command option before the command name is not known yet.
        XCTAssertEqual(usageError(["--require", "p", "check", "a"])?.message, "unknown option '--require'")
    }

    func testUnknownCommandSuggestsTheClosestOne() {
        let chek = usageError(["chek", "alice"])
        XCTAssertEqual(chek?.message, "unknown command 'chek'")
        XCTAssertEqual(chek?.suggestion, "check")
        XCTAssertNil(chek?.command)
        XCTAssertEqual(usageError(["renewcount", "a"])?.suggestion, "renew-count")
        XCTAssertEqual(usageError(["histroy", "a"])?.suggestion, "history")
        XCTAssertNil(usageError(["launch"])?.suggestion)
        // Hidden commands are never suggested.
        XCTAssertNil(usageError(["__complet"])?.suggestion)
        XCTAssertEqual(usageError([])?.message, "missing command")
    }

    func testOptionNeedsAValue() {
        XCTAssertEqual(usageError(["check", "alice", "--at"])?.message, "option '--at' needs a value")
        XCTAssertEqual(usageError(["check", "alice", "--at", "--json"])?.message, "option '--at' needs a value")
        XCTAssertEqual(usageError(["grant", "a", "p", "--lifetime", "--reason", "--dry-run"])?.message,
                       "option '--reason' needs a value")
        // A value that starts with "-" and is no option: the message says how to give it.
        XCTAssertEqual(usageError(["grant", "a", "p", "--lifetime", "--reason", "-refund, see ticket"])?.message,
                       "option '--reason' needs a value; to give one that starts with '-', write it after '=': --reason=-refund, see ticket")
        XCTAssertEqual(usageError(["grant", "a", "p", "--lifetime", "--actor", "-x\u{1b}[2J"])?.message,
                       "option '--actor' needs a value; to give one that starts with '-', write it after '=': --actor=-x\\x1b[2J")
        XCTAssertEqual(usageError(["grant", "a", "p", "--duration", "-P1D"])?.message,
                       "option '--duration' needs a value; to give one that starts with '-', write it after '=': --duration=-P1D")
        XCTAssertEqual(usageError(["check", "a", "--at", "--format=json"])?.message, "option '--at' needs a value")
        XCTAssertEqual(usageError(["check", "a", "--at", "-q"])?.message, "option '--at' needs a value")
    }

    func testChoiceValues() throws {
        let format = usageError(["check", "a", "--format", "xml"])
        XCTAssertEqual(format?.message, "option '--format': 'xml' is not one of table, json, jsonl, tsv, csv")
        XCTAssertEqual(format?.command, .check)
        XCTAssertEqual(usageError(["check", "a", "--format", "jsnl"])?.suggestion, "jsonl")
        XCTAssertEqual(usageError(["check", "a", "--color", "sometimes"])?.message,
                       "option '--color': 'sometimes' is not one of auto, always, never")
        XCTAssertEqual(usageError(["check", "a", "--provider", "stripe"])?.message,
                       "option '--provider': 'stripe' is not one of subs, revenuecat, qonversion, iaphub")
        let shell = usageError(["completion", "tcsh"])
        XCTAssertEqual(shell?.message, "completion: SHELL 'tcsh' is not one of bash, zsh, fish")
        XCTAssertEqual(shell?.command, .completion)
        XCTAssertEqual(try invocation(["completion", "fish"]).positionals, ["fish"])
    }

    func testTimeoutIsAPositiveNumberOfSeconds() throws {
        XCTAssertEqual(try invocation(["check", "a", "--timeout", "0.5"]).global.timeout, 0.5)
        XCTAssertEqual(try invocation(["check", "a", "--timeout", "30"]).global.timeout, 30)
        XCTAssertEqual(try invocation(["check", "a", "--timeout", ".25"]).global.timeout, 0.25)
        XCTAssertEqual(try invocation(["check", "a"]).global.timeout, 10)
        for bad in ["0", "0.0", "-1", "abc", "1e3", "inf", "nan", "", "1.2.3", "."] {
            XCTAssertEqual(usageError(["check", "a", "--timeout=\(bad)"])?.message,
                           "option '--timeout': '\(bad)' is not a positive number of seconds", bad)
        }
    }

    func testLimitIsANonNegativeInteger() throws {
        XCTAssertEqual(try invocation(["history", "a", "--limit", "5"]).count(O.limit), 5)
        XCTAssertEqual(try invocation(["history", "a", "--limit", "0"]).count(O.limit), 0)
        for bad in ["-1", "x", "1.5", "", "+3", "99999999999999999999999"] {
            XCTAssertEqual(usageError(["history", "a", "--limit=\(bad)"])?.message,
                           "option '--limit': '\(bad)' is not a non-negative integer", bad)
        }
    }

    func testDatesAreCheckedWithTheAcceptedFormsInTheMessage() throws {
        XCTAssertEqual(usageError(["check", "alice", "--at", "yesterday"])?.message,
                       "option '--at': 'yesterday' is not a date (use 2026-03-01T12:00:00Z, 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 or now)")
        XCTAssertEqual(usageError(["history", "a", "--since", "2026-02-30"])?.message,
                       "option '--since': '2026-02-30' is not a date (use 2026-03-01T12:00:00Z, 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 or now)")
        XCTAssertEqual(usageError(["grant", "a", "p", "--until", "01/03/2026"])?.message,
                       "option '--until': '01/03/2026' is not a date (use 2026-03-01T12:00:00Z, 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 or now)")
        for good in ["2026-03-01T12:00:00Z", "2026-03-01T12:00:00.5+02:00", "2026-03-01", "now"] {
            XCTAssertNotNil(try invocation(["history", "a", "--until", good]).instant(O.historyUntil), good)
        }
    }

    func testDurationsAreCheckedAsISO8601() throws {
        XCTAssertEqual(try invocation(["grant", "a", "p", "--duration", "P3M"]).duration(O.duration), ISODuration(months: 3))
        XCTAssertEqual(try invocation(["grant", "a", "p", "--duration", "P1Y2M3DT4H"]).duration(O.duration), ISODuration(years: 1, months: 2, days: 3, hours: 4))
        XCTAssertEqual(usageError(["grant", "a", "p", "--duration", "3 months"])?.message,
                       "option '--duration': '3 months' is not a duration (use ISO 8601: P7D, P2W, P3M, P1Y, PT12H)")
        XCTAssertEqual(usageError(["check", "a", "--max-age", "1h"])?.message,
                       "option '--max-age': '1h' is not a duration (use ISO 8601: P7D, P2W, P3M, P1Y, PT12H)")
    }

    func testListenIsHostColonPort() throws {
        for good in ["127.0.0.1:8787", "[::1]:0", "localhost:80", "0.0.0.0:65535"] {
            XCTAssertNotNil(try invocation(["serve", "--listen", good]).hostPort(O.listen), good)
        }
        for bad in [":8787", "localhost", "host:99999", "::1:80", "[::1]", "host:", "host:8x", "[]:80"] {
            XCTAssertEqual(usageError(["serve", "--listen=\(bad)"])?.message,
                           "option '--listen': '\(bad)' is not HOST:PORT (e.g. 127.0.0.1:8787 or [::1]:8787)", bad)
        }
    }

    func testArgumentCountsPerCommand() throws {
        XCTAssertEqual(usageError(["check"])?.message, "check: missing USER")
        XCTAssertEqual(usageError(["check"])?.command, .check)
        XCTAssertEqual(usageError(["grant", "--lifetime"])?.message, "grant: missing USER")
        XCTAssertEqual(usageError(["grant", "alice", "--lifetime"])?.message, "grant: missing ENTITLEMENT")
        XCTAssertEqual(usageError(["revoke", "alice"])?.message, "revoke: missing ENTITLEMENT")
        XCTAssertEqual(usageError(["history"])?.message, "history: missing USER")
        // history takes several customers, as check and find do (issue 30).
        XCTAssertEqual(try invocation(["history", "a", "b"]).positionals, ["a", "b"])
        XCTAssertEqual(usageError(["renew-count"])?.message, "renew-count: missing USER")
        XCTAssertEqual(usageError(["renew-count", "a", "b", "c"])?.message, "renew-count: too many arguments")
        XCTAssertEqual(usageError(["completion"])?.message, "completion: missing SHELL")
        XCTAssertEqual(usageError(["completion", "bash", "zsh"])?.message, "completion: too many arguments")
        XCTAssertEqual(usageError(["serve", "x"])?.message, "serve: too many arguments")
        XCTAssertEqual(usageError(["store", "init", "x"])?.message, "store init: too many arguments")

        XCTAssertEqual(try invocation(["renew-count", "a"]).positionals, ["a"])
        XCTAssertEqual(try invocation(["renew-count", "a", "premium"]).positionals, ["a", "premium"])
        XCTAssertEqual(try invocation(["grant", "a", "b", "c", "premium", "--lifetime"]).positionals,
                       ["a", "b", "c", "premium"])
        XCTAssertEqual(try invocation(["revoke", "a", "premium"]).positionals, ["a", "premium"])
        XCTAssertEqual(usageError(["check", ""])?.message, "check: USER must not be empty")
    }

    func testGrantNeedsExactlyOneExpiry() throws {
        let message = "grant: give exactly one of --duration, --until, --lifetime"
        XCTAssertEqual(usageError(["grant", "a", "p"])?.message, message)
        XCTAssertEqual(usageError(["grant", "a", "p"])?.command, .grant)
        XCTAssertEqual(usageError(["grant", "a", "p", "--lifetime", "--duration", "P1D"])?.message, message)
        XCTAssertEqual(usageError(["grant", "a", "p", "--until", "2027-01-01", "--duration", "P1D"])?.message, message)
        let inv = try invocation(["grant", "a", "p", "--until", "2027-01-01", "--reason", "goodwill",
                                  "--actor", "dana", "--create", "--dry-run"])
        XCTAssertEqual(inv.instant(O.grantUntil), ISODate.parse("2027-01-01T00:00:00Z"))
        XCTAssertEqual(inv.text(O.reason), "goodwill")
        XCTAssertEqual(inv.text(O.actor), "dana")
        XCTAssertTrue(inv.flag(O.create) && inv.flag(O.dryRun))
        // revoke has no expiry at all.
        XCTAssertEqual(usageError(["revoke", "a", "p", "--lifetime"])?.message, "unknown option '--lifetime'")
    }

    func testHiddenCompleteCommandParses() throws {
        let inv = try invocation(["--store", "s.json", "__complete", "customers", "--", "al"])
        XCTAssertEqual(inv.command, .complete)
        XCTAssertEqual(inv.positionals, ["customers", "al"])
        XCTAssertEqual(inv.global.store, "s.json")
        XCTAssertEqual(try invocation(["__complete", "entitlements"]).positionals, ["entitlements"])
        XCTAssertEqual(usageError(["__complete", "products"])?.message,
                       "__complete: KIND 'products' is not one of customers, entitlements")
    }

    func testTildeInPathsMeansHome() throws {
        let env = ["HOME": "/home/dana"]
        XCTAssertEqual(try invocation(["check", "a", "--store=~/s.json"], environment: env).global.store,
                       "/home/dana/s.json")
        XCTAssertEqual(try invocation(["serve", "--token-file", "~/t"], environment: env).text(O.tokenFile),
                       "/home/dana/t")
        XCTAssertEqual(try invocation(["check", "a", "--store", "a~/s.json"], environment: env).global.store,
                       "a~/s.json")
    }

    func testEditDistanceCountsASwapAsOne() {
        XCTAssertEqual(EditDistance.distance("--jsno", "--json"), 1)
        XCTAssertEqual(EditDistance.distance("chek", "check"), 1)
        XCTAssertEqual(EditDistance.distance("", "abc"), 3)
        XCTAssertEqual(EditDistance.distance("kitten", "sitting"), 3)
        XCTAssertNil(EditDistance.closest(to: "kitten", among: ["sitting"]))
    }

    // MARK: CLI.run

    func testCLIPrintsAThreeLineUsageErrorAndExits64() {
        let run = runCLI(["check", "--jsn", "alice"])
        XCTAssertEqual(run.status, .usage)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, """
            subs: error: unknown option '--jsn'
            did you mean '--json'?
            usage: subs check [options] USER...

            """)
        let noSuggestion = runCLI(["history"])
        XCTAssertEqual(noSuggestion.status.rawValue, 64)
        XCTAssertEqual(noSuggestion.stderr, "subs: error: history: missing USER\nusage: subs history [options] USER...\n")
        let command = runCLI(["chek"])
        XCTAssertEqual(command.stderr,
                       "subs: error: unknown command 'chek'\ndid you mean 'check'?\nusage: subs [options] COMMAND [ARGS]\n")
    }

    func testCLIEscapesControlCharactersInErrors() {
        let run = runCLI(["check", "--\u{1b}[31m"])
        XCTAssertEqual(run.status, .usage)
        XCTAssertFalse(run.stderr.contains("\u{1b}"))
        XCTAssertTrue(run.stderr.contains("\\x1b[31m"), run.stderr)
    }

    func testCLIHelpAndVersionGoToStdoutWithStatus0() {
        let help = runCLI(["check", "--help"])
        XCTAssertEqual(help.status, .success)
        XCTAssertTrue(help.stdout.hasPrefix("OVERVIEW: "))
        XCTAssertEqual(help.stderr, "")
        let version = runCLI(["--version"])
        XCTAssertEqual(version.status, .success)
        XCTAssertEqual(version.stdout, "subs \(CLI.version)\n")
    }
}
