// Errors of the strict JSON reader: always with the byte offset and line:column.

public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Short lowercase text: "expected ',' or '}'", "duplicate key \"id\"", "invalid UTF-8".
    public let message: String
    /// Byte offset (0-based) in the whole buffer where the problem was found.
    public let offset: Int
    /// 1-based line and column (column counts bytes from the start of the line, 1-based).
    public let line: Int
    public let column: Int

    public init(message: String, offset: Int, line: Int, column: Int) {
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// "12:5: expected ',' or '}'"
    public var description: String { "\(line):\(column): \(message)" }
}
