// The one way the tests run `subs`: in-process (CLIHarness: captured output, a fixed clock, a
// chosen terminal, stdin, transport or source) or as the built binary in a child process
// (Binary: exit statuses, pipes, signals). Every test target reaches it through TestSupport.

import Foundation
import SubsModel
import SubsRemote
import SubsSource
import SubsCLI

/// What one run of `subs` printed and returned.
public struct CLIResult {
    public var status: ExitCode
    public var stdout: String
    public var stderr: String
    /// stdout and stderr interleaved in the order they were written (in-process runs only).
    public var combined: String

    public init(status: ExitCode, stdout: String, stderr: String, combined: String? = nil) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.combined = combined ?? stdout + stderr
    }
}

/// The fixed "now" of CLI tests (inside the demo store's window).
public let testNow = "2026-12-01T12:00:00Z"

/// Runs the CLI in-process. Each field is one thing a test may choose; the defaults are a
/// non-terminal, an empty stdin, no user config or home, SUBS_NOW = testNow.
public struct CLIHarness {
    /// Added to (and overriding) the base environment: HOME and XDG_CONFIG_HOME pointing nowhere.
    public var env: [String: String]
    /// SUBS_NOW; nil leaves it unset (the clock is then the injected FixedClock at 0).
    public var now: String?
    /// Standard input's bytes.
    public var stdin: [UInt8]
    /// stdout/stderr are terminals (colour auto, relative dates).
    public var terminal: Bool
    public var source: (@Sendable () throws -> CustomerSource)?
    public var http: HTTPTransport?
    /// What becomes of standard output once the command is done (a full disk, a closed pipe).
    public var delivery: OutputDelivery
    /// The arguments as raw bytes (invalid UTF-8); the decoded strings are passed as well.
    public var rawArguments: [[UInt8]]?
    /// Called with the bound port by `subs serve`; returning stops the server.
    public var waitForStop: ((Int) -> Void)?

    public init(env: [String: String] = [:], now: String? = testNow, stdin: String? = nil, terminal: Bool = false,
                source: (@Sendable () throws -> CustomerSource)? = nil, http: HTTPTransport? = nil,
                delivery: OutputDelivery = .delivered, rawArguments: [[UInt8]]? = nil,
                waitForStop: ((Int) -> Void)? = nil) {
        self.env = env
        self.now = now
        self.stdin = stdin.map { Array($0.utf8) } ?? []
        self.terminal = terminal
        self.source = source
        self.http = http
        self.delivery = delivery
        self.rawArguments = rawArguments
        self.waitForStop = waitForStop
    }

    /// The environment the command sees.
    public var environment: [String: String] {
        var environment = ["HOME": "/nonexistent-home", "XDG_CONFIG_HOME": "/nonexistent-config"]
        if let now { environment["SUBS_NOW"] = now }
        environment.merge(env) { $1 }
        return environment
    }

    public func run(_ arguments: [String]) -> CLIResult {
        let out = Sink(), err = Sink(), both = Sink()
        let input = stdin, delivery = delivery
        var context = Context(
            writeOut: { out.add($0); both.add($0) }, writeErr: { err.add($0); both.add($0) },
            readIn: { input }, environment: environment, clock: FixedClock(Instant(seconds: 0)),
            stdoutIsTerminal: terminal, finishOut: { delivery }, rawArguments: rawArguments)
        context.stderrIsTerminal = terminal
        context.sourceOverride = source
        if let http { context.http = http }
        if let waitForStop { context.waitForStop = waitForStop }
        let status = CLI.run(arguments: arguments, context: context)
        return CLIResult(status: status, stdout: out.text, stderr: err.text, combined: both.text)
    }

    /// Collects what a stream is given (a server's log comes from several threads).
    private final class Sink: @unchecked Sendable {
        private let lock = NSLock()
        private var collected = ""
        func add(_ s: String) { lock.lock(); collected += s; lock.unlock() }
        var text: String { lock.lock(); defer { lock.unlock() }; return collected }
    }
}

/// Runs the CLI in-process (the short form of CLIHarness). `terminal`: stdout/stderr are
/// terminals (colour auto, relative dates).
public func runCLI(_ arguments: [String], env: [String: String] = [:], stdin: String? = nil,
                   terminal: Bool = false, now: String? = testNow,
                   source: (@Sendable () throws -> CustomerSource)? = nil, http: HTTPTransport? = nil) -> CLIResult {
    CLIHarness(env: env, now: now, stdin: stdin, terminal: terminal, source: source, http: http).run(arguments)
}
