// Customer ids read from standard input for `-`: a stream of lines with bounded memory.

import SubsSystem
#if canImport(Glibc)
import Glibc
#endif

/// Customer ids on standard input: UTF-8, one per line (LF or CRLF), blank lines and `#`
/// comments skipped, blanks (spaces, tabs) around an id trimmed. Read as a stream (BoundedLines):
/// a line of more than 4 096 bytes, a NUL or another control byte, invalid UTF-8, or more than
/// `maxIds` ids is exit 65 at once, naming the line.
enum StdinIds {
    static let maxLine = 4096
    /// Beyond this many ids the input is refused, so that memory stays bounded for an endless
    /// stream of valid ids too (`yes alice`): ten times the 10 000 of the benchmark; split larger lists.
    static let maxIds = 100_000

    static func read(_ context: Context) throws -> [String] {
        if let part = context.readInPart { return try parse(part) }
        guard var given = context.readIn() else {
            throw CommandFailure(.dataError, "cannot read customer ids from standard input")
        }
        return try parse {
            defer { given = [] }
            return given
        }
    }

    static func parse(_ next: @escaping () throws -> [UInt8]?, maxIds: Int = StdinIds.maxIds) throws -> [String] {
        var lines = BoundedLines(maxLine: maxLine, next: next)
        var ids: [String] = []
        do {
            while let line = try lines.nextLine() {
                let trimmed = line.trimmingBlanks()
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                    throw CommandFailure(.dataError, "standard input:\(lines.number): control character in customer id")
                }
                guard ids.count < maxIds else {
                    throw CommandFailure(.dataError, "standard input:\(lines.number): more than \(maxIds) customer ids")
                }
                ids.append(trimmed)
            }
        } catch let problem as BoundedLines.Problem {
            switch problem {
            case .controlByte(let line, let byte):
                let name = byte == 0 ? "NUL byte" : "control character 0x" + String(byte, radix: 16, uppercase: true).leftPadded(2)
                throw CommandFailure(.dataError, "standard input:\(line): \(name) in customer ids")
            case .invalidUTF8(let line):
                throw CommandFailure(.dataError, "standard input:\(line): not valid UTF-8")
            case .tooLong(let line, let limit):
                throw CommandFailure(.dataError, "standard input:\(line): line longer than \(limit) bytes")
            }
        } catch let failure as StreamReadError {
            throw CommandFailure(.dataError, "cannot read customer ids from standard input: \(String(cString: strerror(failure.code)))")
        }
        return ids
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
