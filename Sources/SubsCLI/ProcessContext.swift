// The real process behind a Context: file descriptors, environment, wall clock.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsSystem
import SubsModel

/// The wall clock, read only here.
public struct SystemClock: Clock {
    public init() {}
    public func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(seconds: Int64(ts.tv_sec), nanoseconds: Int32(ts.tv_nsec))
    }
}

private final class OutputBuffer: @unchecked Sendable {
    let fd: Int32
    var bytes: [UInt8] = []
    /// The errno of the first failed write; after it, output is dropped.
    private(set) var failure: Int32?
    init(fd: Int32) { self.fd = fd }
    func write(_ text: String) {
        guard failure == nil else { return }
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }
    func flush() {
        var offset = 0
        while offset < bytes.count, failure == nil {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // A non-blocking descriptor inherited from the caller: wait until it takes more.
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            } else {
                failure = n < 0 ? errno : EIO
            }
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Flushes, then reports the fate of everything written.
    func finish() -> OutputDelivery {
        flush()
        switch failure {
        case nil: return .delivered
        case EPIPE?: return .closedPipe
        case let err?: return .failed(errorText(err))
        }
    }
}

private let standardOutput = OutputBuffer(fd: 1)

extension Context {
    /// The context of the running process.
    public static func process() -> Context {
        signal(SIGPIPE, SIG_IGN)
        // A file-size limit makes write() fail with EFBIG (a clean exit 73) instead of killing us.
        signal(SIGXFSZ, SIG_IGN)
        // Ctrl-C: no half-written temporary file left behind, one line, exit 130. The store itself
        // is never half-written (it is only ever replaced by rename). Once a write has been
        // committed, Ctrl-C is ignored and the command finishes (exit 0, its output printed):
        // a script must not retry a write that happened.
        InterruptCleanup.install(message: "subs: error: interrupted\n", exitStatus: ExitCode.interrupted.rawValue)
        var context = Context(
            writeOut: { standardOutput.write($0) },
            writeErr: { text in
                standardOutput.flush()
                let err = OutputBuffer(fd: 2)
                err.write(text)
                err.flush()
            },
            readIn: { readAll(fd: 0)?.bytes },
            environment: environmentWithHome(ProcessInfo.processInfo.environment),
            clock: SystemClock(),
            stdoutIsTerminal: isatty(1) == 1,
            // stdout's terminal, else stderr's (error lines wrap at it when stdout is piped).
            terminalWidth: queryTerminalWidth(fd: 1) ?? queryTerminalWidth(fd: 2),
            finishOut: { standardOutput.finish() },
            rawArguments: rawArgumentBytes(),
            waitForStop: { _ in StopSignal.wait() })
        context.readInPart = { try readChunk(0) }
        context.terminalHeight = queryTerminalHeight(fd: 1)
        context.stderrIsTerminal = isatty(2) == 1
        return context
    }
}

/// argv as bytes, without the program name.
func rawArgumentBytes() -> [[UInt8]] {
    (1..<Int(CommandLine.argc)).map { index in
        guard let pointer = CommandLine.unsafeArgv[index] else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
    }
}

func queryTerminalWidth(fd: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
}

func queryTerminalHeight(fd: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
    return Int(size.ws_row)
}

/// The environment, with HOME taken from the password database when it is unset or empty, so
/// the default store and config paths do not land at the root of the file system.
func environmentWithHome(_ environment: [String: String]) -> [String: String] {
    var environment = environment
    if EnvironmentSpec.home.value(in: environment) == nil, let home = passwordDatabaseHome() {
        environment[EnvironmentSpec.home.name] = home
    }
    return environment
}

func passwordDatabaseHome() -> String? {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 16384)
    guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil,
          let directory = entry.pw_dir else { return nil }
    let home = String(cString: directory)
    return home.hasPrefix("/") ? home : nil
}

public func flushStandardOutput() { standardOutput.flush() }

public func exitProcess(_ status: ExitCode) -> Never {
    flushStandardOutput()
    exit(status.rawValue)
}
