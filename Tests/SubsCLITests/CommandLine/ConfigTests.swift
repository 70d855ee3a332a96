// Global options after precedence (flag > environment > config file > default), the config
// file's location and syntax, and exit 78 for every bad configuration.

import XCTest
@testable import SubsCLI

final class ConfigTests: XCTestCase {
    var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "subs-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    @discardableResult
    func write(_ text: String, to name: String = "config") throws -> String {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func configError(_ arguments: [String], environment: [String: String],
                     file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            let outcome = try parse(arguments, environment: environment)
            XCTFail("expected a config error, got \(outcome)", file: file, line: line)
        } catch let error as ConfigError {
            return error.message
        } catch {
            XCTFail("expected a config error, got \(error)", file: file, line: line)
        }
        return nil
    }

    func testDefaultsWithoutFlagsEnvironmentOrConfig() throws {
        let g = try invocation(["check", "a"], environment: ["HOME": directory]).global
        XCTAssertNil(g.store)
        XCTAssertNil(g.remote)
        XCTAssertEqual(g.provider, .subs)
        XCTAssertNil(g.apiKeyFile)
        XCTAssertEqual(g.format, .table)
        XCTAssertEqual(g.color, .auto)
        XCTAssertEqual(g.timeout, 10)
        XCTAssertNil(g.configPath, "the default config file is missing, and that is fine")
    }

    func testFlagBeatsEnvironmentBeatsConfigBeatsDefault() throws {
        let path = try write("""
            store = /config/store.json
            remote = https://config.example
            provider = revenuecat
            api-key-file = /config/key
            format = tsv
            color = always
            timeout = 3
            """)
        let configOnly = try invocation(["check", "a"], environment: ["SUBS_CONFIG": path]).global
        XCTAssertEqual(configOnly.store, "/config/store.json")
        XCTAssertEqual(configOnly.remote, "https://config.example")
        XCTAssertEqual(configOnly.provider, Provider(rawValue: "revenuecat"))
        XCTAssertEqual(configOnly.apiKeyFile, "/config/key")
        XCTAssertEqual(configOnly.format, .tsv)
        XCTAssertEqual(configOnly.color, .always)
        XCTAssertEqual(configOnly.timeout, 3)
        XCTAssertEqual(configOnly.configPath, path)

        let env = ["SUBS_CONFIG": path, "SUBS_STORE": "/env/store.json", "SUBS_REMOTE": "https://env.example",
                   "SUBS_PROVIDER": "subs", "SUBS_API_KEY_FILE": "/env/key", "SUBS_FORMAT": "jsonl",
                   "SUBS_TIMEOUT": "4.5"]
        let envOverConfig = try invocation(["check", "a"], environment: env).global
        XCTAssertEqual(envOverConfig.store, "/env/store.json")
        XCTAssertEqual(envOverConfig.remote, "https://env.example")
        XCTAssertEqual(envOverConfig.provider, .subs)
        XCTAssertEqual(envOverConfig.apiKeyFile, "/env/key")
        XCTAssertEqual(envOverConfig.format, .jsonl)
        XCTAssertEqual(envOverConfig.timeout, 4.5)
        XCTAssertEqual(envOverConfig.color, .always, "no environment variable for colour: NO_COLOR is the output layer's")

        let flags = try invocation(["check", "a", "--store", "/flag/store.json", "--remote", "https://flag.example",
                                    "--provider", "revenuecat", "--api-key-file", "/flag/key", "--json",
                                    "--color", "never", "--timeout", "7"], environment: env).global
        XCTAssertEqual(flags.store, "/flag/store.json")
        XCTAssertEqual(flags.remote, "https://flag.example")
        XCTAssertEqual(flags.provider, Provider(rawValue: "revenuecat"))
        XCTAssertEqual(flags.apiKeyFile, "/flag/key")
        XCTAssertEqual(flags.format, .json)
        XCTAssertEqual(flags.color, .never)
        XCTAssertEqual(flags.timeout, 7)
    }

    func testEmptyEnvironmentVariablesCountAsUnset() throws {
        let g = try invocation(["check", "a"], environment: ["SUBS_FORMAT": "", "SUBS_STORE": "", "SUBS_CONFIG": ""]).global
        XCTAssertEqual(g.format, .table)
        XCTAssertNil(g.store)
    }

