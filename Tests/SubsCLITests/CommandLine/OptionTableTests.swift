// Issue 22, section 2: an option is one entry. Every global option's entry stores its value in
// a field of GlobalOptions; every option's kind gives the shape its accessor reads; every
// environment variable subs reads is declared once and documented in the man page and README.

import XCTest
import SubsStore
import SubsProviders
@testable import SubsCLI

final class OptionTableTests: XCTestCase {
    /// A valid value of each kind, other than the option's default where there is a choice.
    func sample(_ option: OptionSpec) -> String {
        switch option.kind {
        case nil: return ""
        case .text?, .nonEmptyText?, .customer?, .entitlement?: return "x"
        case .file?: return "/tmp/x"
        case .url?: return "https://subs.example"
        case .date?: return "2026-03-01"
        case .duration?: return "P1D"
        case .count?: return "3"
        case .seconds?: return "2.5"
        case .bytes?: return "64M"
        case .hostPort?: return "127.0.0.1:1"
        case .command?: return "check"
        case .choice(let words)?: return words.last { $0 != option.defaultValue } ?? words[0]
        }
    }

    func testEveryOptionKindGivesTheShapeItsAccessorReads() throws {
        let all = CommandLineSpec.subs.globalOptions + CommandLineSpec.subs.commands.flatMap(\.options)
        for option in all where !option.isFlag {
            let value = try ValueCheck.value(sample(option), kind: option.kind!, now: parserNow)
            XCTAssertEqual(OptionValue.Shape(value), OptionValue.Shape(option.kind), "--\(option.long)")
        }
    }

    func testEveryGlobalOptionEntryChangesItsFieldAndNothingIsLeftUnstored() throws {
        for entry in GlobalOptionTable.entries {
            let spec = entry.spec
            if spec.alias != nil || ["help", "version", "config"].contains(spec.long) {
                XCTAssertNil(entry.store, "--\(spec.long) sets no field")
                XCTAssertFalse(entry.inConfigFile, spec.long)
                continue
            }
            let store = try XCTUnwrap(entry.store, "--\(spec.long) has no field")
            let value = spec.isFlag ? OptionValue.flag : try ValueCheck.value(sample(spec), kind: spec.kind!, now: parserNow)
            var options = GlobalOptions()
            store(value, &options)
            XCTAssertNotEqual(options, GlobalOptions(), "--\(spec.long) \(sample(spec)) changed nothing")
            // And through the parser, as a user types it.
            let typed = spec.isFlag ? [spec.longName] : [spec.longName, sample(spec)]
            XCTAssertEqual(try invocation(typed + ["check", "a"]).global, options, "--\(spec.long)")
        }
    }

