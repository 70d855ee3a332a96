// Issue 30: on a terminal, output taller than the screen goes through a pager (SUBS_PAGER,
// --pager, the config file, then PAGER, default less -FRX; cat or empty: none; --no-pager), never
// when stdout is not a terminal, never with -q; quitting the pager early is silent and the
// command's exit status is kept. In process (the decision, with a pager script that keeps what it
// reads) and end to end on a real pseudo-terminal (isatty in the child, EPIPE, a pager not found).

import Foundation
import SubsCLI
import XCTest

final class PagerTests: XCTestCase {
    private var dir: TempDir!
    /// A pager that keeps what it reads in `kept` and says it ran on the terminal.
    private var keeper: String!
    private var kept: String { dir.path + "/kept.txt" }

    override func setUp() {
        dir = TempDir()
        keeper = script("keeper", "#!/bin/sh\necho \"LESS=$LESS\" > \"\(dir.path)/env.txt\"\ncat > \"\(dir.path)/kept.txt\"\necho PAGED\n")
    }

    private func script(_ name: String, _ text: String) -> String {
        let path = dir.write(name, text)
        chmod(path, 0o755)
        return path
    }

    private var allDemoIds: String { ((try? demoCustomerIds()) ?? []).joined(separator: "\n") + "\n" }

    /// In process, stdout a terminal of `lines` rows.
    private func run(_ args: [String], lines: Int? = 10, env: [String: String] = [:], terminal: Bool = true,
                     stdin: String? = nil) -> CLIResult {
        var all = env
        if let lines { all["LINES"] = String(lines) }
        all["COLUMNS"] = all["COLUMNS"] ?? "100"
        return CLIHarness(env: all, stdin: stdin, terminal: terminal).run(["--store", Repo.exampleStore, "--color", "never"] + args)
    }

    private func keptText() -> String? {
        FileManager.default.contents(atPath: kept).map { String(decoding: $0, as: UTF8.self) }
    }

    func testOutputTallerThanTheScreenGoesThroughThePagerAndShorterDoesNot() throws {
        let tall = run(["check", "-"], env: ["SUBS_PAGER": keeper], stdin: allDemoIds)
        XCTAssertEqual(tall.status, .success, tall.stderr)
        XCTAssertEqual(tall.stdout, "", "the pager showed it, not subs")
        let paged = try XCTUnwrap(keptText())
        // What the pager read is what subs prints without one.
        XCTAssertEqual(paged, run(["check", "-", "--no-pager"], stdin: allDemoIds).stdout)
        XCTAssertTrue(paged.contains("alice") && paged.contains("yara"), paged)
        XCTAssertEqual(try String(contentsOfFile: dir.path + "/env.txt", encoding: .utf8), "LESS=FRX\n", "LESS given as git gives it")

        try? FileManager.default.removeItem(atPath: kept)
        let short = run(["check", "alice"], lines: 40, env: ["SUBS_PAGER": keeper])
        XCTAssertTrue(short.stdout.contains("premium"), short.stdout)
        XCTAssertNil(keptText(), "fits the screen: no pager")
    }

    func testNoPagerWhenPipedQuietOrTurnedOff() throws {
        let cases: [(String, [String], [String: String], Bool)] = [
            ("piped", [], ["SUBS_PAGER": keeper], false),
            ("-q", ["-q"], ["SUBS_PAGER": keeper], true),
            ("--no-pager", ["--no-pager"], ["SUBS_PAGER": keeper], true),
            ("SUBS_PAGER empty", [], ["SUBS_PAGER": "", "PAGER": keeper], true),
            ("SUBS_PAGER cat", [], ["SUBS_PAGER": "cat", "PAGER": keeper], true),
            ("PAGER empty", [], ["PAGER": ""], true),
            ("--pager cat", ["--pager", "cat"], ["SUBS_PAGER": keeper], true),
            ("height unknown", [], ["SUBS_PAGER": keeper], true),
        ]
        for (name, args, env, terminal) in cases {
            try? FileManager.default.removeItem(atPath: kept)
            let result = run(["check", "-"] + args, lines: name == "height unknown" ? nil : 10, env: env, terminal: terminal,
                             stdin: allDemoIds)
            XCTAssertEqual(result.status, .success, "\(name): \(result.stderr)")
            XCTAssertNil(keptText(), "\(name): no pager")
            XCTAssertEqual(result.stdout.isEmpty, name == "-q", name)
        }
    }

