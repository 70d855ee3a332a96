// Shell completions: committed scripts equal the generator, every command and option is in each,
// the shells accept them, and bash and fish really complete (driven in real shell processes).

import TestSupport
import XCTest
@testable import SubsCLI

/// A program on PATH; missing, the test is skipped with the reason (failed under CI=true).
/// Call it first, at the top level of the test, never inside an assertion: XCTest records a skip
/// thrown from an XCTAssert autoclosure as an error, not as a skip.
func requireTool(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
    try Prerequisite.tool(name, file: file, line: line)
}

/// The built `subs`, beside the test bundle (`.build/debug/subs`): run `swift build` first.
func builtSubs(file: StaticString = #filePath, line: UInt = #line) throws -> String {
    var directory = Bundle.main.bundleURL
    if directory.pathExtension == "xctest" { directory = directory.deletingLastPathComponent() }
    let path = directory.appendingPathComponent("subs").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        XCTFail("\(path) not found: build the subs product first", file: file, line: line)
        throw CocoaError(.fileNoSuchFile)
    }
    return path
}

let shells = [("bash", "completions/subs.bash"), ("zsh", "completions/_subs"), ("fish", "completions/subs.fish")]

final class CompletionTests: XCTestCase {
    private var bashPath: String?
    /// bash, resolved by the tests that drive it (`try requireBash()` first thing).
    var bash: String { bashPath ?? "/nonexistent/bash" }

    func requireBash(file: StaticString = #filePath, line: UInt = #line) throws {
        bashPath = try requireTool("bash", file: file, line: line)
    }

    func testCommittedScriptsAreWhatTheGeneratorPrints() throws {
        for (shell, path) in shells {
            let run = runCLI(["completion", shell])
            XCTAssertEqual(run.status, .success, shell)
            XCTAssertEqual(run.stderr, "")
            XCTAssertEqual(run.stdout, CompletionCommand.script(for: shell))
            assertMatchesRecorded(run.stdout, path)
        }
    }

    func testTheBuiltBinaryPrintsTheCommittedScripts() throws {
        let subs = try builtSubs()
        for (shell, path) in shells {
            let result = try runProcess(subs, ["completion", shell])
            XCTAssertEqual(result.status, 0, shell)
            XCTAssertEqual(result.stdout, try String(contentsOfFile: repositoryRoot + "/" + path, encoding: .utf8), shell)
        }
    }

    func testEveryCommandAndOptionIsInEachScript() throws {
        for (shell, _) in shells {
            let script = try XCTUnwrap(CompletionCommand.script(for: shell))
            let words = Set(script.split { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }.map(String.init))
            for spec in CommandLineSpec.subs.visibleCommands {
                for word in spec.words { XCTAssertTrue(words.contains(word), "\(shell): command word \(word) missing") }
                for option in spec.options where !option.hidden {
                    XCTAssertTrue(script.contains(shell == "fish" ? "-l \(option.long) " : option.longName),
                                  "\(shell): \(option.longName) of \(spec.name.rawValue) missing")
                }
            }
            for option in CommandLineSpec.subs.globalOptions where !option.hidden {
                XCTAssertTrue(words.contains(shell == "fish" ? option.long : option.longName), "\(shell): \(option.longName) missing")
                if let short = option.short {
                    XCTAssertTrue(script.contains(shell == "fish" ? "-s \(short) " : "-\(short)"), "\(shell): -\(short) missing")
                }
            }
            XCTAssertTrue(script.contains("__complete"), "\(shell): ids come from subs __complete")
        }
    }

    func testHiddenCommandIsNeverOffered() {
        XCTAssertFalse(CompletionModel(.subs).topWords.contains { $0.word.hasPrefix("__") })
        XCTAssertTrue(CompletionModel(.subs).topWords.contains { $0.word == "store" })
    }

    func testShellsAcceptTheScripts() throws {
        let checks = [("bash", ["-n"]), ("zsh", ["-n"]), ("fish", ["--no-execute"])]
        // Every shell first: a missing one skips the test before anything is asserted.
        let programs = try checks.map { try requireTool($0.0) }
        for ((shell, path), ((tool, flags), program)) in zip(shells, zip(checks, programs)) {
            let result = try runProcess(program, flags + [repositoryRoot + "/" + path])
            XCTAssertEqual(result.status, 0, "\(tool) rejects \(path): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", "\(tool) on \(path)")
            XCTAssertEqual(shell, tool)
        }
    }

