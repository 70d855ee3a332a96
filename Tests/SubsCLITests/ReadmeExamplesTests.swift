// Every ```console example of the README is run, in order, against the demo store at the fixed
// clock, piped, and must print exactly what the README shows (standard output and standard
// error as a terminal would interleave them). Examples without --store use a copy of the demo
// store (so grant then revoke run on the same copy); `broken.json` is the demo store with the
// two faults the README describes.

import Foundation
import SubsCLI
import SubsJSON
import SubsKit
import XCTest

final class ReadmeExamplesTests: XCTestCase {
    struct Example {
        var line: Int
        var command: String
        var expected: String
    }

    /// `$ command` lines of ```console blocks and the lines after each, up to the next `$ ` or the fence.
    static func examples() throws -> [Example] {
        let readme = try String(contentsOfFile: Repo.path("README.md"), encoding: .utf8)
        var examples: [Example] = []
        var inConsole = false
        for (number, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                examples.append(Example(line: number + 1, command: String(line.dropFirst(2)), expected: ""))
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
        let examples = try Self.examples()
        XCTAssertGreaterThanOrEqual(examples.count, 7, "the README's console examples were found")
        let dir = TempDir()
        let copy = dir.path + "/store.json"
        // examples/store.json is a link into the sources: copy what it holds.
        dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let broken = try brokenStore(in: dir)
        for example in examples {
            guard var args = try? Self.words(example.command) else {
                XCTFail("README line \(example.line): a console example must be one plain subs command: \(example.command)")
                continue
            }
            XCTAssertEqual(args.first, "subs", "README line \(example.line)")
            args.removeFirst()
            args = args.map { $0 == "examples/store.json" ? Repo.exampleStore : $0 == "broken.json" ? broken : $0 }
            let both = CLIHarness(env: ["SUBS_STORE": copy]).run(args).combined
            let shown = both.replacingOccurrences(of: broken, with: "broken.json")
            XCTAssertEqual(shown, example.expected, "README line \(example.line): \(example.command)")
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
