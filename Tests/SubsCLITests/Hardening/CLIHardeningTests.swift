// The CLI against hostile or broken input, in-process: environment variables, config files,
// stdin, raw argument bytes, data that tries to drive or reorder the terminal, huge values in
// messages, and a standard output that fails.

import Foundation
import SubsJSON
@testable import SubsCLI
import XCTest

final class CLIHardeningTests: XCTestCase {
    var dir: TempDir!
    var store = ""

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    // MARK: standard output that cannot be written (item 5)

    func run(_ arguments: [String], delivery: OutputDelivery, env: [String: String] = [:]) -> CLIResult {
        CLIHarness(env: env, delivery: delivery).run(arguments)
    }

    func testFailedOutputIsExit74OverSuccessAndNotFound() {
        for arguments in [["--store", store, "check", "alice"], ["--version"], ["help"], ["completion", "zsh"],
                          ["--store", store, "check", "alice", "nobody"]] {
            let result = run(arguments, delivery: .failed("No space left on device"))
            XCTAssertEqual(result.status, .cannotWriteOutput, "\(arguments)")
            XCTAssertEqual(result.stderr.components(separatedBy: "\n").last(where: { !$0.isEmpty }),
                           "subs: error: cannot write standard output: No space left on device", "\(arguments)")
        }
        // An error met first stays the status (SPEC 1: among errors, the first one met).
        let usage = run(["--store", store, "check", "--jsn"], delivery: .failed("Bad file descriptor"))
        XCTAssertEqual(usage.status, .usage)
    }

    func testClosedPipeIsSilent141() {
        for arguments in [["--store", store, "check", "alice"], ["--version"], ["completion", "bash"]] {
            let result = run(arguments, delivery: .closedPipe)
            XCTAssertEqual(result.status.rawValue, 141, "\(arguments)")
            XCTAssertEqual(result.stderr, "", "\(arguments)")
        }
        XCTAssertEqual(run(["--store", store, "check", "alice"], delivery: .delivered).status, .success)
    }

    // MARK: SUBS_LOCK_TIMEOUT (item 9)

