// `subs commands --json`: one valid JSON document holding every command, option, environment
// variable, config key and exit status that help, the man page and the completions name, and
// each provider's APIs with what they offer — which the binary then does: every operation the
// document says an API refuses is refused (exit 64, that sentence) before anything is sent.

import XCTest
import SubsJSON
import SubsRemote
import SubsProviders
@testable import SubsCLI

final class CommandsCommandTests: XCTestCase {
    func document() throws -> JSONValue {
        let result = runCLI(["commands", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        return try JSON.parse(result.stdout)
    }

    func strings(_ value: JSONValue?, _ key: String) -> [String] {
        value?.arrayValue?.compactMap { $0[key]?.stringValue } ?? []
    }

    func testTheDocumentIsOneValidJSONDocument() throws {
        let doc = try document()
        XCTAssertEqual(doc["name"]?.stringValue, "subs")
        XCTAssertEqual(doc["version"]?.stringValue, CLI.version)
        XCTAssertEqual(doc["schemaVersion"], .number("1"))
        // jsonl: the same document on one line; the table lists the commands.
        let line = runCLI(["commands", "--format", "jsonl"]).stdout
        XCTAssertEqual(line.filter { $0 == "\n" }.count, 1)
        XCTAssertEqual(try JSON.parse(line), doc)
        let table = runCLI(["commands"]).stdout
        for spec in CommandLineSpec.subs.visibleCommands { XCTAssertTrue(table.contains("  " + spec.name.rawValue + " "), spec.name.rawValue) }
        XCTAssertEqual(runCLI(["commands", "--json", "-q"]).stdout, "")
    }

    func testJqReadsIt() throws {
        let jq = try Prerequisite.tool("jq")
        let json = runCLI(["commands", "--json"]).stdout
        let dir = TempDir()
        let path = dir.path + "/commands.json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        let names = try runProcess(jq, ["-r", ".commands[].name", path])
        XCTAssertEqual(names.status, 0, names.stderr)
        XCTAssertEqual(names.stdout, CommandLineSpec.subs.visibleCommands.map { $0.name.rawValue + "\n" }.joined())
        let refused = try runProcess(jq, ["-r", ".providers[].apis[] | select(.offers.history | not) | .title", path])
        XCTAssertEqual(refused.stdout, "Qonversion API v3\n")
    }

    /// Everything help, the man page and the completions name is in the document.
    func testEverythingHelpManAndCompletionsNameIsInTheDocument() throws {
        let doc = try document()
        let commands = try XCTUnwrap(doc["commands"]?.arrayValue)
        let commandNames = strings(doc["commands"], "name")
        let globalOptions = strings(doc["globalOptions"], "name")
        for spec in CommandLineSpec.subs.visibleCommands {
            XCTAssertTrue(commandNames.contains(spec.name.rawValue), spec.name.rawValue)
            let entry = try XCTUnwrap(commands.first { $0["name"]?.stringValue == spec.name.rawValue })
            let options = strings(entry["options"], "name")
            for option in spec.options where !option.hidden { XCTAssertTrue(options.contains(option.longName), option.longName) }
            let codes = entry["exitStatuses"]?.arrayValue?.compactMap { Self.number($0["code"]) } ?? []
            for (code, _) in spec.exitStatuses.all { XCTAssertTrue(codes.contains(String(code.rawValue))) }
        }
        XCTAssertFalse(commandNames.contains("__complete"), "hidden commands stay out")
        for option in CommandLineSpec.subs.globalOptions where !option.hidden {
            XCTAssertTrue(globalOptions.contains(option.longName), option.longName)
        }
        // Every option and command word the completion scripts offer.
        let allOptions = Set(globalOptions + commands.flatMap { strings($0["options"], "name") })
        for shell in ["bash", "zsh", "fish"] {
            let script = runCLI(["completion", shell]).stdout
            for option in Set(Self.longOptions(in: script)) {
                XCTAssertTrue(allOptions.contains(option), "\(shell) completes \(option), which the document lacks")
            }
        }
        // The man page's environment variables, exit statuses, and the config keys.
        let man = ManPage.render()
        let environment = strings(doc["environment"], "name")
        for variable in EnvironmentSpec.documented(in: .subs) {
            XCTAssertTrue(environment.contains(variable.name), variable.name)
            XCTAssertTrue(man.contains(".It Ev \(variable.name)\n"), variable.name)
        }
        XCTAssertEqual(strings(doc["configKeys"], "key"), ConfigFile.keys)
        let codes = doc["exitStatuses"]?.arrayValue?.compactMap { Self.number($0["code"]) } ?? []
        let manExit = man[man.range(of: "\n.Sh EXIT STATUS\n")!.upperBound...]
        let manCodes = manExit.split(separator: "\n").prefix { !$0.hasPrefix(".Sh ") }
            .filter { $0.hasPrefix(".It ") }.map { String($0.dropFirst(4)) }
        XCTAssertEqual(codes, manCodes)
        XCTAssertEqual(codes, ["0", "1", "3", "64", "65", "66", "69", "70", "73", "74", "75", "76", "77", "78", "130", "141"])
        let providers = strings(doc["providers"], "name")
        XCTAssertEqual(providers, Provider.allCases.map(\.rawValue))
    }

    static func number(_ value: JSONValue?) -> String? {
        if case .number(let text)? = value { return text }
        return nil
    }

    /// `--xxx` words of a completion script.
    static func longOptions(in script: String) -> [String] {
        var out: [String] = []
        var word = ""
        for c in script + " " {
            if c.isLetter || c.isNumber || c == "-" { word.append(c); continue }
            if word.hasPrefix("--"), word.count > 2, word.dropFirst(2).first?.isLetter == true { out.append(word) }
            word = ""
        }
        return out
    }

    /// Each operation the document says an API refuses is refused by the binary: exit 64 with
    /// the document's sentence, and no request sent. Each it offers is not refused so.
    func testWhatTheDocumentSaysEachAPIRefusesIsRefused() throws {
        let doc = try document()
        var checked = 0
        for provider in doc["providers"]?.arrayValue ?? [] {
            let name = try XCTUnwrap(provider["name"]?.stringValue)
            for api in provider["apis"]?.arrayValue ?? [] {
                let base = try XCTUnwrap(api["baseURL"]?.stringValue)
                let refused = Dictionary(uniqueKeysWithValues: (api["notOffered"]?.arrayValue ?? []).compactMap { entry in
                    entry["operation"]?.stringValue.map { ($0, entry["message"]?.stringValue ?? "") }
                })
                for operation in SourceOperation.allCases {
                    let offered = api["offers"]?[operation.rawValue]?.boolValue
                    XCTAssertNotNil(offered, "\(base): \(operation)")
                    guard let message = refused[operation.rawValue] else { continue }
                    XCTAssertEqual(offered, false)
                    let sent = SentRequests()
                    let result = runCLI(["--provider", name, "--remote", base] + Self.arguments(operation),
                                        env: ["SUBS_API_KEY": "sk_test_key", "XDG_CACHE_HOME": TempDir().path], http: sent)
                    XCTAssertEqual(result.status, .usage, "\(base) \(operation): \(result.stderr)")
                    XCTAssertTrue(result.stderr.contains(message), "\(base) \(operation): \(result.stderr) lacks \(message)")
                    XCTAssertEqual(sent.count, 0, "\(base) \(operation) sent a request")
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, 12, "RevenueCat v1 3, v2 1, Qonversion v3 5, v4 2, IAPHUB 1, subs 0")
    }

    static func arguments(_ operation: SourceOperation) -> [String] {
        switch operation {
        case .history: return ["history", "alice"]
        case .renewCount: return ["renew-count", "alice"]
        case .grants: return ["grant", "alice", "premium", "--duration", "P1M"]
        case .lifetimeGrants: return ["grant", "alice", "premium", "--lifetime"]
        case .dryRun: return ["grant", "alice", "premium", "--duration", "P1M", "--dry-run"]
        case .batchWrites: return ["grant", "alice", "bob", "premium", "--duration", "P1M"]
        }
    }

    /// The keys of the document, each described in docs/reference.md's section on it.
    func testReferenceDescribesEveryKey() throws {
        let reference = try String(contentsOfFile: repositoryRoot + "/docs/reference.md", encoding: .utf8)
        let start = try XCTUnwrap(reference.range(of: "### `commands` document"))
        let rest = reference[start.upperBound...]
        let section = String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
        var keys: Set<String> = []
        func collect(_ value: JSONValue) {
            if let object = value.objectValue {
                for member in object.members {
                    let (key, child) = (member.key, member.value)
                    keys.insert(key)
                    collect(child)
                }
            } else if let array = value.arrayValue {
                array.forEach(collect)
            }
        }
        collect(try document())
        for key in keys.sorted() {
            XCTAssertTrue(section.contains("`\(key)`"), "docs/reference.md does not describe the key \(key)")
        }
    }
}

/// A transport that records what it was asked and answers nothing.
final class SentRequests: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var sent = 0
    var count: Int { lock.lock(); defer { lock.unlock() }; return sent }
    func send(_ request: RemoteRequest) throws -> RemoteResponse {
        lock.lock(); sent += 1; lock.unlock()
        throw TransportError.cannotConnect("no server in this test")
    }
}
