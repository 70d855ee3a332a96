// The built binary on a real pseudo-terminal: what needs `isatty` to be true in a child process
// (the pager, error lines wrapped at the terminal's width) is tested here, end to end, with the
// terminal's size set as a user's window sets it.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct TerminalRun {
    public var status: Int32
    /// What the terminal received (stdout, and stderr when it was on the terminal too), with
    /// the line discipline's carriage returns taken out.
    public var screen: String
    /// stderr, when it was a pipe.
    public var stderr: String
}

public enum PseudoTerminal {
    /// Runs the binary with stdout on a new pseudo-terminal of `columns` × `rows` (stderr too when
    /// `stderrOnTerminal`, else a pipe), stdin from `stdin`, and waits for it and anything it
    /// started on the terminal (a pager) to end.
    public static func run(_ arguments: [String], env: [String: String] = [:], columns: Int = 80, rows: Int = 24,
                           stderrOnTerminal: Bool = false, stdin: String? = nil) throws -> TerminalRun {
        struct Failure: Error, CustomStringConvertible { var description: String }
        // posix_openpt/unlockpt/ptsname are not in Swift's Glibc module: what they do on Linux,
        // with the ioctls of <asm-generic/ioctls.h> (TIOCSPTLCK 0x40045431, TIOCGPTN 0x80045430).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
            throw Failure(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        defer { close(master) }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        let slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw Failure(description: "cannot open \(name): \(String(cString: strerror(errno)))") }

        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments
        // The terminal says its size: no COLUMNS or LINES inherited from the test's environment.
        process.environment = Binary.environment(env, removing: ["COLUMNS", "LINES", "SUBS_PAGER", "PAGER"].filter { env[$0] == nil })
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardOutput = terminal
        let errors = Pipe()
        process.standardError = stderrOnTerminal ? terminal : errors
        let input = Pipe()
        process.standardInput = input
        try process.run()
        close(slave)
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()

        // Read the terminal until every writer has gone (EIO once the last one closes it).
        var screen: [UInt8] = []
        let errorData = Box()
        let reader = Thread { errorData.data = errors.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(master, &buffer, buffer.count)
            if n > 0 { screen += buffer[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        process.waitUntilExit()
        try? errors.fileHandleForWriting.close()
        while !errorData.done { usleep(1000) }
        let text = String(decoding: screen, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        return TerminalRun(status: process.terminationStatus, screen: text,
                           stderr: String(decoding: errorData.data ?? Data(), as: UTF8.self))
    }

    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Data?
        var data: Data? {
            get { lock.lock(); defer { lock.unlock() }; return stored }
            set { lock.lock(); stored = newValue ?? Data(); lock.unlock() }
        }
        var done: Bool { data != nil }
    }
}