    func testConfigKeysAreTheEntriesThatSayConfigAndTakeAValue() throws {
        XCTAssertEqual(ConfigFile.keys, ["store", "remote", "provider", "api-key-file", "format", "color", "pager", "timeout",
                                         "cache-max", "iaphub-platform"])
        for key in ConfigFile.keys { XCTAssertNotNil(CommandLineSpec.subs.globalOption(named: key)?.kind, key) }
        // The reference (docs/reference.md, linked from the README) lists the same keys, in the same order.
        let readme = try String(contentsOfFile: Repo.path("docs/reference.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "(keys: "))
        let list = readme[start.upperBound...].prefix { $0 != ";" }
        let keys = list.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        XCTAssertEqual(keys, ConfigFile.keys)
    }

    func testTheProviderIsTypedAndItsChoicesAreTheEnum() throws {
        XCTAssertEqual(CommandLineSpec.subs.globalOption(named: "provider")?.kind?.choices, Provider.allCases.map(\.rawValue))
        for provider in Provider.allCases {
            XCTAssertEqual(try invocation(["--provider", provider.rawValue, "check", "a"]).global.provider, provider)
        }
    }

    func testEnvironmentOnlySettingsArriveInGlobalOptions() throws {
        let global = try invocation(["check", "a"], environment: [
            "SUBS_API_KEY": "k1", "SUBS_IAPHUB_ENVIRONMENT": "staging", "SUBS_SERVER_TOKEN": "t0k",
            "SUBS_LOCK_TIMEOUT": "0.5", "SUBS_TEST_PAUSE_FOR": "2", "SUBS_TEST_PAUSE_AT": "renaming",
        ]).global
        XCTAssertEqual(global.apiKey, "k1")
        XCTAssertEqual(global.providerSettings[IAPHUBSource.environmentSetting.key], "staging")
        XCTAssertEqual(global.serverToken, "t0k")
        XCTAssertEqual(global.lockTimeout, 0.5)
        XCTAssertEqual(global.writePause, WritePause(step: "renaming", seconds: 2))
        // An empty SUBS_API_KEY is a key, and an empty one (refused when used); the others count as unset.
        let empty = try invocation(["check", "a"], environment: ["SUBS_API_KEY": "", "SUBS_SERVER_TOKEN": ""]).global
        XCTAssertEqual(empty.apiKey, "")
        XCTAssertNil(empty.serverToken)
        XCTAssertNil(try invocation(["check", "a"]).global.writePause)
    }

    /// A provider's own settings are declared on its descriptor only: each becomes a global
    /// option (flag, variable, config key) or a documented variable, and its value, from any of
    /// them, reaches the provider's source under the setting's key.
    func testEveryProviderSettingIsDeclaredFromItsDescriptorAndReachesItsSource() throws {
        let settings = ProviderDescriptor.registered.flatMap(\.settings)
        XCTAssertFalse(settings.isEmpty)
        let documented = Set(EnvironmentSpec.documented(in: .subs).map(\.name))
        for setting in settings {
            XCTAssertTrue(documented.contains(setting.environment), setting.environment)
            let value = setting.choices?.last { $0 != setting.defaultValue } ?? "staging"
            let fromEnvironment = try invocation(["check", "a"], environment: [setting.environment: value]).global
            XCTAssertEqual(fromEnvironment.providerSettings[setting.key], value, setting.environment)
            guard let long = setting.option else {
                XCTAssertNil(CommandLineSpec.subs.globalOption(named: setting.key), "\(setting.key) is a variable only")
                continue
            }
            let option = try XCTUnwrap(CommandLineSpec.subs.globalOption(named: long))
            XCTAssertEqual(option.environment, setting.environment)
            XCTAssertEqual(option.defaultValue, setting.defaultValue)
            XCTAssertTrue(ConfigFile.keys.contains(long))
            XCTAssertEqual(try invocation(["check", "a", "--" + long, value]).global.providerSettings[setting.key], value)
            if let choices = setting.choices {
                XCTAssertEqual(option.kind?.choices, choices)
                XCTAssertNotNil(usageError(["check", "a", "--" + long, "no-such-" + long]))
            }
        }
    }

    func testACommandOptionTakesItsEnvironmentVariable() throws {
        let grant = ["grant", "a", "premium", "--lifetime"]
        XCTAssertEqual(try invocation(grant, environment: ["SUBS_ACTOR": "ops"]).text(CommandLineSpec.Options.actor), "ops")
        XCTAssertEqual(try invocation(grant + ["--actor", "me"], environment: ["SUBS_ACTOR": "ops"])
            .text(CommandLineSpec.Options.actor), "me")
        XCTAssertNil(try invocation(grant, environment: ["SUBS_ACTOR": ""]).text(CommandLineSpec.Options.actor))
    }

    /// `--remote` is checked as it is resolved: a bad flag is a usage error (64), a bad
    /// SUBS_REMOTE or config file `remote` a configuration error (78).
    func testABadRemoteIs64AsAFlagAnd78FromTheEnvironmentOrConfigFile() throws {
        for bad in ["http://example.com", "ftp://example.com", "https://user:pw@example.com", "example.com",
                    "https://example.com/?q=1"] {
            let flag = runCLI(["--remote", bad, "check", "a"], env: ["SUBS_API_KEY": "k"])
            XCTAssertEqual(flag.status, .usage, "\(bad): \(flag.stderr)")
            XCTAssertTrue(flag.stderr.hasPrefix("subs: error: option '--remote': "), flag.stderr)
            let env = runCLI(["check", "a"], env: ["SUBS_REMOTE": bad, "SUBS_API_KEY": "k"])
            XCTAssertEqual(env.status, .configError, "\(bad): \(env.stderr)")
            XCTAssertTrue(env.stderr.hasPrefix("subs: error: SUBS_REMOTE: "), env.stderr)
            let dir = TempDir()
            let config = dir.path + "/config"
            try "remote = \(bad)\n".write(toFile: config, atomically: true, encoding: .utf8)
            let file = runCLI(["--config", config, "check", "a"], env: ["SUBS_API_KEY": "k"])
            XCTAssertEqual(file.status, .configError, "\(bad): \(file.stderr)")
            XCTAssertTrue(file.stderr.contains("config:1: remote: "), file.stderr)
            // A good flag rescues a bad environment value, as for every option.
            XCTAssertNoThrow(try invocation(["--remote", "https://ok.example", "check", "a"], environment: ["SUBS_REMOTE": bad]))
        }
    }

    func testEveryVariableIsDeclaredOnceAndDocumentedInTheManPageAndTheReference() throws {
        let names = EnvironmentSpec.documented(in: .subs).map(\.name)
        XCTAssertEqual(names.count, Set(names).count, "a variable declared twice: \(names)")
        for name in ["SUBS_STORE", "SUBS_REMOTE", "SUBS_PROVIDER", "SUBS_API_KEY_FILE", "SUBS_API_KEY", "SUBS_FORMAT",
                     "SUBS_TIMEOUT", "SUBS_IAPHUB_PLATFORM", "SUBS_IAPHUB_ENVIRONMENT", "SUBS_CONFIG", "SUBS_NOW",
                     "SUBS_ACTOR", "SUBS_LOCK_TIMEOUT", "SUBS_SERVER_TOKEN", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                     "XDG_CACHE_HOME", "HOME", "USER", "COLUMNS", "NO_COLOR", "TERM"] {
            XCTAssertTrue(names.contains(name), "\(name) is not declared")
        }
        let readme = try String(contentsOfFile: Repo.path("docs/reference.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n## Environment\n"))
        let rest = readme[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        for name in names {
            XCTAssertTrue(section.contains("`\(name)`"), "docs/reference.md's Environment section lacks \(name)")
        }
        let man = ManPage.render()
        for name in names { XCTAssertTrue(man.contains("\n.It Ev \(name)\n"), "man page lacks \(name)") }
    }

    /// No variable is read by a name written outside the declarations: SubsCLI reads the
    /// environment only through EnvironmentSpec and the options' specs, and the libraries not at all.
    func testNothingReadsTheEnvironmentAdHoc() throws {
        let manager = FileManager.default
        for target in ["SubsCLI", "SubsServer", "SubsProviders", "SubsSource", "SubsRemote", "SubsStore", "SubsModel",
                       "SubsHTTP", "SubsSystem", "SubsJSON"] {
            let root = Repo.path("Sources/" + target)
            let files = try XCTUnwrap(manager.enumerator(atPath: root)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            XCTAssertFalse(files.isEmpty)
            for file in files {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                XCTAssertFalse(text.contains("getenv("), "\(target)/\(file) calls getenv")
                guard !file.hasSuffix("EnvironmentSpec.swift") else { continue }
                for pattern in ["environment[\"", "env[\""] {
                    XCTAssertFalse(text.contains(pattern), "\(target)/\(file) reads a variable by name: \(pattern)")
                }
            }
        }
    }

    func testExitStatusesOfHelpAndManPageComeFromOneTable() {
        let help = HelpRenderer(.subs).help(for: nil, columns: 400)
        // Every status, 70 and 141 included: one table, one truth.
        for row in ExitCode.meanings {
            let summary = HelpLayout.sentence(ProseMarkup.render(row.summary, flags: CommandLineSpec.subs.flagNames))
            XCTAssertTrue(help.contains("\n  \(row.code.rawValue)" + String(repeating: " ", count: 8 - "\(row.code.rawValue)".count)
                                        + summary + "\n"), "help lacks \(row.code.rawValue) \(summary)")
        }
        let man = ManPage.render()
        let exit = man[man.range(of: "\n.Sh EXIT STATUS\n")!.upperBound...]
        let section = exit[..<(exit.range(of: "\n.Sh ")?.lowerBound ?? exit.endIndex)]
        let codes = section.split(separator: "\n").filter { $0.hasPrefix(".It ") }.map { String($0.dropFirst(4)) }
        XCTAssertEqual(codes, ExitCode.meanings.map { "\($0.code.rawValue)" })
    }
}