    func testZshRegistersTheFunction() throws {
        let zsh = try requireTool("zsh")
        // Never `-d /dev/null`: compinit replaces its dump file, and as root that turned /dev/null
        // into a regular file for the whole machine.
        let dump = TempDir().path + "/zcompdump"
        let script = """
            autoload -Uz compinit && compinit -u -D -d \(CompletionModel.shQuoted(dump))
            source \(CompletionModel.shQuoted(repositoryRoot + "/completions/_subs"))
            print -r -- ${_comps[subs]}
            """
        let result = try runProcess(zsh, ["-f", "-c", script])
        XCTAssertEqual(result.stdout, "_subs\n", result.stderr)
        XCTAssertEqual(result.stderr, "")
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null is no longer a device")
    }

    /// What `_subs` offers for the words (the last one is being completed). zsh's completion
    /// builtins only work inside a completion widget, so they are replaced by stand-ins that
    /// print what they were given (zsh itself would then filter by the prefix). `zsh`: the
    /// program, resolved by the test before its assertions.
    func zshOffers(_ zsh: String, _ words: [String]) throws -> [String] {
        let script = """
            compdef() { : }
            source \(CompletionModel.shQuoted(repositoryRoot + "/completions/_subs"))
            compadd() { if [[ $1 == -a ]]; then print -l -- ${(P)2}; else shift; print -l -- "$@"; fi }
            _describe() { local name=${@[-1]}; print -l -- ${${(P)name}%%:*}; }
            _files() { print -- '<files>'; }
            _message() { : }
            compset() { PREFIX=${PREFIX#*=}; }
            words=(\(words.map(CompletionModel.shQuoted).joined(separator: " "))); CURRENT=$#words; PREFIX=${words[-1]}
            _subs
            """
        let result = try runProcess(zsh, ["-f", "-c", script])
        XCTAssertEqual(result.stderr, "", "zsh completion of \(words)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    func testZshOffersCommandsOptionsAndValues() throws {
        let zsh = try requireTool("zsh")
        func zshOffers(_ words: [String]) throws -> [String] { try self.zshOffers(zsh, words) }
        XCTAssertEqual(try zshOffers(["subs", ""]), CompletionModel(.subs).topWords.map(\.word).sorted())
        XCTAssertEqual(try zshOffers(["subs", "--json", "store", ""]), ["compact", "init", "validate"])
        XCTAssertEqual(try zshOffers(["subs", "--format", ""]), ["csv", "json", "jsonl", "table", "tsv"])
        XCTAssertEqual(try zshOffers(["subs", "check", "--format=j"]), ["csv", "json", "jsonl", "table", "tsv"])
        XCTAssertEqual(try zshOffers(["subs", "--store", ""]), ["<files>"])
        XCTAssertEqual(try zshOffers(["subs", "completion", ""]), ["bash", "fish", "zsh"])
        let grant = try zshOffers(["subs", "grant", "alice", "--"])
        XCTAssertTrue(grant.contains("--lifetime") && grant.contains("--store") && grant.contains("-q"))
        XCTAssertFalse(grant.contains("--require"))
        XCTAssertEqual(Set(try zshOffers(["subs", "-"])),
                       Set(CommandLineSpec.subs.globalOptions.flatMap { [$0.longName] + ($0.shortName.map { [$0] } ?? []) }))
    }

    /// COMPREPLY of the bash script for the words (the last one is being completed), sorted.
    /// bash is resolved once, in setUp, so that a missing bash skips before any assertion.
    func bashComplete(_ words: [String], wordBreaks: String? = nil) throws -> [String] {
        let quoted = words.map(CompletionModel.shQuoted).joined(separator: " ")
        var script = "source \(CompletionModel.shQuoted(repositoryRoot + "/completions/subs.bash"))\n"
        if let wordBreaks { script += "COMP_WORDBREAKS=\(CompletionModel.shQuoted(wordBreaks))\n" }
        script += """
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMPREPLY=()
            _subs
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try runProcess(bash, ["--norc", "--noprofile", "-c", script])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "", "bash completion of \(words)")
        return result.stdout.split(separator: "\n").map(String.init).sorted()
    }

    func testBashCompletesCommandsAndSubcommands() throws {
        try requireBash()
        XCTAssertEqual(try bashComplete(["subs", "ch"]), ["check"])
        XCTAssertEqual(try bashComplete(["subs", "re"]), ["renew-count", "revoke"])
        XCTAssertEqual(try bashComplete(["subs", ""]), CompletionModel(.subs).topWords.map(\.word).sorted())
        XCTAssertEqual(try bashComplete(["subs", "--json", "st"]), ["store"])
        XCTAssertEqual(try bashComplete(["subs", "--store", "x.json", "st"]), ["store"], "an option's value is not the command")
        XCTAssertEqual(try bashComplete(["subs", "store", ""]), ["compact", "init", "validate"])
        XCTAssertEqual(try bashComplete(["subs", "completion", ""]), ["bash", "fish", "zsh"])
        XCTAssertEqual(try bashComplete(["subs", "help", "h"]), ["help", "history"])
    }

    func testBashCompletesOptionsOfTheCommand() throws {
        try requireBash()
        XCTAssertEqual(try bashComplete(["subs", "check", "--req"]), ["--require"])
        XCTAssertEqual(try bashComplete(["subs", "grant", "alice", "premium", "--li"]), ["--lifetime"])
        XCTAssertEqual(try bashComplete(["subs", "store", "init", "--d"]), ["--demo"])
        let check = try bashComplete(["subs", "check", "alice", "--"])
        XCTAssertTrue(check.contains("--require") && check.contains("--store") && check.contains("--json"))
        XCTAssertFalse(check.contains("--duration"), "grant's options are not check's")
        let top = try bashComplete(["subs", "--"])
        XCTAssertEqual(Set(top), Set(CommandLineSpec.subs.globalOptions.map(\.longName)))
        XCTAssertEqual(try bashComplete(["subs", "-"]).filter { !$0.hasPrefix("--") }, ["-h", "-q"])
    }

    func testBashCompletesOptionValues() throws {
        try requireBash()
        XCTAssertEqual(try bashComplete(["subs", "--format", ""]), ["csv", "json", "jsonl", "table", "tsv"])
        XCTAssertEqual(try bashComplete(["subs", "check", "alice", "--format", "js"]), ["json", "jsonl"])
        XCTAssertEqual(try bashComplete(["subs", "check", "--color", ""]), ["always", "auto", "never"])
        XCTAssertEqual(try bashComplete(["subs", "--provider", "r"]), ["revenuecat"])
        XCTAssertEqual(try bashComplete(["subs", "check", "a", "--at", "n"]), ["now"])
        XCTAssertEqual(try bashComplete(["subs", "grant", "a", "p", "--reason", ""]), [])
        // bash splits --format=js at '=' by default ...
        XCTAssertEqual(try bashComplete(["subs", "--format", "=", "js"]), ["json", "jsonl"])
        XCTAssertEqual(try bashComplete(["subs", "--format", "="]), ["csv", "json", "jsonl", "table", "tsv"])
        // ... and keeps it whole when '=' is not a word break.
        XCTAssertEqual(try bashComplete(["subs", "--format=js"], wordBreaks: " \t\n"), ["--format=json", "--format=jsonl"])
    }

    func testBashCompletesFilePaths() throws {
        try requireBash()
        let directory = NSTemporaryDirectory() + "subs-completion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["store.json", "stats.txt", "other"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data()))
        }
        XCTAssertEqual(try bashComplete(["subs", "--store", directory + "/st"]),
                       [directory + "/stats.txt", directory + "/store.json"])
        XCTAssertEqual(try bashComplete(["subs", "serve", "--token-file", directory + "/o"]), [directory + "/other"])
        XCTAssertEqual(try bashComplete(["subs", "--config", directory + "/o"]), [directory + "/other"])
        XCTAssertEqual(try bashComplete(["subs", "--api-key-file", directory + "/o"]), [directory + "/other"])
    }

    /// Needs the `__complete` runner (Commands/): lists ids from the store given with --store.
    func testBashCompletesCustomerIdsFromStore() throws {
        try requireBash()
        let subs = try builtSubs()
        let store = try writeCompletionStore()
        defer { try? FileManager.default.removeItem(atPath: store) }
        XCTAssertEqual(try bashComplete([subs, "--store", store, "check", "al"]), ["alan", "alice"])
        XCTAssertEqual(try bashComplete([subs, "check", "--store=\(store)", "bob", "al"], wordBreaks: " \t\n"),
                       ["alan", "alice"])
        XCTAssertEqual(try bashComplete([subs, "--store", store, "history", ""]), ["alan", "alice", "bob"])
        XCTAssertEqual(try bashComplete([subs, "--store", store, "grant", "alice", "pr"]), ["premium", "pro"])
        XCTAssertEqual(try bashComplete([subs, "--store", store, "check", "alice", "--require", "p"]), ["premium", "pro"])
        XCTAssertEqual(try bashComplete([subs, "--store", store, "renew-count", "bob", ""]), ["premium", "pro"])
    }

    /// A stand-in `subs` that records its arguments and answers two ids: checks what the scripts
    /// ask `__complete`, independently of the real runner.
    func fakeSubs() throws -> (directory: String, program: String, arguments: () -> [String]) {
        let directory = NSTemporaryDirectory() + "subs-fake-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let program = directory + "/subs"
        try """
            #!/bin/sh
            printf '%s\\n' "$@" > \(CompletionModel.shQuoted(directory + "/arguments"))
            printf 'alpha\\nalpine\\n'
            """.write(toFile: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program)
        let read = {
            ((try? String(contentsOfFile: directory + "/arguments", encoding: .utf8)) ?? "")
                .split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        return (directory, program, read)
    }

    func testBashAsksCompleteWithTheStoreAndPrefix() throws {
        try requireBash()
        let fake = try fakeSubs()
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        XCTAssertEqual(try bashComplete([fake.program, "--store", "/s.json", "check", "al"]), ["alpha", "alpine"])
        XCTAssertEqual(fake.arguments(), ["--store", "/s.json", "__complete", "customers", "--", "al"])
        // After the first user, grant asks for entitlements and customers: the fake answers both.
        XCTAssertEqual(try bashComplete([fake.program, "grant", "--store", "=", "/t.json", "bob", ""]),
                       ["alpha", "alpha", "alpine", "alpine"])
        XCTAssertEqual(fake.arguments(), ["--store", "/t.json", "__complete", "customers", "--", ""],
                       "customers are asked last, after the entitlements")
        _ = try bashComplete([fake.program, "check", "--store=/u.json", "a", "--require", "-x"], wordBreaks: " \t\n")
        XCTAssertEqual(fake.arguments(), ["--store", "/u.json", "__complete", "entitlements", "--", "-x"])
        _ = try bashComplete([fake.program, "history", "x"])
        XCTAssertEqual(fake.arguments(), ["__complete", "customers", "--", "x"])
        _ = try bashComplete([fake.program, "renew-count", "bob", "p"])
        XCTAssertEqual(fake.arguments(), ["__complete", "entitlements", "--", "p"])
    }

    func testFishAsksCompleteWithTheStoreAndPrefix() throws {
        let fish = try requireTool("fish")
        let fake = try fakeSubs()
        defer { try? FileManager.default.removeItem(atPath: fake.directory) }
        let script = "source \(CompletionModel.fishQuoted(repositoryRoot + "/completions/subs.fish")); "
            + "complete -C 'subs --store /s.json history al'"
        let path = fake.directory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try runProcess(fish, ["--no-config", "-c", script],
                                    environment: ["PATH": path, "HOME": fake.directory])
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.stdout.split(separator: "\n").sorted(), ["alpha", "alpine"])
        XCTAssertEqual(fake.arguments(), ["--store", "/s.json", "__complete", "customers", "--", "al"])
    }

    func testFishCompletesCommandsOptionsAndValues() throws {
        let program = try requireTool("fish")
        func fish(_ line: String) throws -> [String] {
            let script = "source \(CompletionModel.fishQuoted(repositoryRoot + "/completions/subs.fish")); complete -C \(CompletionModel.fishQuoted(line))"
            let result = try runProcess(program, ["--no-config", "-c", script])
            XCTAssertEqual(result.stderr, "", line)
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
        }
        XCTAssertEqual(try fish("subs ch"), ["check"])
        XCTAssertEqual(try fish("subs store "), ["compact", "init", "validate"])
        XCTAssertEqual(try fish("subs check --req"), ["--require"])
        XCTAssertEqual(try fish("subs --format j"), ["json", "jsonl"])
        XCTAssertEqual(try fish("subs completion "), ["bash", "fish", "zsh"])
        XCTAssertFalse(try fish("subs check --").contains("--duration"))
        XCTAssertTrue(try fish("subs grant a p --").contains("--duration"))
    }

    /// A store with customers alice, alan, bob and entitlements premium, pro (SPEC section 2).
    func writeCompletionStore() throws -> String {
        let path = NSTemporaryDirectory() + "subs-completion-store-\(UUID().uuidString).json"
        let json = """
            {
              "schemaVersion": 1,
              "products": {
                "pro_monthly": {"type": "subscription", "entitlements": ["premium", "pro"]},
                "lifetime": {"type": "nonConsumable", "entitlements": ["premium"]}
              },
              "customers": {
                "alice": {"transactions": []},
                "alan": {},
                "bob": {"grants": [{"id": "g1", "entitlement": "pro", "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": null}]}
              }
            }
            """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
