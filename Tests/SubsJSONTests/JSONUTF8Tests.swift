// UTF-8 validation inside strings and the byte order mark, through both readers.

import XCTest
@testable import SubsJSON

final class JSONUTF8Tests: XCTestCase {
    /// `"<bytes>"` as a document.
    private func string(_ bytes: [UInt8], padding: Int = 0) -> [UInt8] {
        let pad = [UInt8](repeating: 0x61, count: padding)
        return [0x22] + pad + bytes + pad + [0x22]
    }

    func testValidSequences() {
        let samples: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF],                    // U+0080, U+07FF
            [0xE0, 0xA0, 0x80], [0xEC, 0xBF, 0xBF],        // U+0800, U+CFFF
            [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],        // U+D7FF, U+E000
            [0xEF, 0xBF, 0xBF],                            // U+FFFF
            [0xF0, 0x90, 0x80, 0x80], [0xF3, 0xBF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], // U+10000, U+10FFFF
        ]
        for bytes in samples {
            for padding in [0, 3, 9] {
                let expected = String(decoding: bytes, as: UTF8.self)
                XCTAssertFalse(expected.contains("\u{FFFD}"))
                let pad = String(repeating: "a", count: padding)
                XCTAssertEqual(assertAccepts(string(bytes, padding: padding)), .string(pad + expected + pad), "\(bytes)")
            }
        }
    }

    func testInvalidSequences() {
        let samples: [(String, [UInt8])] = [
            ("stray continuation byte", [0x80]),
            ("stray continuation byte", [0xBF]),
            ("overlong 2-byte /", [0xC0, 0xAF]),
            ("overlong 2-byte", [0xC1, 0xBF]),
            ("overlong 3-byte", [0xE0, 0x80, 0xAF]),
            ("overlong 3-byte", [0xE0, 0x9F, 0xBF]),
            ("overlong 4-byte", [0xF0, 0x80, 0x80, 0xAF]),
            ("overlong 4-byte", [0xF0, 0x8F, 0xBF, 0xBF]),
            ("encoded surrogate U+D800", [0xED, 0xA0, 0x80]),
            ("encoded surrogate U+DFFF", [0xED, 0xBF, 0xBF]),
            ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
            ("F5 lead", [0xF5, 0x80, 0x80, 0x80]),
            ("FF byte", [0xFF]),
            ("FE byte", [0xFE]),
            ("5-byte form", [0xF8, 0x88, 0x80, 0x80, 0x80]),
            ("truncated 2-byte", [0xC3]),
            ("truncated 3-byte", [0xE2, 0x82]),
            ("truncated 4-byte", [0xF0, 0x9F, 0x98]),
            ("lead then ASCII", [0xC3, 0x41]),
            ("lead then lead", [0xE2, 0xE2, 0x82, 0xAC]),
        ]
        for (name, bytes) in samples {
            for padding in [0, 3, 9] {
                let error = assertRejects(string(bytes, padding: padding), "invalid UTF-8")
                XCTAssertEqual(error?.offset, 1 + padding, name)
            }
        }
        // Cut off by the end of the document rather than by another byte.
        assertRejects([0x22, 0xE2, 0x82], "unexpected end of input")
        // Invalid UTF-8 in a key is rejected too.
        assertRejects([0x7B, 0x22, 0xC0, 0x80, 0x22, 0x3A, 0x31, 0x7D], "invalid UTF-8", at: "1:3")
        // Outside strings no non-ASCII byte is allowed at all.
        assertRejects([0x5B, 0xC3, 0xA9, 0x5D], "unexpected byte 0xC3", at: "1:2")
    }

    func testByteOrderMark() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        assertRejects(bom + Array("{}".utf8), "byte order mark not allowed", at: "1:1")
        assertRejects(bom, "byte order mark not allowed")
        assertRejects(Array(" ".utf8) + bom + Array("{}".utf8), "unexpected byte 0xEF", at: "1:2")
        // U+FEFF inside a string is just a character.
        XCTAssertEqual(assertAccepts([0x22] + bom + [0x22]), .string("\u{FEFF}"))
    }
}
