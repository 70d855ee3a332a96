// The built binary when standard output cannot be written: a full device is exit 74 with one
// line on stderr; a pipe whose reader went away is silent, with the shell's SIGPIPE status 141.
// Also what only the real process shows: raw argv bytes, and HOME taken from /etc/passwd.

import Foundation
import SubsCLI
import XCTest

final class OutputFailureTests: XCTestCase {
    let small = Repo.path("Tests/Fixtures/stores/small.json")

    /// Commands that print something, each a different path to stdout.
    var printing: [[String]] {
        [["--store", small, "check", "alice", "--json"], ["--store", small, "check", "alice"],
         ["--store", small, "check", "alice", "carol", "--format", "tsv"],
         ["--store", small, "history", "alice"], ["--store", small, "renew-count", "alice"],
         ["help"], ["help", "check"], ["check", "--help"], ["--version"], ["completion", "bash"],
         ["completion", "fish"], ["--store", small, "store", "validate"]]
    }

    struct Outcome {
        var status: Int32
        var reason: Process.TerminationReason
        var stderr: String
    }

    /// Runs the binary with `stdout` as its standard output (fixed clock, no user config).
    func run(_ arguments: [String], stdout: FileHandle, env: [String: String] = [:]) throws -> Outcome {
        let err = Pipe()
        let process = try Binary.start(arguments, env: env, stdout: stdout, stderr: err)
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, reason: process.terminationReason,
                       stderr: String(decoding: errData, as: UTF8.self))
    }

    func testFullDeviceIsExit74WithOneLine() throws {
        let full = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        var stat = stat()
        XCTAssertEqual(fstat(full.fileDescriptor, &stat), 0)
        XCTAssertEqual(stat.st_mode & S_IFMT, S_IFCHR, "/dev/full must be the device for this test")
        for arguments in printing {
            let outcome = try run(arguments, stdout: full)
            XCTAssertEqual(outcome.reason, .exit, "\(arguments)")
            XCTAssertEqual(outcome.status, 74, "\(arguments)")
            XCTAssertEqual(outcome.stderr, "subs: error: cannot write standard output: no space left on device\n", "\(arguments)")
        }
    }

    func testOutputLargerThanTheBufferFailsOnce() throws {
        // ids on stdin from a file: the output (hundreds of KiB) fills several buffers.
        let dir = TempDir()
        let input = dir.write("ids", Array(repeating: "alice\ncarol\n", count: 400).joined())
        let result = try shell("'\(Binary.url.path)' --store '\(small)' check - --json < '\(input)' > /dev/full; echo \"status $?\" >&2")
        XCTAssertEqual(result.stderr, "subs: error: cannot write standard output: no space left on device\nstatus 74\n")
    }

    func testQuietPrintsNothingSoNothingFails() throws {
        let full = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        let outcome = try run(["--store", small, "check", "alice", "-q"], stdout: full)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stderr, "")
    }

    func testClosedPipeIsSilentWithTheSigpipeStatus() throws {
        for arguments in printing {
            let pipe = Pipe()
            try pipe.fileHandleForReading.close()
            let outcome = try run(arguments, stdout: pipe.fileHandleForWriting)
            XCTAssertEqual(outcome.reason, .exit, "\(arguments): exits, never dies of a signal")
            XCTAssertEqual(outcome.status, 141, "\(arguments)")
            XCTAssertEqual(outcome.stderr, "", "\(arguments)")
        }
    }

    func testEarlyClosingReaderInAShellPipeline() throws {
        // `head -c1` reads one byte and leaves; with pipefail the pipeline reports subs's status.
        let dir = TempDir()
        let input = dir.write("ids", Array(repeating: "alice\n", count: 1000).joined())
        let result = try shell("'\(Binary.url.path)' --store '\(small)' check - --json < '\(input)' | head -c1 >/dev/null; echo \"${PIPESTATUS[0]}\"")
        XCTAssertEqual(result.stdout, "141\n")
        XCTAssertEqual(result.stderr, "")
    }

    func testInvalidUTF8ArgumentsAreUsageErrors() throws {
        let dir = TempDir()
        let store = dir.write("store.json", TestStore.json)
        let subs = Binary.url.path
        let grant = try shell("'\(subs)' --store '\(store)' grant $'n\\xffew' premium --lifetime --create")
        XCTAssertEqual(grant.status, 64)
        XCTAssertEqual(grant.stderr, "subs: error: argument 4 is not valid UTF-8: 'n\\xffew'\nusage: subs [options] COMMAND [ARGS]\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), Data(TestStore.json.utf8), "nothing written")
        // A truncated sequence, an overlong encoding, a surrogate, in options and their values.
        for bad in [#"$'\xe2\x82'"#, #"$'\xc0\xaf'"#, #"$'\xed\xa0\x80'"#, #"--reason=$'\xfe'"#, #"--store=$'/tmp/\xff'"#] {
            let result = try shell("'\(subs)' --store '\(store)' check alice \(bad)")
            XCTAssertEqual(result.status, 64, bad)
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: argument 5 is not valid UTF-8: '"), result.stderr)
        }
        // Valid non-ASCII passes through to the usual "not found".
        let valid = try shell("'\(subs)' --store '\(store)' check 'zoë'")
        XCTAssertEqual(valid.status, 3, valid.stderr)
    }

    func testHomeFromThePasswordDatabaseWhenUnset() throws {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { throw XCTSkip("no passwd entry") }
        let home = String(cString: dir)
        var environment = ProcessInfo.processInfo.environment
        for name in ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "SUBS_STORE", "SUBS_CONFIG"] { environment.removeValue(forKey: name) }
        environment["SUBS_NOW"] = testNow
        for homeValue in [nil, ""] as [String?] {
            var env = environment
            env["HOME"] = homeValue
            env["XDG_DATA_HOME"] = "/nonexistent-data-\(UUID().uuidString)"
            let result = try runProcess(Binary.url.path, ["check", "alice"], environment: env)
            XCTAssertNotEqual(result.status, 78, result.stderr)
            // The default store is under $XDG_DATA_HOME here; the config under the passwd home.
            XCTAssertFalse(result.stderr.contains(" /.config"), result.stderr)
            env["XDG_DATA_HOME"] = nil
            let noStore = try runProcess(Binary.url.path, ["store", "validate"], environment: env)
            XCTAssertTrue(noStore.stderr.contains(home + "/.local/share/subs/store.json")
                          || noStore.status == 0, "\(homeValue ?? "unset"): \(noStore.stderr)")
            XCTAssertFalse(noStore.stderr.contains(" /.local/share"), noStore.stderr)
        }
    }
}
