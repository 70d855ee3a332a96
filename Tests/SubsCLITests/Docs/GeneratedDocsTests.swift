// The parts of README.md and docs/ that state facts of the code (the provider matrix, the exit
// status tables, the capability lines) are what the code generates, and an exit status named in
// their prose is a `[exit N][exit:NAME]` link whose number comes from its name, never a bare
// number. SUBS_RECORD=1 rewrites the files (and fails, so a recording never passes silently).

import Foundation
import XCTest
@testable import SubsCLI

final class GeneratedDocsTests: XCTestCase {
    func read(_ file: String) throws -> String {
        try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8)
    }

    func testGeneratedRegionsAndExitLinksMatchTheCode() throws {
        for file in GeneratedDocs.files {
            let text = try read(file)
            let regenerated: String
            do {
                regenerated = try GeneratedDocs.regenerate(text, file: file)
            } catch {
                XCTFail("\(error)")
                continue
            }
            assertMatchesRecorded(regenerated, file)
        }
    }

    func testEveryGeneratedRegionIsInItsFile() throws {
        for (file, name) in [("README.md", "providers"), ("README.md", "exit-statuses"),
                             ("docs/reference.md", "exit-statuses"), ("docs/providers.md", "capabilities")] {
            let text = try read(file)
            XCTAssertTrue(text.contains("<!-- generated: \(name) "), "\(file) lacks region \(name)")
            let body = try XCTUnwrap(GeneratedDocs.region(name, of: file))
            XCTAssertTrue(text.contains(body), "\(file): region \(name) is not what the code generates")
        }
    }

    func testNoExitStatusIsABareNumberInTheDocs() throws {
        for file in GeneratedDocs.files {
            let problems = GeneratedDocs.literalExitStatuses(in: try read(file), file: file)
            XCTAssertEqual(problems.map(\.description), [], "write [exit N][exit:NAME] instead")
        }
    }

    /// A flag named in the docs or the man pages is one subs has (help's option table), or one
    /// of the few other tools the docs show (the benchmark, swift, wrk): a renamed or misspelt
    /// option fails here instead of leading a reader to a usage error.
    func testEveryFlagTheDocsNameExists() throws {
        let subs = Set(CommandLineSpec.subs.globalOptions.map(\.longName) + CommandLineSpec.subs.commands.flatMap { $0.options.map(\.longName) }
                       + ["--help", "--version"])
        // subs-bench's own options are read off its parser, so that they cannot drift either.
        let bench = try String(contentsOfFile: repositoryRoot + "/Sources/subs-bench/BenchOptions.swift", encoding: .utf8)
        let benchFlags = Set(Self.flags(in: bench.split(separator: "\n").filter { $0.contains("case \"--") }.joined(separator: "\n")))
        XCTAssertTrue(benchFlags.isSuperset(of: ["--runs", "--keep", "--only"]), "subs-bench's options were found: \(benchFlags)")
        // swift, swift test and wrk; `--name value` is how the docs say an option takes its value.
        let otherTools: Set<String> = ["--filter", "--skip-build", "--static-swift-stdlib", "--latency", "--name"]
        var unknown: [String] = []
        for file in GeneratedDocs.files + ["man/subs.1", "man/subs-store.5"] {
            for (number, line) in try read(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for flag in Self.flags(in: String(line)) where !subs.contains(flag) && !benchFlags.contains(flag) && !otherTools.contains(flag) {
                    unknown.append("\(file):\(number + 1): \(flag)")
                }
            }
        }
        XCTAssertEqual(unknown, [], "a flag no tool has")
        XCTAssertEqual(Self.flags(in: "`--remote URL`, --name=value, (#find--which-customer) and --x-y."), ["--remote", "--name", "--x-y"])
    }

    /// `--name` words of a text: not inside another word or an anchor (`#find--which-customer`).
    static func flags(in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: "(?<![\\w#-])--[a-z][a-z0-9-]*[a-z0-9]")
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }

    func testTheDetectorFindsTheFormsProseUses() {
        XCTAssertEqual(GeneratedDocs.literalExits("`renew-count` is exit 69 and"), ["exit 69"])
        XCTAssertEqual(GeneratedDocs.literalExits("subs exits 77. Exit status 3, then"), ["exits 77", "Exit status 3"])
        XCTAssertEqual(GeneratedDocs.literalExits("is [exit 64][exit:not-offered]; `exit 69` in code"), [])
        XCTAssertEqual(GeneratedDocs.literalExits("an exit status tells; exit statuses 0x"), [])
        let text = "a\n```sh\nexit 3\n```\n<!-- generated: x (y) -->\nexit 4\n<!-- end generated: x -->\nexit 5\n"
        XCTAssertEqual(GeneratedDocs.literalExitStatuses(in: text, file: "f").map(\.description), ["f:8: 'exit 5': name the status as [exit 5][exit:NAME]"])
    }

    func testALinkTakesItsNumberFromItsName() throws {
        let text = "RevenueCat v1's renew-count is [exit 69][exit:not-offered], a lost server [exit 64][exit:unavailable].\n"
        let regenerated = try GeneratedDocs.regenerate(text, file: "docs/providers.md")
        XCTAssertTrue(regenerated.hasPrefix("RevenueCat v1's renew-count is [exit 64][exit:not-offered], a lost server [exit 69][exit:unavailable].\n"),
                      regenerated)
        XCTAssertTrue(regenerated.contains("\n[exit:not-offered]: reference.md#exit-status\n[exit:unavailable]: reference.md#exit-status\n"),
                      regenerated)
        XCTAssertTrue(try GeneratedDocs.regenerate(text, file: "README.md").contains("[exit:not-offered]: docs/reference.md#exit-status"))
        let shown = "write `[exit 69][exit:not-offered]` for it\n"
        XCTAssertEqual(try GeneratedDocs.regenerate(shown, file: "CONTRIBUTING.md"), shown, "a code span shows the markup as it is")
    }

    func testAnUnknownNameOrRegionFails() {
        XCTAssertThrowsError(try GeneratedDocs.regenerate("is [exit 64][exit:not-ofered].\n", file: "README.md")) {
            XCTAssertEqual(($0 as? GeneratedDocs.Problem)?.message, "unknown exit status name 'not-ofered'")
        }
        XCTAssertThrowsError(try GeneratedDocs.regenerate("<!-- generated: nothing -->\n<!-- end generated: nothing -->\n",
                                                          file: "README.md"))
        XCTAssertThrowsError(try GeneratedDocs.regenerate("<!-- generated: providers -->\nno end\n", file: "README.md"))
    }

    /// The facts issue 30 found contradicted: "not offered" is 64 everywhere, IAPHUB has history,
    /// the README lists 70 and 141.
    func testTheDocsSayWhatTheCodeDoes() throws {
        let readme = try read("README.md")
        let exitTable = try XCTUnwrap(GeneratedDocs.region("exit-statuses", of: "README.md"))
        for code in ExitCode.meanings.map(\.code.rawValue) {
            XCTAssertTrue(exitTable.contains("\n| \(code) | "), "README lacks exit status \(code)")
        }
        XCTAssertTrue(readme.contains("| 70 | ") && readme.contains("| 141 | "))
        let matrix = try XCTUnwrap(GeneratedDocs.region("providers", of: "README.md"))
        let iaphub = try XCTUnwrap(matrix.split(separator: "\n").first { $0.hasPrefix("| IAPHUB |") })
        XCTAssertTrue(iaphub.contains("| yes | yes |"), "IAPHUB offers history and renew-count: \(iaphub)")
        for file in GeneratedDocs.files {
            let text = try read(file)
            XCTAssertFalse(text.contains("[exit 69][exit:not-offered]"), file)
        }
    }
}