    func testPrecedenceFlagThenSUBS_PAGERThenConfigThenPAGER() throws {
        let config = dir.write("config", "pager = \(keeper!)\n")
        let viaConfig = run(["check", "-", "--config", config], env: ["PAGER": "cat"], stdin: allDemoIds)
        XCTAssertNotNil(keptText(), "the config file's pager wins over PAGER")
        XCTAssertEqual(viaConfig.stdout, "")
        try? FileManager.default.removeItem(atPath: kept)
        let viaPAGER = run(["check", "-"], env: ["PAGER": keeper], stdin: allDemoIds)
        XCTAssertEqual(viaPAGER.stdout, "")
        XCTAssertNotNil(keptText(), "PAGER when nothing else names one")
        try? FileManager.default.removeItem(atPath: kept)
        _ = run(["check", "-", "--config", config], env: ["SUBS_PAGER": "cat"], stdin: allDemoIds)
        XCTAssertNil(keptText(), "SUBS_PAGER wins over the config file")
        _ = run(["check", "-", "--pager", keeper], env: ["SUBS_PAGER": "cat"], stdin: allDemoIds)
        XCTAssertNotNil(keptText(), "--pager wins over SUBS_PAGER")
    }

    func testTheCommandsStatusIsKeptWhateverThePagerDoes() throws {
        let failing = script("failing", "#!/bin/sh\ncat > /dev/null\nexit 9\n")
        // trent and others lack premium: the gate fails (1) whatever the pager says.
        let gated = run(["check", "-", "--require", "premium"], env: ["SUBS_PAGER": failing], stdin: allDemoIds)
        XCTAssertEqual(gated.status, .requirementMissing, gated.stderr)
        let ok = run(["check", "-"], env: ["SUBS_PAGER": failing], stdin: allDemoIds)
        XCTAssertEqual(ok.status, .success, ok.stderr)
    }

