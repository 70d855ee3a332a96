// Finding a byte string inside a buffer at memory speed: glibc's memmem (vectorised), which
// Swift's Glibc module does not export, looked up once; a memchr-driven loop where it is missing.

#if canImport(Glibc)
import Glibc
#endif

enum ByteSearch {
    /// Offset of the first `needle` in `bytes` at or after `from`; nil when there is none.
    static func find(_ needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard let base = bytes.baseAddress, from <= bytes.count, needle.count <= bytes.count - from else { return nil }
        guard needle.count > 0, let n = needle.baseAddress else { return from }
        if let memmem = libcMemmem {
            guard let hit = memmem(base + from, bytes.count - from, n, needle.count) else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
        // memchr for the needle's last byte, then a comparison of the rest.
        let last = Int32(needle[needle.count - 1])
        var p = from + needle.count - 1
        while p < bytes.count, let hit = memchr(base + p, last, bytes.count - p) {
            let end = base.distance(to: UnsafeRawPointer(hit))
            let start = end - needle.count + 1
            if memcmp(base + start, n, needle.count) == 0 { return start }
            p = end + 1
        }
        return nil
    }

    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        needle.withUnsafeBytes { find($0, in: bytes, from: from) }
    }

    private static let libcMemmem: (@convention(c) (UnsafeRawPointer?, Int, UnsafeRawPointer?, Int) -> UnsafeMutableRawPointer?)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memmem") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeRawPointer?, Int, UnsafeRawPointer?, Int) -> UnsafeMutableRawPointer?).self)
    }()
}