    func testBadLockTimeoutIsAConfigurationErrorNamingTheVariable() {
        for bad in ["abc", "-1", "nan", "NaN", "inf", "-inf", "1e999", "1e3", "0x10", " 5", "5 ", "1.2.3", ".", "+5", "5s", "١٠"] {
            for command in [["check", "alice"], ["grant", "alice", "premium", "--lifetime", "--dry-run"], ["history", "alice"]] {
                let result = runCLI(["--store", store] + command, env: ["SUBS_LOCK_TIMEOUT": bad])
                XCTAssertEqual(result.status, .configError, "\(bad) \(command)")
                XCTAssertTrue(result.stderr.hasPrefix("subs: error: SUBS_LOCK_TIMEOUT: '"), result.stderr)
                XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
            }
        }
        for good in ["0", "0.5", "10", ".25", "60.", ""] {
            let result = runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "--dry-run"],
                                env: ["SUBS_LOCK_TIMEOUT": good])
            XCTAssertEqual(result.status, .success, "\(good): \(result.stderr)")
        }
    }

    // MARK: config file line ends and size (item 10)

    func testConfigLinesEndWithLFOrCRLF() throws {
        for (name, text) in [("crlf", "format = json\r\ncolor = never\r\n"), ("crlf-no-final", "format = json\r\ncolor = never"),
                             ("mixed", "# comment\r\nformat = json\ncolor = never\r\n"),
                             ("cr-at-end", "color = never\nformat = json\r"), ("blank-crlf", "\r\n\r\nformat = json\r\n")] {
            let config = dir.write(name, text)
            let result = runCLI(["--config", config, "--store", store, "check", "alice"])
            XCTAssertEqual(result.status, .success, "\(name): \(result.stderr)")
            XCTAssertEqual(try JSON.parse(result.stdout)["customerId"], .string("alice"), name)
        }
        // A CRLF file with a mistake still says which line.
        let broken = dir.write("broken", "format = json\r\ncolour = never\r\n")
        let result = runCLI(["--config", broken, "--store", store, "check", "alice"])
        XCTAssertEqual(result.status, .configError)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(broken):2: unknown key 'colour'"), result.stderr)
    }

    func testHugeOrEndlessConfigIsRefusedWithBoundedReading() throws {
        let big = dir.write("big", String(repeating: "# padding padding padding padding\n", count: 3000))
        for (config, flagOrEnv) in [(big, true), ("/dev/zero", true), ("/dev/zero", false), ("/dev/urandom", false)] {
            let result = flagOrEnv ? runCLI(["--config", config, "--store", store, "check", "alice"])
                                   : runCLI(["--store", store, "check", "alice"], env: ["SUBS_CONFIG": config])
            XCTAssertEqual(result.status, .configError, config)
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(config): config file is too large"), result.stderr)
        }
        let justFits = dir.write("fits", String(repeating: "#", count: 64 * 1024 - 1) + "\n")
        XCTAssertEqual(runCLI(["--config", justFits, "--store", store, "check", "alice"]).status, .success)
    }

    // MARK: help, --version and completion whatever the environment holds (item 12)

    func testHelpVersionAndCompletionIgnoreABrokenEnvironment() throws {
        let badConfig = dir.write("bad-config", "this is not a config\n")
        let hostile: [[String: String]] = [
            ["SUBS_NOW": "yesterday"], ["SUBS_FORMAT": "xml"], ["SUBS_CONFIG": badConfig], ["SUBS_CONFIG": "/dev/zero"],
            ["SUBS_LOCK_TIMEOUT": "soon"], ["SUBS_TIMEOUT": "-3"], ["SUBS_PROVIDER": "nope"], ["SUBS_CONFIG": dir.path],
            ["XDG_CONFIG_HOME": dir.path, "SUBS_NOW": "0000"], ["HOME": "", "XDG_CONFIG_HOME": "relative"],
        ]
        try FileManager.default.createDirectory(atPath: dir.path + "/subs", withIntermediateDirectories: true)
        dir.write("subs/config", "format = xml\n")
        for env in hostile {
            for arguments in [["--version"], ["--help"], ["help"], ["help", "check"], ["check", "--help"], ["store", "--help"],
                              ["completion", "bash"], ["completion", "zsh"], ["completion", "fish"], ["--json", "completion", "bash"]] {
                let result = runCLI(arguments, env: env)
                XCTAssertEqual(result.status, .success, "\(arguments) \(env): \(result.stderr)")
                XCTAssertEqual(result.stderr, "", "\(arguments) \(env)")
                XCTAssertFalse(result.stdout.isEmpty)
            }
        }
        // Commands that use the clock still refuse a bad SUBS_NOW.
        let check = runCLI(["--store", store, "check", "alice"], env: ["SUBS_NOW": "yesterday"])
        XCTAssertEqual(check.status, .configError)
        XCTAssertTrue(check.stderr.hasPrefix("subs: error: SUBS_NOW: 'yesterday'"), check.stderr)
    }

    func testHiddenCompleteNeverPrintsErrors() {
        let badConfig = dir.write("bad-config", "nonsense\n")
        for env in [["SUBS_CONFIG": badConfig], ["SUBS_FORMAT": "xml"], ["SUBS_NOW": "bad"], ["SUBS_STORE": "/nonexistent/store.json"],
                    ["SUBS_STORE": dir.write("garbage.json", "{not json")]] {
            let result = runCLI(["__complete", "customers", "a"], env: env)
            XCTAssertEqual(result.stderr, "", "\(env)")
            XCTAssertEqual(result.stdout, "", "\(env)")
        }
        let works = runCLI(["--store", store, "__complete", "customers", "a"], env: ["SUBS_NOW": "bad"])
        XCTAssertEqual(works.stdout, "alice\n")
    }

    // MARK: bidi, invisible characters and backslashes in data (item 13)

    /// Customers whose ids, grantors and reasons carry the characters to escape.
    static let sneaky: [(raw: String, shown: String)] = [
        ("evil\u{202E}gnp.exe", "evil\\u202egnp.exe"), ("a\u{200E}b\u{200F}c", "a\\u200eb\\u200fc"),
        ("x\u{202A}\u{202B}\u{202C}\u{202D}y", "x\\u202a\\u202b\\u202c\\u202dy"),
        ("i\u{2066}\u{2067}\u{2068}\u{2069}j", "i\\u2066\\u2067\\u2068\\u2069j"),
        ("z\u{200B}w\u{FEFF}v\u{061C}u", "z\\u200bw\\ufeffv\\u061cu"), ("l\u{2028}m\u{2029}n", "l\\u2028m\\u2029n"),
        ("back\\x1b", "back\\\\x1b"), ("real\u{1B}esc", "real\\x1besc"),
        // Every other invisible format character (category Cf), not only the bidi ones: the soft
        // hyphen, U+180E, the deprecated U+206A–F, the annotation marks, and the tag characters
        // that spell hidden ASCII ("ab" + tags "A" would look like "ab"); past U+FFFF, 8 digits.
        ("s\u{AD}h", "s\\u00adh"), ("m\u{180E}v", "m\\u180ev"), ("d\u{206A}\u{206F}p", "d\\u206a\\u206fp"),
        ("n\u{FFF9}o\u{FFFB}", "n\\ufff9o\\ufffb"), ("ab\u{E0001}\u{E0041}", "ab\\U000e0001\\U000e0041"),
        ("mu\u{1D173}s", "mu\\U0001d173s"),
    ]

    /// What stays as it is: the joiners inside emoji and Persian words, and the prepended
    /// concatenation marks, which are drawn.
    func testJoinersAndVisibleFormatMarksStayAsTheyAre() {
        for kept in ["👨\u{200D}👩\u{200D}👧", "می\u{200C}خواهم", "\u{0600}١٢", "\u{06DD}"] {
            XCTAssertEqual(Terminal.escape(kept), kept)
        }
    }

    /// The byte scan that lets most text through untouched misses no character the escape
    /// would change: every scalar of Unicode, one at a time, between plain letters.
    func testTheFastPathMissesNoCharacterThatIsEscaped() {
        var missed: [UInt32] = []
        for v in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let needs = v < 0x20 || v == 0x7F || v == 0x5C || (0x80...0x9F).contains(v) || Terminal.isHiddenFormatCharacter(v)
            if needs, !String(scalar).utf8.contains(where: Terminal.mayStartAnEscape) { missed.append(v) }
        }
        XCTAssertEqual(missed, [])
        XCTAssertEqual(Terminal.escape("ab\u{E0041}\u{E0042}"), "ab\\U000e0041\\U000e0042")
    }

    func sneakyStore() -> String {
        var customers: [String] = []
        for (index, (raw, _)) in Self.sneaky.enumerated() {
            let id = JSONWriter.compact(.string(raw))
            customers.append("""
                \(id): { "grants": [ { "id": \(id), "entitlement": "premium", "grantedAt": "2026-11-01T00:00:00Z",
                  "expirationDate": null, "grantedBy": \(id), "reason": \(JSONWriter.compact(.string("r\(index)" + raw))) } ] }
                """)
        }
        return dir.write("sneaky.json", """
            { "schemaVersion": 1, "products": { "life": { "type": "nonConsumable", "entitlements": ["premium"] } },
              "customers": { \(customers.joined(separator: ",\n")) } }
            """)
    }

    func assertNothingRaw(_ text: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let bad = text.unicodeScalars.first { Terminal.escape(String($0)) != String($0) && $0 != "\\" && $0 != "\n" && $0 != "\t" }
        XCTAssertNil(bad, "\(label): raw U+\(String(bad?.value ?? 0, radix: 16)) in \(text.debugDescription)", file: file, line: line)
    }

    func testBidiInvisibleAndBackslashAreEscapedInTablesTSVAndSentences() {
        let sneaky = sneakyStore()
        for (raw, shown) in Self.sneaky {
            for terminal in [false, true] {
                // On a terminal too (relative dates, cutting to the width); colour off, so that
                // every ESC in the output would be the data's.
                let table = runCLI(["--store", sneaky, "--no-color", "check", raw], terminal: terminal)
                XCTAssertEqual(table.status, .success, table.stderr)
                assertNothingRaw(table.stdout, "check table \(shown)")
                XCTAssertTrue(table.stdout.hasPrefix(shown + "\n"), table.stdout)
                XCTAssertTrue(table.stdout.contains("manual grant by \(shown)"), "sentence: \(table.stdout)")
                let history = runCLI(["--store", sneaky, "--no-color", "history", raw], terminal: terminal)
                assertNothingRaw(history.stdout, "history table \(shown)")
                if !terminal { XCTAssertTrue(history.stdout.contains(shown), history.stdout) }
                let grant = runCLI(["--store", sneaky, "--no-color", "grant", raw, "premium", "--lifetime", "--dry-run"],
                                   terminal: terminal)
                XCTAssertEqual(grant.status, .success, grant.stderr)
                assertNothingRaw(grant.stdout, "grant table \(shown)")
            }
            let tsv = runCLI(["--store", sneaky, "check", raw, "--format", "tsv"])
            assertNothingRaw(tsv.stdout, "tsv \(shown)")
            XCTAssertTrue(tsv.stdout.contains("\n" + shown + "\t" + shown + "\tpremium\t"), tsv.stdout)
            let historyTSV = runCLI(["--store", sneaky, "history", raw, "--format", "tsv"])
            assertNothingRaw(historyTSV.stdout, "history tsv \(shown)")
            // JSON is for programs: the data as it is.
            let json = runCLI(["--store", sneaky, "check", raw, "--json"])
            XCTAssertEqual(try? JSON.parse(json.stdout)["customerId"], .string(raw))
        }
    }

    func testBidiAndBackslashAreEscapedInErrorMessages() {
        for (raw, shown) in Self.sneaky {
            let results = [
                runCLI(["--store", store, "check", raw]), runCLI(["--store", store, "history", raw]),
                runCLI(["--store", store, "renew-count", raw]), runCLI(["--store", store, "check", "alice", "--require", raw]),
                runCLI(["--store", store, "check", "alice", "--format", raw]), runCLI(["--store", store, raw]),
                runCLI(["--store", store, "check", "--" + raw]), runCLI(["--store", store, "check", "alice"], env: ["SUBS_FORMAT": raw]),
                runCLI(["--store", store, "check", "alice", "--config", dir.write("c", "format = " + raw + "\n")]),
                runCLI(["--store", store, "grant", raw, "premium", "--lifetime"]),
            ]
            for result in results {
                XCTAssertTrue(result.stderr.hasPrefix("subs: error:"), result.stderr)
                assertNothingRaw(result.stderr, "stderr \(shown)")
                XCTAssertTrue(result.stderr.contains(shown), "\(shown) in \(result.stderr)")
            }
        }
    }

    // MARK: invalid UTF-8 in arguments and on stdin (item 14)

    func runRaw(_ raw: [[UInt8]], stdin: [UInt8] = []) -> CLIResult {
        var harness = CLIHarness(rawArguments: raw)
        harness.stdin = stdin
        return harness.run(raw.map { String(decoding: $0, as: UTF8.self) })
    }

    func testInvalidUTF8InAnyArgumentIsUsageError() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let cases: [([UInt8], String)] = [
            (Array("n".utf8) + [0xFF] + Array("ew".utf8), "n\\xffew"), ([0xC0, 0xAF], "\\xc0\\xaf"), ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80"),
            ([0xE2, 0x82], "\\xe2\\x82"), ([0x80], "\\x80"), (Array("ok\u{1B}".utf8) + [0xF8], "ok\\x1b\\xf8"),
        ]
        for (bytes, shown) in cases {
            for position in 0..<5 {
                var raw: [[UInt8]] = ["--store", store, "grant", "alice", "premium", "--lifetime", "--reason", "r"].map { Array($0.utf8) }
                let index = [3, 4, 7, 1, 0][position]
                raw[index] = position == 4 ? Array("--reason=".utf8) + bytes : bytes
                let result = runRaw(raw)
                XCTAssertEqual(result.status, .usage, "\(shown) at \(index)")
                let expectedShown = position == 4 ? "--reason=" + shown : shown
                XCTAssertEqual(result.stderr, "subs: error: argument \(index + 1) is not valid UTF-8: '\(expectedShown)'\n"
                               + "usage: subs [options] COMMAND [ARGS]\n")
                XCTAssertEqual(result.stdout, "")
            }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "nothing written")
        // Even --help and --version do not look past an invalid argument.
        XCTAssertEqual(runRaw([Array("--version".utf8), [0xFF]]).status, .usage)
        let valid = runRaw(["--store", store, "check", "zoë"].map { Array($0.utf8) })
        XCTAssertEqual(valid.status, .notFound)
    }

    func testInvalidUTF8OnStdinIsDataErrorWithTheLine() {
        for (input, line) in [(Array("alice\n".utf8) + [0xFF] + Array("\n".utf8), 2),
                              (Array("# c\r\n\r\nalice\r\nb\u{0}".utf8) + [0xC3], 4), ([0xED, 0xA0, 0x80], 1)] {
            for arguments in [["--store", store, "check", "-"], ["--store", store, "check", "-", "--require", "premium"],
                              ["--store", store, "grant", "-", "premium", "--lifetime"], ["--store", store, "history", "-"]] {
                let result = runRaw(arguments.map { Array($0.utf8) }, stdin: input)
                XCTAssertEqual(result.status, .dataError, "\(arguments) \(input)")
                XCTAssertTrue(result.stderr.hasPrefix("subs: error: standard input:\(line): "), result.stderr)
            }
        }
    }

    // MARK: `-` that reads no id (item 15)

    func testDashWithNoIdsFailsGatesAndWritesButNotLookups() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        for stdin in ["", "\n", "# only a comment\n\n   \n", "\r\n\t\r\n"] {
            for arguments in [["check", "-", "--require", "premium"], ["check", "--require", "premium", "-", "-q"],
                              ["check", "-", "alice", "--require", "premium"],
                              ["grant", "-", "premium", "--lifetime"], ["revoke", "-", "premium"],
                              ["grant", "-", "premium", "--duration", "P1D", "--dry-run"]] {
                let result = runCLI(["--store", store] + arguments, stdin: stdin)
                XCTAssertEqual(result.status, .usage, "\(arguments) \(stdin.debugDescription): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("subs: error: '-' read no customer ids from standard input"), result.stderr)
                XCTAssertEqual(result.stdout, "")
            }
            let lookup = runCLI(["--store", store, "check", "-", "--json"], stdin: stdin)
            XCTAssertEqual(lookup.status, .success, lookup.stderr)
            XCTAssertEqual(try JSON.parse(lookup.stdout), .array([]))
            XCTAssertEqual(runCLI(["--store", store, "check", "-", "--format", "tsv"], stdin: stdin).status, .success)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        XCTAssertEqual(runCLI(["--store", store, "check", "-", "--require", "premium", "-q"], stdin: "alice\n").status, .success)
    }

    // MARK: HOME and an unreadable default config (item 16)

    func testUnreadableDefaultConfigIsAWarningButANamedOneIsAnError() throws {
        // A directory where the config file should be: it opens, but cannot be read.
        try FileManager.default.createDirectory(atPath: dir.path + "/xdg/subs/config", withIntermediateDirectories: true)
        let result = runCLI(["--store", store, "check", "alice"], env: ["XDG_CONFIG_HOME": dir.path + "/xdg"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("subs: warning: \(dir.path)/xdg/subs/config: cannot read config file: is a directory"),
                      result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("alice"))
        // The same under HOME, and with HOME's .config not a directory.
        try FileManager.default.createDirectory(atPath: dir.path + "/home/.config/subs/config", withIntermediateDirectories: true)
        dir.write("filehome", "")
        for home in [dir.path + "/home", dir.path + "/filehome"] {
            let underHome = runCLI(["--store", store, "check", "alice"], env: ["HOME": home, "XDG_CONFIG_HOME": "relative/ignored"])
            XCTAssertEqual(underHome.status, .success, underHome.stderr)
        }
        for explicit in [["--config", dir.path + "/xdg/subs/config"], ["--config", dir.path + "/missing"]] {
            let named = runCLI(explicit + ["--store", store, "check", "alice"])
            XCTAssertEqual(named.status, .configError, named.stderr)
        }
        let viaEnv = runCLI(["--store", store, "check", "alice"], env: ["SUBS_CONFIG": dir.path + "/xdg/subs/config"])
        XCTAssertEqual(viaEnv.status, .configError)
        // A readable default config with a mistake is still an error: it is the user's own file.
        try FileManager.default.createDirectory(atPath: dir.path + "/xdg2/subs", withIntermediateDirectories: true)
        dir.write("xdg2/subs/config", "format = xml\n")
        XCTAssertEqual(runCLI(["--store", store, "check", "alice"], env: ["XDG_CONFIG_HOME": dir.path + "/xdg2"]).status, .configError)
    }

    func testRelativeXDGDataHomeIsIgnored() {
        let result = runCLI(["check", "alice"], env: ["XDG_DATA_HOME": "relative/data", "HOME": dir.path])
        XCTAssertEqual(result.status, .noInput)
        XCTAssertTrue(result.stderr.contains(dir.path + "/.local/share/subs/store.json"), result.stderr)
    }

    // MARK: long values in messages, empty actor and reason (item 17)

    func testLongValuesAreCutInEveryMessage() {
        let huge = String(repeating: "x", count: 100_000) + "END"
        let config = dir.write("c", "format = " + huge + "\n")
        let results = [
            runCLI(["--store", store, "check", huge]), runCLI(["--store", store, "history", huge]),
            runCLI(["--store", store, "renew-count", huge]), runCLI(["--store", store, "renew-count", "alice", huge]),
            runCLI(["--store", store, "check", "alice", "--require", huge]), runCLI(["--store", store, huge]),
            runCLI(["--store", store, "check", "--" + huge]), runCLI(["--store", store, "check", "alice", "--format", huge]),
            runCLI(["--store", store, "check", "alice", "--at", huge]), runCLI(["--store", store, "check", "alice"], env: ["SUBS_FORMAT": huge]),
            runCLI(["--store", store, "check", "alice"], env: ["SUBS_NOW": huge]),
            runCLI(["--store", store, "check", "alice"], env: ["SUBS_LOCK_TIMEOUT": huge]),
            runCLI(["--store", store, "check", "alice", "--config", config]),
            runCLI(["--store", store, "grant", huge, "premium", "--lifetime"]),
            runCLI(["--store", store, "revoke", "alice", huge]),
            runCLI(["--store", store + "/" + huge, "check", "alice"]), runCLI(["help", huge]), runCLI(["store", huge]),
        ]
        for result in results {
            XCTAssertTrue(result.stderr.hasPrefix("subs: error:"), String(result.stderr.prefix(200)))
            for line in result.stderr.split(separator: "\n") {
                XCTAssertLessThan(line.count, 500, String(line.prefix(200)))
            }
            XCTAssertLessThan(result.stderr.count, 1200, String(result.stderr.prefix(200)))
        }
        // Short values are shown whole.
        XCTAssertEqual(runCLI(["--store", store, "check", "zed"]).stderr, "subs: error: customer 'zed' not found\n")
        let eighty = String(repeating: "y", count: 80)
        XCTAssertEqual(runCLI(["--store", store, "check", eighty]).stderr, "subs: error: customer '\(eighty)' not found\n")
        let cut = runCLI(["--store", store, "check", eighty + "z"]).stderr
        XCTAssertEqual(cut, "subs: error: customer '\(String(repeating: "y", count: 79))…' not found\n")
    }

    func testEmptyActorOrReasonIsUsageError() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        for arguments in [["grant", "alice", "premium", "--lifetime", "--actor", ""], ["grant", "alice", "premium", "--lifetime", "--actor="],
                          ["revoke", "dave", "premium", "--actor", ""], ["grant", "alice", "premium", "--lifetime", "--reason", ""],
                          ["revoke", "dave", "premium", "--reason="]] {
            let result = runCLI(["--store", store] + arguments)
            XCTAssertEqual(result.status, .usage, "\(arguments)")
            XCTAssertTrue(result.stderr.contains("must not be empty"), result.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before)
        // An empty SUBS_ACTOR counts as unset: USER is the actor.
        let result = runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "--json"],
                            env: ["SUBS_ACTOR": "", "USER": "sam"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["grants"]?.arrayValue?.first?["grantedBy"], .string("sam"))
        let nobody = runCLI(["--store", store, "grant", "bob", "premium", "--lifetime", "--json"], env: ["SUBS_ACTOR": "", "USER": ""])
        XCTAssertEqual(try JSON.parse(nobody.stdout)["grants"]?.arrayValue?.first?["grantedBy"], .null)
    }
}
