// Safety: a store file mapped read-only into memory, whose pages another program can take away
// at any moment by truncating the file; a read of such a page raises SIGBUS. Every FileMapping
// is guarded (mapping_guard.c: a SIGBUS inside it puts a page of zeros there and flags it; no
// slot free, no FileMapping — the caller reads the file instead), so a read through `bytes`
// never kills the process: it sees the file's bytes, or zeros where the file lost them, and
// `lostPages` says which. The invariants: `bytes` is read only while this object is alive
// (whoever reads it holds the object; deinit unregisters the guard, then unmaps); the bytes are
// untrusted input that may change under the reader (another program writing the file in place),
// so a result read from them stands only after the caller checked the file unchanged.

import CSubsSystem
#if canImport(Glibc)
import Glibc
#endif

public final class FileMapping: @unchecked Sendable {
    /// The file's bytes in memory; valid while this object lives.
    public let bytes: UnsafeRawBufferPointer
    private let slot: Int32

    /// The error of a failed mmap(2): its errno.
    public struct Failure: Error {
        public let code: Int32
    }

    /// Maps the first `count` bytes (more than 0) of the open regular file `fd`, read-only.
    /// nil when every guard slot is taken (a truncation could kill the process: read the file
    /// instead); throws `Failure` when mmap fails.
    public static func map(fd: Int32, count: Int) throws -> FileMapping? {
        precondition(count > 0)
        guard let base = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw Failure(code: errno)
        }
        let slot = subs_mapping_guard_register(base, count)
        guard slot >= 0 else {
            munmap(base, count)
            return nil
        }
        return FileMapping(bytes: UnsafeRawBufferPointer(start: base, count: count), slot: slot)
    }

    private init(bytes: UnsafeRawBufferPointer, slot: Int32) {
        self.bytes = bytes
        self.slot = slot
    }

    deinit {
        subs_mapping_guard_unregister(slot)
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    /// Whether a read hit a page the file no longer had (it read zeros there).
    public var lostPages: Bool {
        subs_mapping_guard_faulted(slot) != 0
    }

    /// Hands back the memory of the whole pages inside `range` (safe from any thread: it keeps
    /// no state; a later read maps them again from the page cache).
    public func release(_ range: Range<Int>) {
        guard let base = bytes.baseAddress else { return }
        let page = FileMapping.pageSize
        let start = (range.lowerBound + page - 1) / page * page
        let end = range.upperBound >= bytes.count ? bytes.count : range.upperBound / page * page
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
    }

    public static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// How many mappings can be guarded at once (more are refused by `map`).
    public static var capacity: Int { Int(subs_mapping_guard_capacity()) }
}
