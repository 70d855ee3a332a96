// Finding a byte string inside a buffer at memory speed: glibc's memmem (byte_search.c: Swift's
// Glibc module does not export it). find's scan of a store's transactions relies on it.

import CSubsSystem

public enum ByteSearch {
    /// Offset of the first `needle` in `bytes` at or after `from`; nil when there is none.
    public static func find(_ needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard let base = bytes.baseAddress, from >= 0, from <= bytes.count, needle.count <= bytes.count - from else { return nil }
        guard needle.count > 0, let n = needle.baseAddress else { return from }
        guard let hit = subs_find_bytes(base + from, bytes.count - from, n, needle.count) else { return nil }
        return base.distance(to: hit)
    }

    public static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        needle.withUnsafeBytes { find($0, in: bytes, from: from) }
    }
}
