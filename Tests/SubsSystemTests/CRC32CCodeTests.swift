// CRC-32C at memory speed (crc32c.c): the hardware path and the portable slicing-by-8 tables
// both give the known check values (RFC 3720 appendix B.4, and "123456789"), and agree with the
// one-byte-at-a-time definition at every length, alignment and seed (chained sums).

import SubsSystem
import XCTest

final class CRC32CCodeTests: XCTestCase {
    /// The definition, a bit at a time (reflected polynomial 0x82F63B78).
    func reference(_ bytes: [UInt8], seed: UInt32 = 0) -> UInt32 {
        var c = ~seed
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        }
        return ~c
    }

    func both(_ bytes: [UInt8], seed: UInt32 = 0, offset: Int = 0) -> (UInt32, UInt32) {
        bytes.withUnsafeBytes { all in
            let part = UnsafeRawBufferPointer(rebasing: all[offset...])
            return (CRC32CCode.checksum(part, seed: seed), CRC32CCode.portableChecksum(part, seed: seed))
        }
    }

    func testTheKnownCheckValues() {
        let vectors: [([UInt8], UInt32)] = [
            (Array("123456789".utf8), 0xE306_9283),
            ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
            ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
            ((0..<32).map { UInt8($0) }, 0x46DD_794E),
            ((0..<32).reversed().map { UInt8($0) }, 0x113F_DB5C),
            ([], 0),
        ]
        for (bytes, expected) in vectors {
            let (fast, portable) = both(bytes)
            XCTAssertEqual(fast, expected, "\(bytes.count) bytes (hardware: \(CRC32CCode.usesHardware))")
            XCTAssertEqual(portable, expected, "\(bytes.count) bytes, portable")
            XCTAssertEqual(reference(bytes), expected)
        }
    }

    func testEveryLengthAlignmentAndSeedAgreesWithTheDefinition() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        let buffer = (0..<600).map { _ in UInt8(truncatingIfNeeded: next()) }
        for length in 0..<80 {
            for offset in 0..<9 {
                let seed = UInt32(truncatingIfNeeded: next())
                let bytes = Array(buffer[offset..<(offset + length)])
                let expected = reference(bytes, seed: seed)
                let (fast, portable) = both(Array(buffer[0..<(offset + length)]), seed: seed, offset: offset)
                XCTAssertEqual(fast, expected, "length \(length), offset \(offset)")
                XCTAssertEqual(portable, expected, "length \(length), offset \(offset), portable")
            }
        }
        // Chained: the sum of a whole is the sum of its second part seeded with the first's.
        let whole = reference(buffer)
        for cut in [0, 1, 7, 8, 9, 300, 599, 600] {
            let first = both(Array(buffer[0..<cut])).0
            XCTAssertEqual(both(Array(buffer[cut...]), seed: first).0, whole, "cut at \(cut)")
            XCTAssertEqual(both(Array(buffer[cut...]), seed: both(Array(buffer[0..<cut])).1).1, whole, "cut at \(cut), portable")
        }
    }
}
