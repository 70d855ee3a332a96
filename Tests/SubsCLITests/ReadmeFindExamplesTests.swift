// The README's `find` section is the truth: every `console` block in it is run on the demo store
// (SUBS_STORE=examples/store.json, SUBS_NOW at the demo's reference instant) and its output —
// standard output, then standard error — must be what the block shows. `$ echo $?` prints the
// exit status of the command before it.

import XCTest

final class ReadmeFindExamplesTests: XCTestCase {
    /// The `console` blocks of the README section whose heading starts with `heading`.
    static func consoleBlocks(inSectionStartingWith heading: String) throws -> [[String]] {
        let readme = try String(contentsOfFile: Repo.path("README.md"), encoding: .utf8)
        let parts = readme.components(separatedBy: "\n" + heading)
        guard parts.count == 2 else { return [] }
        let section = parts[1].components(separatedBy: "\n### ").first ?? ""
        var blocks: [[String]] = []
        var current: [String]?
        for line in section.components(separatedBy: "\n") {
            if current == nil, line == "```console" { current = []; continue }
            if current != nil, line == "```" { blocks.append(current!); current = nil; continue }
            current?.append(line)
        }
        return blocks
    }

    /// A command line split into words the way a shell would for these examples (quotes, no expansion).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(c)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    func testEveryFindExampleOfTheReadmePrintsWhatItShows() throws {
        let blocks = try Self.consoleBlocks(inSectionStartingWith: "### `find TERM...`")
        XCTAssertGreaterThanOrEqual(blocks.count, 3)
        var commands = 0
        var kinds: Set<String> = []
        for block in blocks {
            var lastStatus: Int32 = 0
            var index = 0
            while index < block.count {
                let line = block[index]
                guard line.hasPrefix("$ ") else { XCTFail("output before a command: \(line)"); break }
                index += 1
                var expected: [String] = []
                while index < block.count, !block[index].hasPrefix("$ ") { expected.append(block[index]); index += 1 }
                let command = String(line.dropFirst(2))
                let got: String
                if command == "echo $?" {
                    got = "\(lastStatus)\n"
                } else {
                    let words = Self.words(command)
                    XCTAssertEqual(words.first, "subs", command)
                    let result = runCLI(Array(words.dropFirst()), env: ["SUBS_STORE": Repo.exampleStore])
                    lastStatus = result.status.rawValue
                    got = result.stdout + result.stderr
                    commands += 1
                    for kind in ["customerId", "alias", "email", "transactionId", "orderId", "attribute"] where got.contains(kind) {
                        kinds.insert(kind)
                    }
                }
                XCTAssertEqual(got, expected.map { $0 + "\n" }.joined(), "README: $ \(command)")
            }
        }
        XCTAssertGreaterThanOrEqual(commands, 7)
        // One example per kind of term (originalTransactionId: the demo's chains all keep their first transaction).
        XCTAssertEqual(kinds, ["customerId", "alias", "email", "transactionId", "orderId", "attribute"])
    }
}
