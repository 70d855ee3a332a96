// Runs `subs` in-process with captured output, a fixed clock and a chosen terminal, or as the
// built binary in a child process (end-to-end tests).

import Foundation
import SubsCLI
import SubsKit
import XCTest

struct CLIResult {
    var status: ExitCode
    var stdout: String
    var stderr: String
}

/// The fixed "now" of CLI tests (inside the demo store's window).
let testNow = "2026-12-01T12:00:00Z"

/// Runs the CLI in-process. `terminal`: stdout/stderr are terminals (colour auto, relative dates).
func runCLI(_ arguments: [String], env: [String: String] = [:], stdin: String? = nil,
            terminal: Bool = false, now: String? = testNow) -> CLIResult {
    final class Sink: @unchecked Sendable { var text = "" }
    let out = Sink(), err = Sink()
    var environment = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]
    if let now { environment["SUBS_NOW"] = now }
    environment.merge(env) { $1 }
    let context = Context(
        writeOut: { out.text += $0 }, writeErr: { err.text += $0 },
        readIn: { stdin.map { Array($0.utf8) } ?? [] },
        environment: environment, clock: FixedClock(Instant(seconds: 0)),
        stdoutIsTerminal: terminal, stderrIsTerminal: terminal, currentDirectory: "/")
    let status = CLI.run(arguments: arguments, context: context)
    return CLIResult(status: status, stdout: out.text, stderr: err.text)
}

/// Paths of the repository: fixtures, examples.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    static var exampleStore: String { path("examples/store.json") }
}

/// A temporary directory removed when the test ends.
final class TempDir {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "subs-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` in this directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) -> String {
        let file = path + "/" + name
        FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
        return file
    }

    func write(_ name: String, bytes: [UInt8]) -> String {
        let file = path + "/" + name
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        return file
    }
}

/// The built `subs` binary, beside the test bundle.
enum Binary {
    static var url: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("subs")
        }
        fatalError("no test bundle")
        #else
        return Bundle.main.bundleURL.appendingPathComponent("subs")
        #endif
    }

    /// Runs the binary with `arguments`; stdin from `stdin` (closed when nil).
    static func run(_ arguments: [String], env: [String: String] = [:], stdin: String? = nil,
                    file: StaticString = #filePath, line: UInt = #line) throws -> CLIResult {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SUBS_NOW"] = testNow
        environment["XDG_CONFIG_HOME"] = "/nonexistent-config"
        environment.removeValue(forKey: "SUBS_STORE")
        environment.removeValue(forKey: "SUBS_FORMAT")
        environment.merge(env) { $1 }
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes concurrently so a full pipe never blocks the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return CLIResult(status: ExitCode(rawValue: process.terminationStatus),
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }
}