    func testConfigFileLocation() throws {
        let flagFile = try write("format = json\n", to: "flag/config")
        let envFile = try write("format = tsv\n", to: "env/config")
        try write("format = jsonl\n", to: "xdg/subs/config")
        try write("color = never\n", to: "home/.config/subs/config")
        let all = ["SUBS_CONFIG": envFile, "XDG_CONFIG_HOME": directory + "/xdg", "HOME": directory + "/home"]

        XCTAssertEqual(try invocation(["--config", flagFile, "check", "a"], environment: all).global.format, .json)
        XCTAssertEqual(try invocation(["check", "a"], environment: all).global.format, .tsv)
        var noEnv = all
        noEnv["SUBS_CONFIG"] = nil
        XCTAssertEqual(try invocation(["check", "a"], environment: noEnv).global.format, .jsonl)
        XCTAssertEqual(try invocation(["check", "a"], environment: noEnv).global.configPath, directory + "/xdg/subs/config")
        noEnv["XDG_CONFIG_HOME"] = nil
        let home = try invocation(["check", "a"], environment: noEnv).global
        XCTAssertEqual(home.color, .never)
        XCTAssertEqual(home.configPath, directory + "/home/.config/subs/config")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
        noEnv["XDG_CONFIG_HOME"] = "relative"
        XCTAssertEqual(try invocation(["check", "a"], environment: noEnv).global.color, .never)
    }

