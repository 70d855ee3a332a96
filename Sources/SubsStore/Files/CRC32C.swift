// CRC-32C (Castagnoli), the checksum of each journal line: a torn or damaged line is told from a
// whole one without trusting its bytes. Lines are small (a customer's record), so a table-driven
// software CRC is fast enough and portable; nothing here needs the SSE4.2 instruction.

enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        return c
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        table.withUnsafeBufferPointer { t in
            for byte in bytes { crc = t[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    /// Eight lowercase hex digits.
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
