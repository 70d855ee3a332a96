// Customer ids on standard input are read as a stream: a NUL or control byte, invalid UTF-8 or a
// line over 4 096 bytes is exit 65 at once with its line number, CRLF stays accepted, and memory
// stays bounded whatever stdin holds — checked against the built binary with /dev/zero,
// /dev/urandom and an endless stream of valid ids, under a memory limit and a timeout.

import Foundation
import XCTest
@testable import SubsCLI

final class StdinStreamTests: XCTestCase {
    let dir = TempDir()
    lazy var store = dir.write("store.json", TestStore.json)

    func check(_ stdin: String, _ extra: [String] = []) -> CLIResult {
        runCLI(["--store", store, "check", "-", "--format", "tsv"] + extra, stdin: stdin)
    }

    func testBadBytesAreExit65WithTheirLine() {
        let cases: [(String, String)] = [
            ("alice\n\u{0}bob\n", "standard input:2: NUL byte in customer ids"),
            ("alice\r\nbo\u{1B}[31mb\r\n", "standard input:2: control character 0x1B in customer ids"),
            ("# a comment with a bell \u{7}\nalice\n", "standard input:1: control character 0x07 in customer ids"),
            ("alice\rbob\n", "standard input:1: control character 0x0D in customer ids"),
            ("alice\n\n\u{7F}\n", "standard input:3: control character 0x7F in customer ids"),
            ("al\tice\n", "standard input:1: control character in customer id"),
            ("alice\n" + String(repeating: "x", count: 4097) + "\n", "standard input:2: line longer than 4096 bytes"),
        ]
        for (stdin, message) in cases {
            for arguments in [["check", "-"], ["check", "-", "--require", "premium"], ["grant", "-", "premium", "--lifetime"]] {
                let result = runCLI(["--store", store] + arguments, stdin: stdin)
                XCTAssertEqual(result.status, .dataError, "\(arguments) \(stdin.debugDescription)")
                XCTAssertEqual(result.stderr, "subs: error: \(message)\n", "\(arguments) \(stdin.debugDescription)")
                XCTAssertEqual(result.stdout, "")
            }
        }
        XCTAssertEqual(try String(contentsOfFile: store, encoding: .utf8), TestStore.json, "nothing written")
    }

    func testCRLFBlanksTabsAndTheLongestLineAreAccepted() {
        let result = check("# ids\r\nalice\r\n\r\n\t bob \t\r\nalice-android\r")
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 4, result.stdout)
        let longest = check(String(repeating: "z", count: 4096) + "\r\n")
        XCTAssertEqual(longest.status, .notFound, longest.stderr)
        XCTAssertTrue(longest.stderr.hasPrefix("subs: error: customer 'zzz"), longest.stderr)
    }

    func testTooManyIdsIsExit65WithTheLine() throws {
        var sent = 0
        let endless: () -> [UInt8]? = {
            sent += 1
            return Array(String(repeating: "alice\n# comment\n\n", count: 1000).utf8)
        }
        XCTAssertThrowsError(try StdinIds.parse(endless, maxIds: 2500)) { error in
            let failure = error as? CommandFailure
            XCTAssertEqual(failure?.code, .dataError)
            XCTAssertEqual(failure?.message, "standard input:7501: more than 2500 customer ids", "blank and comment lines do not count")
        }
        XCTAssertEqual(sent, 3)
        XCTAssertEqual(try StdinIds.parse({ nil }, maxIds: 1), [])
    }

    /// The built binary with stdin from a device or an endless pipe, at most 400 MB of address
    /// space and 30 s: exit 65 with the line, never a crash for want of memory, never a hang.
    func testEndlessStdinStopsEarlyWithBoundedMemory() throws {
        let subs = "'\(Binary.url.path)' --store '\(store)'"
        let bounded = "ulimit -v 400000; exec timeout 30"
        for (input, pattern) in [("< /dev/zero", #"^subs: error: standard input:1: NUL byte in customer ids\n$"#),
                                 ("< /dev/urandom", #"^subs: error: standard input:\d+: [^\n]+\n$"#)] {
            for command in ["check -", "check - --require premium", "grant - premium --lifetime", "history -"] {
                let result = try shell("set +o pipefail; (\(bounded) \(subs) \(command)) \(input)")
                XCTAssertEqual(result.status, 65, "\(command) \(input): \(result.stderr.prefix(500))")
                XCTAssertNotNil(result.stderr.range(of: pattern, options: .regularExpression), "\(command) \(input): \(result.stderr.prefix(500))")
                XCTAssertEqual(result.stdout, "")
            }
        }
        let endless = try shell("set +o pipefail; yes alice | (\(bounded) \(subs) check - --format tsv)")
        XCTAssertEqual(endless.status, 65, String(endless.stderr.prefix(500)))
        XCTAssertEqual(endless.stderr, "subs: error: standard input:100001: more than 100000 customer ids\n")
        XCTAssertEqual(endless.stdout, "")
        let oneLine = try shell("set +o pipefail; tr -d '\\n' < /dev/zero | tr '\\0' a | (\(bounded) \(subs) check -)")
        XCTAssertEqual(oneLine.status, 65, String(oneLine.stderr.prefix(500)))
        XCTAssertEqual(oneLine.stderr, "subs: error: standard input:1: line longer than 4096 bytes\n")
        XCTAssertEqual(try String(contentsOfFile: store, encoding: .utf8), TestStore.json, "nothing written")
    }
}
