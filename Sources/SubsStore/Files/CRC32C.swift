// CRC-32C (Castagnoli), the checksum of each journal line: a torn or damaged line is told from a
// whole one without trusting its bytes. Every reader checks every line of the journal (and the
// store's stamp sums 128 KiB of it), so it runs at memory speed: SubsSystem's `CRC32CCode`, the
// CPU's crc32 instruction when there is one, else slicing-by-8 tables.

import SubsSystem

enum CRC32C {
    static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        CRC32CCode.checksum(bytes, seed: seed)
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
