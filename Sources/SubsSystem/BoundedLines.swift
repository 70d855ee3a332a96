// Lines of a stream read as they come, with bounded memory: the reader behind customer ids on
// standard input (SPEC section 7). A line holds at most `maxLine` bytes; a NUL or another
// control byte stops the reading at once, wherever it is — `subs check - < /dev/zero` ends on
// its first byte instead of reading the device until memory runs out.

#if canImport(Glibc)
import Glibc
#endif

public struct BoundedLines {
    /// Why the stream is not lines of text; `line` counts from 1.
    public enum Problem: Error, Equatable, Sendable {
        /// A NUL, another C0 control byte (tab and a CR right before the line end excepted) or DEL.
        case controlByte(line: Int, byte: UInt8)
        case invalidUTF8(line: Int)
        /// The line goes on past `limit` bytes (its end not counted).
        case tooLong(line: Int, limit: Int)
    }

    public let maxLine: Int
    private let next: () throws -> [UInt8]?
    private var chunk: [UInt8] = []
    private var position = 0
    private var line: [UInt8] = []
    /// The line being read (1-based).
    public private(set) var number = 0
    private var ended = false

    /// `next` hands over the stream's next bytes, nil (or an empty array) at its end, and throws
    /// when the stream cannot be read (its error passes through unchanged).
    public init(maxLine: Int = 4096, next: @escaping () throws -> [UInt8]?) {
        self.maxLine = maxLine
        self.next = next
    }

    /// The next line without its end (LF, or CR LF), nil after the last one. A last line without
    /// a line end counts (a lone CR at the very end too: a CRLF file cut before its last LF).
    public mutating func nextLine() throws -> String? {
        guard !ended else { return nil }
        number += 1
        line.removeAll(keepingCapacity: true)
        var sawCR = false
        while true {
            if position == chunk.count {
                guard let more = try next(), !more.isEmpty else {
                    ended = true
                    if line.isEmpty && !sawCR {
                        number -= 1
                        return nil
                    }
                    return try finish()
                }
                chunk = more
                position = 0
            }
            while position < chunk.count {
                let byte = chunk[position]
                position += 1
                if sawCR && byte != 0x0A { throw Problem.controlByte(line: number, byte: 0x0D) }
                switch byte {
                case 0x0A: return try finish()
                case 0x0D: sawCR = true
                case 0x09: try append(byte)
                case 0x00..<0x20, 0x7F: throw Problem.controlByte(line: number, byte: byte)
                default: try append(byte)
                }
            }
        }
    }

    private mutating func append(_ byte: UInt8) throws {
        guard line.count < maxLine else { throw Problem.tooLong(line: number, limit: maxLine) }
        line.append(byte)
    }

    private func finish() throws -> String {
        guard let text = String(validating: line, as: UTF8.self) else { throw Problem.invalidUTF8(line: number) }
        return text
    }
}

/// The next at most `size` bytes of `fd`, nil at its end; throws `StreamReadError`.
public func readChunk(_ fd: Int32, size: Int = 1 << 16) throws -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: size)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw StreamReadError(code: errno)
        }
        if n == 0 { return nil }
        buffer.removeLast(buffer.count - n)
        return buffer
    }
}
