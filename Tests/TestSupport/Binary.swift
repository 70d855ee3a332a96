// The built `subs` binary and child processes: one environment for every end-to-end test (the
// test's clock, no user config, nothing inherited that would choose a store, format or token).

import Foundation
import SubsCLI

/// The built `subs` binary, beside the test bundle.
public enum Binary {
    public static var url: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("subs")
        }
        fatalError("no test bundle")
        #else
        return Bundle.main.bundleURL.appendingPathComponent("subs")
        #endif
    }

    /// The test process's environment with SUBS_NOW = testNow, no user config and no inherited
    /// SUBS_STORE, SUBS_FORMAT or SUBS_SERVER_TOKEN; then `removing` taken out and `env` merged in.
    public static func environment(_ env: [String: String] = [:], removing: [String] = []) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SUBS_NOW"] = testNow
        environment["XDG_CONFIG_HOME"] = "/nonexistent-config"
        for name in ["SUBS_STORE", "SUBS_FORMAT", "SUBS_SERVER_TOKEN"] + removing { environment.removeValue(forKey: name) }
        environment.merge(env) { $1 }
        return environment
    }

    /// Runs the binary to its end with `arguments`; stdin from `stdin`, else empty.
    public static func run(_ arguments: [String], env: [String: String] = [:], removing: [String] = [],
                           stdin: String? = nil) throws -> CLIResult {
        let result = try runProcess(url.path, arguments, environment: environment(env, removing: removing), stdin: stdin)
        return CLIResult(status: ExitCode(rawValue: result.status), stdout: result.stdout, stderr: result.stderr)
    }

    /// Starts the binary and returns at once. `stdin`, `stdout`, `stderr`: a FileHandle or a Pipe
    /// (nil: /dev/null for stdin, the null device for the outputs).
    public static func start(_ arguments: [String], env: [String: String] = [:], stdin: Any? = nil,
                             stdout: Any? = nil, stderr: Any? = nil) throws -> Process {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = environment(env)
        process.standardInput = stdin ?? FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Starts the binary with its stdout and stderr written to two new files in `directory`
    /// (read them after it ends): a file never blocks a writer the way an unread pipe does.
    public static func startWithOutputFiles(_ arguments: [String], env: [String: String] = [:],
                                            in directory: String) throws -> (Process, out: String, err: String) {
        let out = directory + "/stdout-" + UUID().uuidString, err = directory + "/stderr-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let process = try start(arguments, env: env, stdout: FileHandle(forWritingAtPath: out),
                                stderr: FileHandle(forWritingAtPath: err))
        return (process, out, err)
    }
}

public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a program to its end with captured stdout and stderr (read concurrently, so a full pipe
/// never blocks it); stdin from `stdin`, else empty.
public func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
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
