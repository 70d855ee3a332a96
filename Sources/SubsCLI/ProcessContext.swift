// The real process behind a Context: file descriptors, environment, wall clock.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsKit

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
    init(fd: Int32) { self.fd = fd }
    func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }
    func flush() {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                break // EPIPE and friends: the reader went away; nothing useful to do
            }
            offset += n
        }
        bytes.removeAll(keepingCapacity: true)
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
        InterruptCleanup.prepare()
        signal(SIGINT) { _ in
            guard InterruptCleanup.interrupt() else { return }
            let message: StaticString = "subs: error: interrupted\n"
            _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
            _exit(130)
        }
        return Context(
            writeOut: { standardOutput.write($0) },
            writeErr: { text in
                standardOutput.flush()
                let err = OutputBuffer(fd: 2)
                err.write(text)
                err.flush()
            },
            readIn: { readAll(fd: 0) },
            environment: ProcessInfo.processInfo.environment,
            clock: SystemClock(),
            stdoutIsTerminal: isatty(1) == 1,
            terminalWidth: queryTerminalWidth(fd: 1))
    }
}

func queryTerminalWidth(fd: Int32) -> Int? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
}

func readAll(fd: Int32) -> [UInt8]? {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { if errno == EINTR { continue }; return nil }
        if n == 0 { return result }
        result.append(contentsOf: chunk[0..<n])
    }
}

public func flushStandardOutput() { standardOutput.flush() }

public func exitProcess(_ status: ExitCode) -> Never {
    flushStandardOutput()
    exit(status.rawValue)
}
