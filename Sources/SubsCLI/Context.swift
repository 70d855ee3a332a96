// Everything a command touches of the outside world, injected so tests replace all of it.

import SubsKit

public struct Context {
    /// Writes to standard output / standard error (bytes are already UTF-8 text).
    public var writeOut: (String) -> Void
    public var writeErr: (String) -> Void
    /// Reads all of standard input (nil when it cannot be read).
    public var readIn: () -> [UInt8]?
    public var environment: [String: String]
    /// The wall clock; `SUBS_NOW` replaces it (CLI.run does that).
    public var clock: any Clock
    /// Whether stdout is a terminal (colour, relative dates, cutting to the width).
    public var stdoutIsTerminal: Bool
    /// The terminal's width when stdout is one (COLUMNS wins over it).
    public var terminalWidth: Int?

    public init(writeOut: @escaping (String) -> Void, writeErr: @escaping (String) -> Void,
                readIn: @escaping () -> [UInt8]?, environment: [String: String], clock: any Clock,
                stdoutIsTerminal: Bool, terminalWidth: Int? = nil) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.readIn = readIn
        self.environment = environment
        self.clock = clock
        self.stdoutIsTerminal = stdoutIsTerminal
        self.terminalWidth = terminalWidth
    }

    /// Width for tables and help: COLUMNS, else the terminal's width, else 80.
    public var columns: Int {
        if let c = environment["COLUMNS"], let n = Int(c), n > 0 { return n }
        return terminalWidth ?? 80
    }
}