    func testExplicitConfigFileMissingIsExit78ButTheDefaultMayBeMissing() throws {
        let missing = directory + "/nope/config"
        XCTAssertEqual(configError(["--config", missing, "check", "a"], environment: [:]),
                       "\(missing): cannot read config file: no such file or directory")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_CONFIG": missing]),
                       "\(missing): cannot read config file: no such file or directory")
        XCTAssertNoThrow(try invocation(["check", "a"], environment: ["XDG_CONFIG_HOME": directory + "/nope"]))
        // A directory where the file should be cannot be read either.
        XCTAssertNotNil(configError(["check", "a"], environment: ["SUBS_CONFIG": directory]))
    }

    func testCommentsBlankLinesQuotesAndTilde() throws {
        let path = try write("""
            # subs config

              format = json   # trailing comment
            store = "~/stores/main#1.json"
            api-key-file = ~/key
            \ttimeout=2\r
            """)
        let g = try invocation(["check", "a"], environment: ["SUBS_CONFIG": path, "HOME": "/home/dana"]).global
        XCTAssertEqual(g.format, .json)
        XCTAssertEqual(g.store, "/home/dana/stores/main#1.json")
        XCTAssertEqual(g.apiKeyFile, "/home/dana/key")
        XCTAssertEqual(g.timeout, 2)
    }

    /// A quoted value keeps a ` #` (a path like "my #1"), a comment may follow the closing quote,
    /// and a byte order mark before the first key (Windows editors) is not part of that key.
    func testQuotedValuesKeepTheirHashAndAByteOrderMarkIsSkipped() throws {
        let path = try write("\u{FEFF}format = tsv\r\nstore = \"/srv/my #1/store.json\"  # the main one\r\n"
                             + "api-key-file = '/keys/a # b' #\n")
        let g = try invocation(["check", "a"], environment: ["SUBS_CONFIG": path]).global
        XCTAssertEqual(g.format, .tsv)
        XCTAssertEqual(g.store, "/srv/my #1/store.json")
        XCTAssertEqual(g.apiKeyFile, "/keys/a # b")
        // A BOM elsewhere than first is still an unknown key, and a comment line stays a comment.
        let inner = try write("# \"a # b\"\n\u{FEFF}format = tsv\n", to: "inner")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_CONFIG": inner]),
                       "\(inner):2: unknown key '\\ufeffformat' (did you mean 'format'?)")
    }

    func testUnknownKeyNamesPathAndLine() throws {
        let path = try write("format = json\n\n# ok\nformt = tsv\n")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_CONFIG": path]),
                       "\(path):4: unknown key 'formt' (did you mean 'format'?)")
        let far = try write("x = 1\n", to: "far")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_CONFIG": far]), "\(far):1: unknown key 'x'")
        // Options that are not settings (at, quiet, …) are not config keys.
        let at = try write("at = now\n", to: "at")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_CONFIG": at]), "\(at):1: unknown key 'at'")
    }

    func testBadValuesAndLinesNamePathAndLine() throws {
        let cases: [(String, String)] = [
            ("format = xml", "1: format: 'xml' is not one of table, json, jsonl, tsv, csv"),
            ("\ncolor = blue", "2: color: 'blue' is not one of auto, always, never"),
            ("provider = stripe", "1: provider: 'stripe' is not one of subs, revenuecat, qonversion, iaphub"),
            ("timeout = 0", "1: timeout: '0' is not a positive number of seconds"),
            ("store =", "1: store: must not be empty"),
            ("just words", "1: expected 'key = value', got 'just words'"),
            // A quote that is opened is closed, and only a comment follows it.
            ("store = \"/srv/subs/main.json", "1: store: the quoted value '\"/srv/subs/main.json' does not end with its quote (\")"),
            ("store = '/srv/a.json' /srv/b.json", "1: store: the quoted value ''/srv/a.json' /srv/b.json' does not end with its quote (')"),
            ("format = \"", "1: format: the quoted value '\"' does not end with its quote (\")"),
        ]
        for (index, (text, expected)) in cases.enumerated() {
            let path = try write(text + "\n", to: "bad\(index)")
            XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_CONFIG": path]), "\(path):\(expected)")
        }
        // A bad config file is an error even when flags override every key in it.
        let path = try write("format = xml\n", to: "overridden")
        XCTAssertNotNil(configError(["check", "a", "--json"], environment: ["SUBS_CONFIG": path]))
    }

    func testABadRemoteURLIsShownWithoutAnyCharacterATerminalActsOn() throws {
        // Found by the config fuzzer: a C1 control (U+0093) in an unparseable URL reached the
        // message raw. Every place a URL can come from, every kind of hidden character.
        let hostile = ["fi\u{93}eot", "x\u{1b}[2J", "a\u{202e}b", "h\u{200b}\u{feff}", "\u{85}"]
        for (index, junk) in hostile.enumerated() {
            let path = try write("remote = \(junk)\n", to: "url\(index)")
            let messages = [
                configError(["check", "a"], environment: ["SUBS_CONFIG": path]),
                configError(["check", "a"], environment: ["SUBS_REMOTE": junk]),
                usageError(["check", "a", "--remote", junk], environment: [:])?.message,
            ]
            for message in messages {
                let message = try XCTUnwrap(message, "no error for \(junk.debugDescription)")
                XCTAssertTrue(message.contains("invalid remote URL"), message)
                let bad = message.unicodeScalars.first {
                    [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
                }
                XCTAssertNil(bad, "\(message.debugDescription) carries U+\(String(bad?.value ?? 0, radix: 16))")
            }
        }
    }

    func testBadEnvironmentValueNamesTheVariable() {
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_FORMAT": "xml"]),
                       "SUBS_FORMAT: 'xml' is not one of table, json, jsonl, tsv, csv")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_TIMEOUT": "soon"]),
                       "SUBS_TIMEOUT: 'soon' is not a positive number of seconds")
        XCTAssertEqual(configError(["check", "a"], environment: ["SUBS_PROVIDER": "stripe"]),
                       "SUBS_PROVIDER: 'stripe' is not one of subs, revenuecat, qonversion, iaphub")
    }

    func testFlagRescuesABadEnvironmentValue() throws {
        XCTAssertEqual(try invocation(["check", "a", "--format", "tsv"], environment: ["SUBS_FORMAT": "xml"]).global.format,
                       .tsv)
        XCTAssertEqual(try invocation(["check", "a", "--json"], environment: ["SUBS_FORMAT": "xml"]).global.format, .json)
    }

    func testUsageErrorsComeBeforeConfigErrors() {
        XCTAssertEqual(usageError(["check", "--jsn", "a"], environment: ["SUBS_FORMAT": "xml"])?.message,
                       "unknown option '--jsn'")
    }

    func testCLIExits78OnConfigErrors() throws {
        let env = runCLI(["check", "alice"], env: ["SUBS_TIMEOUT": "-1"])
        XCTAssertEqual(env.status, .configError)
        XCTAssertEqual(env.status.rawValue, 78)
        XCTAssertEqual(env.stderr, "subs: error: SUBS_TIMEOUT: '-1' is not a positive number of seconds\n")
        XCTAssertEqual(env.stdout, "")
        let path = try write("colour = never\n")
        let file = runCLI(["check", "alice"], env: ["SUBS_CONFIG": path])
        XCTAssertEqual(file.status.rawValue, 78)
        XCTAssertEqual(file.stderr, "subs: error: \(path):1: unknown key 'colour' (did you mean 'color'?)\n")
    }

    func testHelpAndVersionDoNotNeedAGoodConfig() throws {
        let path = try write("nonsense\n")
        XCTAssertEqual(runCLI(["--help"], env: ["SUBS_CONFIG": path]).status, .success)
        XCTAssertEqual(runCLI(["--version"], env: ["SUBS_CONFIG": path]).status, .success)
    }
}
