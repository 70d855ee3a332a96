// CRC-32C at memory speed (crc32c.c): SSE4.2's crc32 instruction when the CPU has it, else
// slicing-by-8 tables. SubsStore's `CRC32C` (journal lines, the store's stamp) calls it.

import CSubsSystem

public enum CRC32CCode {
    /// The CRC-32C of `bytes`, continuing `seed` (the CRC of the bytes before them; 0 to start).
    @inline(__always)
    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        return subs_crc32c(seed, base, bytes.count)
    }

    /// The same with the portable tables only (the tests hold both to the known values).
    public static func portableChecksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return seed }
        return subs_crc32c_portable(seed, base, bytes.count)
    }

    /// Whether `checksum` uses the CPU's instruction here.
    public static var usesHardware: Bool { subs_crc32c_uses_hardware() != 0 }
}
