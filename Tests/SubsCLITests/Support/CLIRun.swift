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
            terminal: Bool = false, now: String? = testNow,
            source: (@Sendable () throws -> CustomerSource)? = nil, http: HTTPTransport? = nil) -> CLIResult {
    final class Sink: @unchecked Sendable { var text = "" }
    let out = Sink(), err = Sink()
    var environment = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]
    if let now { environment["SUBS_NOW"] = now }
    environment.merge(env) { $1 }
    let context = Context(
        writeOut: { out.text += $0 }, writeErr: { err.text += $0 },
        readIn: { stdin.map { Array($0.utf8) } ?? [] },
        environment: environment, clock: FixedClock(Instant(seconds: 0)),
        stdoutIsTerminal: terminal)
    var withSource = context
    withSource.sourceOverride = source
    if let http { withSource.http = http }
    let status = CLI.run(arguments: arguments, context: withSource)
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

    /// Runs the binary with `arguments` (fixed clock, no user config); stdin from `stdin`.
    static func run(_ arguments: [String], env: [String: String] = [:], stdin: String? = nil) throws -> CLIResult {
        var environment = ProcessInfo.processInfo.environment
        environment["SUBS_NOW"] = testNow
        environment["XDG_CONFIG_HOME"] = "/nonexistent-config"
        environment.removeValue(forKey: "SUBS_STORE")
        environment.removeValue(forKey: "SUBS_FORMAT")
        environment.merge(env) { $1 }
        let result = try runProcess(url.path, arguments, environment: environment, stdin: stdin)
        return CLIResult(status: ExitCode(rawValue: result.status), stdout: result.stdout, stderr: result.stderr)
    }
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program to its end with captured stdout and stderr (read concurrently, so a full pipe
/// never blocks it); stdin from `stdin`, else empty.
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: String? = nil, stdin: String? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errBox.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errBox.data, as: UTF8.self))
}
