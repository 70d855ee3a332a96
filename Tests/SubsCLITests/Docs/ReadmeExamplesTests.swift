// Every ```console example of the documentation — README.md, CONTRIBUTING.md and every
// docs/*.md — is run, in order, against the demo store at the fixed clock, piped, and must print
// exactly what the page shows (standard output and standard error as a terminal would interleave
// them). Examples without --store use a copy of the demo store, one copy per page (so grant then
// revoke run on the same copy, and one page's writes never change another's answers);
// `broken.json` is the demo store with the two faults the reference describes.

import Foundation
import SubsJSON
import SubsCLI
import XCTest

final class ReadmeExamplesTests: XCTestCase {
    struct Example {
        /// The page, relative to the repository root (`README.md`, `docs/reference.md`).
        var file: String
        var line: Int
        var command: String
        var expected: String
    }

    /// The pages whose console examples are run: the README, CONTRIBUTING.md and every
    /// Markdown page under docs/ (a page added there is run without being listed here).
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Repo.path("docs"))
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CONTRIBUTING.md"] + docs
    }

    /// The console examples of every page of `documents()`, page by page, in order.
    static func examples() throws -> [Example] {
        try documents().flatMap { try examples(in: $0) }
    }

    /// `$ command` lines of ```console blocks and the lines after each, up to the next `$ ` or the fence.
    static func examples(in file: String) throws -> [Example] {
        let readme = try String(contentsOfFile: Repo.path(file), encoding: .utf8)
        var examples: [Example] = []
        var inConsole = false
        for (number, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                examples.append(Example(file: file, line: number + 1, command: String(line.dropFirst(2)), expected: ""))
            } else if !examples.isEmpty {
                examples[examples.count - 1].expected += line + "\n"
            }
        }
        return examples
    }

    struct NotPlain: Error {}

    /// Shell words: spaces separate, single and double quotes group. Pipes and redirections are
    /// not examples this test can run, so they fail it.
    static func words(_ command: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                if "|<>;&$`".contains(character) { throw NotPlain() }
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    func testEveryConsoleExamplePrintsWhatTheReadmeShows() throws {
        let documents = try Self.documents()
        XCTAssertTrue(documents.contains("docs/reference.md"), "docs/ was read: \(documents)")
        // The front door shows one example per command (check, history, find, grant, revoke,
        // renew-count); the reference keeps every example the README had before the move.
        XCTAssertGreaterThanOrEqual(try Self.examples(in: "README.md").count, 6, "the README's console examples were found")
        XCTAssertGreaterThanOrEqual(try Self.examples(in: "docs/reference.md").count, 15, "the reference's console examples were found")
        for document in documents {
            try runExamples(of: document)
        }
    }

    /// Issue 30: the README's examples run as written on any date. Every read command among them
    /// is pinned to the demo's instant with `--at` in the command itself, and prints what the
    /// README shows at clocks a year and more away from the demo's window (and at 1970).
    func testTheREADMEsPinnedExamplesPrintTheSameOnAnyDate() throws {
        let examples = try Self.examples(in: "README.md")
        let reads = examples.filter { example in
            let args = (try? Self.words(example.command)) ?? []
            return args.contains { ["check", "history", "find", "renew-count"].contains($0) }
        }
        XCTAssertGreaterThanOrEqual(reads.count, 4, "the README's read examples were found")
        for example in reads {
            XCTAssertTrue(example.command.contains("--at 2026-12-01T12:00:00Z"), "README.md line \(example.line): not pinned: \(example.command)")
        }
        let quickStart = try String(contentsOfFile: Repo.path("README.md"), encoding: .utf8)
            .split(separator: "\n").first { $0.contains("swift run subs") }
        XCTAssertTrue(quickStart?.contains("--at 2026-12-01T12:00:00Z") == true, "the quick start is pinned: \(quickStart ?? "")")
        // The quick start's command tells the same story (a grace period, a billing retry, a
        // renewal) at the demo's instant and a year later.
        let command = String(quickStart?.split(separator: "#").first ?? "").replacingOccurrences(of: "swift run subs", with: "subs")
        var quickArgs = try Self.words(command.trimmingCharacters(in: .whitespaces))
        quickArgs.removeFirst()
        quickArgs = quickArgs.map { $0 == "examples/store.json" ? Repo.exampleStore : $0 }
        let atDemo = CLIHarness(now: "2026-12-01T12:00:00Z").run(quickArgs)
        XCTAssertEqual(atDemo.status, .success, atDemo.stderr)
        XCTAssertTrue(atDemo.stdout.contains("grace period") && atDemo.stdout.contains("billing retry")
                      && atDemo.stdout.contains("active, renews"), atDemo.stdout)
        XCTAssertEqual(CLIHarness(now: "2027-12-01T12:00:00Z").run(quickArgs).stdout, atDemo.stdout)
        for now in ["2027-12-01T12:00:00Z", "2031-06-15T08:30:00Z", nil] {
            for example in reads {
                let dir = TempDir()
                let copy = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
                var args = try Self.words(example.command)
                args.removeFirst()
                args = args.map { $0 == "examples/store.json" ? Repo.exampleStore : $0 }
                let shown = CLIHarness(env: ["SUBS_STORE": copy], now: now).run(args).combined
                XCTAssertEqual(shown, example.expected, "README.md line \(example.line) at \(now ?? "1970"): \(example.command)")
            }
        }
    }

    /// Runs the examples of one page, in order, on a fresh copy of the demo store.
    private func runExamples(of document: String) throws {
        let dir = TempDir()
        let copy = dir.path + "/store.json"
        // examples/store.json is a link into the sources: copy what it holds.
        dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let broken = try brokenStore(in: dir)
        for example in try Self.examples(in: document) {
            let place = "\(example.file) line \(example.line)"
            guard var args = try? Self.words(example.command) else {
                XCTFail("\(place): a console example must be one plain subs command: \(example.command)")
                continue
            }
            XCTAssertEqual(args.first, "subs", place)
            args.removeFirst()
            args = args.map { $0 == "examples/store.json" ? Repo.exampleStore : $0 == "broken.json" ? broken : $0 }
            let both = CLIHarness(env: ["SUBS_STORE": copy]).run(args).combined
            let shown = both.replacingOccurrences(of: broken, with: "broken.json")
            XCTAssertEqual(shown, example.expected, "\(place): \(example.command)")
        }
    }

    /// The demo store with alice's fourth transaction's expirationDate taken out and bob given
    /// alice's alias, written as `broken.json` in `dir`.
    private func brokenStore(in dir: TempDir) throws -> String {
        var store = try JSON.parse(String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        guard case .object(var root) = store, case .object(var customers)? = root["customers"],
              case .object(var alice)? = customers["alice"], case .array(var transactions)? = alice["transactions"],
              case .object(var fourth) = transactions[3], case .object(var bob)? = customers["bob"] else {
            struct DemoChanged: Error {}
            XCTFail("the demo store changed shape: update the broken.json example")
            throw DemoChanged()
        }
        fourth["expirationDate"] = nil
        transactions[3] = .object(fourth)
        alice["transactions"] = .array(transactions)
        bob["aliases"] = .array([.string("alice-android")])
        customers["alice"] = .object(alice)
        customers["bob"] = .object(bob)
        root["customers"] = .object(customers)
        store = .object(root)
        return dir.write("broken.json", JSONWriter.pretty(store))
    }
}
