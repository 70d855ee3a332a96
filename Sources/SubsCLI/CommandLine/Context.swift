// Everything a command touches of the outside world, injected so tests replace all of it.

import SubsModel
import SubsRemote
import SubsSource
import SubsSystem

public struct Context {
    /// Writes to standard output / standard error (bytes are already UTF-8 text).
    public var writeOut: (String) -> Void
    public var writeErr: (String) -> Void
    /// Reads all of standard input (nil when it cannot be read): in-process callers give their
    /// bytes here. Ignored when `readInPart` is set.
    public var readIn: () -> [UInt8]?
    /// Reads standard input a part at a time: the next bytes, nil at its end; throws when it
    /// cannot be read. The running process reads this way, so that memory stays bounded
    /// whatever stdin holds (`/dev/zero`, `/dev/urandom`).
    public var readInPart: (() throws -> [UInt8]?)?
    public var environment: [String: String]
    /// The wall clock; `SUBS_NOW` replaces it (CLI.run does that).
    public var clock: any Clock
    /// Whether stdout is a terminal (colour, relative dates, cutting to the width).
    public var stdoutIsTerminal: Bool
    /// The terminal's width when stdout is one (COLUMNS wins over it).
    public var terminalWidth: Int?
    /// The terminal's height when stdout is one (LINES wins over it): output taller than this
    /// goes through the pager.
    public var terminalHeight: Int?
    /// Whether stderr is a terminal: error lines then wrap at the width, on word boundaries.
    public var stderrIsTerminal = false
    /// Pushes out what `writeOut` still holds and says whether everything written arrived.
    /// CLI.run calls it last, to turn a failed write on stdout into its exit status.
    public var finishOut: () -> OutputDelivery
    /// The arguments as the system gave them, as bytes (the program name left out): Swift's
    /// `CommandLine.arguments` repairs invalid UTF-8 silently, these do not. nil: the String
    /// arguments are exactly what was given (in-process callers).
    public var rawArguments: [[UInt8]]?
    /// Replaces the source the options name (tests put a scripted source behind the seam).
    public var sourceOverride: (@Sendable () throws -> CustomerSource)?
    /// How remote requests reach the network; tests put a scripted transport or a loopback
    /// server behind it.
    public var http: HTTPTransport = LazyTransport()
    /// `subs serve` blocks here until it should stop (SIGINT or SIGTERM for the real process);
    /// `serving` is called with the bound port first.
    public var waitForStop: (_ serving: Int) -> Void = { _ in }

    public init(writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
                readIn: @escaping () -> [UInt8]?, environment: [String: String], clock: any Clock,
                stdoutIsTerminal: Bool, terminalWidth: Int? = nil,
                finishOut: @escaping () -> OutputDelivery = { .delivered }, rawArguments: [[UInt8]]? = nil,
                waitForStop: @escaping (_ serving: Int) -> Void = { _ in }) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.readIn = readIn
        self.environment = environment
        self.clock = clock
        self.stdoutIsTerminal = stdoutIsTerminal
        self.terminalWidth = terminalWidth
        self.finishOut = finishOut
        self.rawArguments = rawArguments
        self.waitForStop = waitForStop
    }

    /// Width for tables and help: COLUMNS, else the terminal's width, else 80.
    public var columns: Int {
        if let c = EnvironmentSpec.columns.value(in: environment), let n = Int(c), n > 0 { return n }
        return terminalWidth ?? 80
    }

    /// Height of the screen: LINES, else the terminal's height; nil when unknown (no pager then).
    public var lines: Int? {
        if let l = EnvironmentSpec.lines.value(in: environment), let n = Int(l), n > 0 { return n }
        return terminalHeight
    }
}

/// What became of standard output.
public enum OutputDelivery: Equatable, Sendable {
    case delivered
    /// The reader went away (EPIPE): nothing more to say to anyone.
    case closedPipe
    /// Any other write error (a full disk, a closed descriptor), with the system's words.
    case failed(String)
}

/// All of `fd`, at most `limit` bytes (`truncated`: there was more); nil when it cannot be read.
func readAll(fd: Int32, limit: Int = .max - 1) -> (bytes: [UInt8], truncated: Bool)? {
    guard let read = try? readStream(fd, limit: limit) else { return nil }
    defer { read.bytes.deallocate() }
    return (Array(read.bytes), read.truncated)
}