    func testAPagerTheShellCannotRunIsSaidAndTheOutputIsNotLost() {
        let result = run(["check", "-"], env: ["SUBS_PAGER": dir.path + "/no-such-pager", "COLUMNS": "400"], stdin: allDemoIds)
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stdout.contains("yara"), "printed without the pager")
        XCTAssertTrue(result.stderr.contains("subs: warning: pager '\(dir.path)/no-such-pager' could not be run (exit 127)"),
                      result.stderr)
    }

    // MARK: - End to end, on a pseudo-terminal

    func testTheBinaryPagesOnATerminalOnly() throws {
        let banner = script("banner", "#!/bin/sh\necho PAGER-START\ncat\necho PAGER-END\n")
        let args = ["--store", Repo.exampleStore, "--color", "never", "check", "-"]
        let tall = try PseudoTerminal.run(args, env: ["SUBS_PAGER": banner], rows: 20, stdin: allDemoIds)
        XCTAssertEqual(tall.status, 0, tall.stderr)
        XCTAssertTrue(tall.screen.hasPrefix("PAGER-START\n"), String(tall.screen.prefix(200)))
        XCTAssertTrue(tall.screen.hasSuffix("PAGER-END\n"), String(tall.screen.suffix(200)))
        XCTAssertTrue(tall.screen.contains("yara"))
        XCTAssertEqual(tall.stderr, "")

        let short = try PseudoTerminal.run(["--store", Repo.exampleStore, "check", "alice"], env: ["SUBS_PAGER": banner], rows: 40)
        XCTAssertEqual(short.status, 0)
        XCTAssertFalse(short.screen.contains("PAGER-START"), short.screen)
        XCTAssertTrue(short.screen.contains("premium"), short.screen)

        let piped = try Binary.run(args, env: ["SUBS_PAGER": banner, "LINES": "5"], stdin: allDemoIds)
        XCTAssertFalse(piped.stdout.contains("PAGER-START"), "never when stdout is not a terminal")
        XCTAssertTrue(piped.stdout.contains("yara"))

        let quiet = try PseudoTerminal.run(args + ["-q"], env: ["SUBS_PAGER": banner], rows: 20, stdin: allDemoIds)
        XCTAssertEqual(quiet.screen, "", "-q never starts one")
    }

    /// A pager the user quits at once (it reads a little, then exits): the rest of a large
    /// output meets EPIPE, which stays silent, and the status is the command's.
    func testQuittingThePagerEarlyIsSilentAndKeepsTheStatus() throws {
        let quitter = script("quitter", "#!/bin/sh\nhead -c 100 > /dev/null\necho QUIT\n")
        // About 300 KB: far more than a pipe holds, so subs is still writing when the pager goes.
        let many = String(repeating: allDemoIds, count: 60)
        let ok = try PseudoTerminal.run(["--store", Repo.exampleStore, "check", "-"], env: ["SUBS_PAGER": quitter],
                                        rows: 20, stdin: many)
        XCTAssertEqual(ok.status, 0)
        XCTAssertEqual(ok.stderr, "", "nothing said about the closed pipe")
        XCTAssertEqual(ok.screen, "QUIT\n")
        let gated = try PseudoTerminal.run(["--store", Repo.exampleStore, "check", "-", "--require", "premium"],
                                           env: ["SUBS_PAGER": quitter], rows: 20, stdin: many)
        XCTAssertEqual(gated.status, 1, "the gate's status, not the pager's")
        XCTAssertFalse(gated.stderr.contains("error"), gated.stderr)
    }

    /// SIGINT reaches the pager (Ctrl-C in less) and the whole group; subs, which has finished
    /// its work, waits for the pager and ends with the command's status, not 130.
    func testCtrlCWhileThePagerRunsIsThePagersAndTheStatusIsKept() throws {
        // The pager's parent is subs, or the shell subs started it with: interrupt subs itself.
        let interrupted = script("interrupted", """
            #!/bin/sh
            cat > /dev/null
            p=$PPID
            [ "$(cat /proc/$p/comm)" = subs ] || p=$(awk '{print $4}' /proc/$p/stat)
            [ "$(cat /proc/$p/comm)" = subs ] && kill -INT $p
            sleep 0.2
            echo AFTER

            """)
        let result = try PseudoTerminal.run(["--store", Repo.exampleStore, "check", "-"], env: ["SUBS_PAGER": interrupted],
                                            rows: 20, stdin: allDemoIds)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.screen, "AFTER\n")
        XCTAssertFalse(result.stderr.contains("interrupted"), result.stderr)
    }
}

/// Issue 30: error lines wrap at COLUMNS on word boundaries when stderr is a terminal; piped,
/// they stay one line.
final class ErrorLineWrapTests: XCTestCase {
    private let long = ["--store", "/nonexistent/store.json", "check", "alice"]

    func testOnATerminalErrorLinesWrapAtColumnsOnWordBoundaries() {
        let result = CLIHarness(env: ["COLUMNS": "50"], terminal: true).run(long)
        XCTAssertEqual(result.status, .noInput)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertGreaterThan(lines.count, 2, result.stderr)
        for line in lines { XCTAssertLessThanOrEqual(line.count, 50, line) }
        XCTAssertTrue(lines[0].hasPrefix("subs: error: "), lines[0])
        for line in lines.dropFirst() { XCTAssertTrue(line.hasPrefix("  "), "continuation indented: \(line)") }
        // Word boundaries: the words are those of the one-line message, in order.
        let piped = CLIHarness(env: ["COLUMNS": "50"]).run(long)
        XCTAssertEqual(piped.stderr.split(separator: "\n").count, 1, "piped: one line")
        XCTAssertEqual(result.stderr.split(whereSeparator: { $0 == " " || $0 == "\n" }),
                       piped.stderr.split(whereSeparator: { $0 == " " || $0 == "\n" }))
    }

    func testTheBinaryWrapsItsErrorLinesOnARealTerminal() throws {
        let result = try PseudoTerminal.run(long, columns: 44, stderrOnTerminal: true)
        XCTAssertEqual(result.status, 66)
        let lines = result.screen.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 2, result.screen)
        for line in lines { XCTAssertLessThanOrEqual(line.count, 44, String(line)) }
    }
}
