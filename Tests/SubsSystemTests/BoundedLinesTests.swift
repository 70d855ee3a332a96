// BoundedLines: lines of a stream with bounded memory; a control byte, invalid UTF-8 or an
// over-long line stops it at once, and where the chunks are cut never changes the answer.

import XCTest
@testable import SubsSystem

final class BoundedLinesTests: XCTestCase {
    /// Every line of `bytes` handed over in chunks of `size`, or the problem met.
    func lines(_ bytes: [UInt8], chunk size: Int = 1 << 16, maxLine: Int = 4096) -> Result<[String], BoundedLines.Problem> {
        var offset = 0
        var reader = BoundedLines(maxLine: maxLine) {
            guard offset < bytes.count else { return nil }
            defer { offset += size }
            return Array(bytes[offset..<min(bytes.count, offset + size)])
        }
        var out: [String] = []
        do {
            while let line = try reader.nextLine() { out.append(line) }
            return .success(out)
        } catch {
            return .failure(error as! BoundedLines.Problem)
        }
    }

    func testLinesEndWithLFOrCRLFAndTheLastNeedsNoEnd() {
        XCTAssertEqual(lines(Array("a\nb\r\n\nc".utf8)), .success(["a", "b", "", "c"]))
        XCTAssertEqual(lines(Array("a\n".utf8)), .success(["a"]))
        XCTAssertEqual(lines(Array("a\r".utf8)), .success(["a"]), "a CRLF file cut before its last LF")
        XCTAssertEqual(lines(Array("\n".utf8)), .success([""]))
        XCTAssertEqual(lines([]), .success([]))
        XCTAssertEqual(lines(Array(" \tid with tab\t\n".utf8)), .success([" \tid with tab\t"]), "tabs are blanks, not control bytes")
        XCTAssertEqual(lines(Array("zoë 🎉\n".utf8)), .success(["zoë 🎉"]))
    }

    func testControlBytesStopAtOnceWithTheLine() {
        XCTAssertEqual(lines([0]), .failure(.controlByte(line: 1, byte: 0)))
        XCTAssertEqual(lines(Array("a\nb\n#c\u{1B}[31m\n".utf8)), .failure(.controlByte(line: 3, byte: 0x1B)), "comments too")
        XCTAssertEqual(lines(Array("a\rb\n".utf8)), .failure(.controlByte(line: 1, byte: 0x0D)), "a CR not before the line end")
        XCTAssertEqual(lines(Array("a\r\r\n".utf8)), .failure(.controlByte(line: 1, byte: 0x0D)))
        XCTAssertEqual(lines(Array("a\n\u{7F}\n".utf8)), .failure(.controlByte(line: 2, byte: 0x7F)))
        XCTAssertEqual(lines(Array("a\n\u{0C}".utf8)), .failure(.controlByte(line: 2, byte: 0x0C)))
    }

    func testInvalidUTF8AndOverLongLinesNameTheirLine() {
        XCTAssertEqual(lines(Array("ok\n".utf8) + [0xC3, 0x28] + Array("\n".utf8)), .failure(.invalidUTF8(line: 2)))
        XCTAssertEqual(lines([0xED, 0xA0, 0x80]), .failure(.invalidUTF8(line: 1)), "a surrogate")
        XCTAssertEqual(lines(Array("a\n".utf8) + [UInt8](repeating: 0x61, count: 4097) + [0x0A]), .failure(.tooLong(line: 2, limit: 4096)))
        XCTAssertEqual(lines([UInt8](repeating: 0x61, count: 4096) + Array("\r\n".utf8)), .success([String(repeating: "a", count: 4096)]),
                       "4 096 bytes, then CRLF: the line end does not count")
    }

    /// Where the chunks are cut (inside a CRLF, inside a UTF-8 sequence) changes nothing.
    func testChunkingNeverChangesTheAnswer() {
        let inputs: [[UInt8]] = [
            Array("alice\r\nbob\n\n# c\r\nzoë\r\n\t x \t\n".utf8), Array("a\r".utf8), Array("é\r\nb".utf8) + [0xFF],
            Array("ab\rc".utf8), Array("1\n2\n".utf8) + [0] + Array("3".utf8), [UInt8](repeating: 0x62, count: 70) + [0x0A],
        ]
        for input in inputs {
            let whole = lines(input, maxLine: 64)
            for size in 1...input.count { XCTAssertEqual(lines(input, chunk: size, maxLine: 64), whole, "\(input) by \(size)") }
        }
    }

    /// An endless stream of zeros or of one long line: the reader asks for a bounded number of
    /// chunks and never holds more than a line.
    func testEndlessStreamsStopEarly() {
        var asked = 0
        var zeros = BoundedLines { asked += 1; return [UInt8](repeating: 0, count: 1 << 16) }
        XCTAssertThrowsError(try zeros.nextLine()) { XCTAssertEqual($0 as? BoundedLines.Problem, .controlByte(line: 1, byte: 0)) }
        XCTAssertEqual(asked, 1)
        asked = 0
        var endless = BoundedLines { asked += 1; return [UInt8](repeating: 0x61, count: 1000) }
        XCTAssertThrowsError(try endless.nextLine()) { XCTAssertEqual($0 as? BoundedLines.Problem, .tooLong(line: 1, limit: 4096)) }
        XCTAssertEqual(asked, 5)
    }

    func testReadErrorsPassThrough() {
        struct Broken: Error {}
        var reader = BoundedLines { throw Broken() }
        XCTAssertThrowsError(try reader.nextLine()) { XCTAssertTrue($0 is Broken) }
    }

    /// The rules written the plain way, on the whole input at once.
    func reference(_ bytes: [UInt8], maxLine: Int) -> Result<[String], BoundedLines.Problem> {
        var out: [String] = []
        var line: [UInt8] = []
        var number = 1
        var index = 0
        func finish() -> String? { String(validating: line, as: UTF8.self) }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x0A:
                guard let text = finish() else { return .failure(.invalidUTF8(line: number)) }
                out.append(text)
                line = []
                number += 1
            case 0x0D:
                guard index == bytes.count || bytes[index] == 0x0A else { return .failure(.controlByte(line: number, byte: 0x0D)) }
                if index == bytes.count {
                    guard let text = finish() else { return .failure(.invalidUTF8(line: number)) }
                    return .success(out + [text])
                }
            case 0x09, 0x20..<0x7F, 0x80...0xFF:
                guard line.count < maxLine else { return .failure(.tooLong(line: number, limit: maxLine)) }
                line.append(byte)
            default:
                return .failure(.controlByte(line: number, byte: byte))
            }
        }
        if line.isEmpty { return .success(out) }
        guard let text = finish() else { return .failure(.invalidUTF8(line: number)) }
        return .success(out + [text])
    }

    /// Random inputs over the bytes that matter, cut at random: the reader agrees with the plain
    /// rules (a seeded generator: a failure reproduces).
    func testRandomInputsFollowTheRules() {
        var state: UInt64 = 0x5EED_2026
        func random(_ bound: Int) -> Int {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        let alphabet: [UInt8] = [0x61, 0x62, 0x20, 0x09, 0x0A, 0x0A, 0x0D, 0x00, 0x7F, 0x1B, 0xC3, 0xA9, 0xFF, 0x23]
        for _ in 0..<3000 {
            let input = (0..<random(40)).map { _ in random(4) == 0 ? alphabet[random(alphabet.count)] : alphabet[random(3)] }
            XCTAssertEqual(lines(input, chunk: 1 + random(9), maxLine: 8), reference(input, maxLine: 8), "\(input)")
        }
    }
}
