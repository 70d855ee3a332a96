// A store file mapped read-only into memory: the scanner reads its bytes in place, no copy.
// The mapping itself, and what keeps a truncation under it from killing the process, is
// SubsSystem's FileMapping; this is the store's view of it (its errors, its checks).

#if canImport(Glibc)
import Glibc
#endif
import SubsSystem

package final class MappedFile {
    let path: String
    let bytes: UnsafeRawBufferPointer
    /// The mapping `bytes` lies in (a truncation under it gives zeros, not SIGBUS), when mapped.
    private var mapping: FileMapping?
    /// Bytes read instead: from a pipe or device, which cannot be mapped (`--store <(...)`), or
    /// from a file when no more mappings can be guarded.
    private var streamed: UnsafeMutableRawBufferPointer?
    /// The file's mode bits, owner and group (kept by writes).
    let mode: mode_t
    let owner: uid_t
    let group: gid_t
    /// The open file (regular files only; -1 otherwise) and what it was when opened: a read
    /// that outlives a change by someone else is refused (`verifyUnchanged()`).
    private var fd: Int32 = -1
    private let opened: stat
    /// Pages below this offset have been handed back (see `release(upTo:)`).
    private var releasedUpTo = 0

    /// Opens and maps `path`. Throws `StoreError.missing` / `.permissionDenied` / `.unreadable`.
    /// `regularOnly`: anything but a regular file (a FIFO, a device, a socket, a directory) is
    /// refused before a byte is read, and the open itself never waits — for a FIFO without a
    /// writer, a blocking open would wait forever (the server and the writers, which hold
    /// locks, open this way). Otherwise pipes and devices are read as streams (`--store <(...)`).
    convenience init(path: String, regularOnly: Bool = false) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (regularOnly ? O_NONBLOCK | O_NOCTTY : 0))
        guard fd >= 0 else { throw MappedFile.openError(path: path, errno: errno) }
        try self.init(opened: fd, path: path, regularOnly: regularOnly)
    }

    /// Maps the regular file `fd` is open on, through a descriptor of its own (`fd` stays the
    /// caller's): a version of the store the server holds open, whatever is at the path now.
    convenience init(duplicating fd: Int32, path: String) throws {
        let copy = dup(fd)
        guard copy >= 0 else { throw StoreError.unreadable(path: path, reason: errorText(errno)) }
        _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        try self.init(opened: copy, path: path, regularOnly: true)
    }

    /// Bytes held in memory as if they were a file (the journal's changes, read as a small
    /// store of their own): nothing is open, nothing can change under them.
    init(holding contents: [UInt8], path: String) {
        self.path = path
        opened = stat()
        mode = 0o600
        owner = geteuid()
        group = getegid()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(contents.count, 1), alignment: 16)
        contents.withUnsafeBytes { buffer.copyMemory(from: $0) }
        streamed = buffer
        bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<contents.count])
    }

    /// Maps the file open on `fd`, which becomes this object's (closed with it, or at once on a failure).
    private init(opened fd: Int32, path: String, regularOnly: Bool) throws {
        self.path = path
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw StoreError.unreadable(path: path, reason: errorText(code))
        }
        opened = info
        mode = info.st_mode & 0o7777
        owner = info.st_uid
        group = info.st_gid
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw StoreError.unreadable(path: path, reason: "is a directory")
        }
        if regularOnly && (info.st_mode & S_IFMT) != S_IFREG {
            close(fd)
            throw StoreError.unreadable(path: path, reason: "is \(MappedFile.kind(info.st_mode)), not a regular file")
        }
        if (info.st_mode & S_IFMT) != S_IFREG {
            defer { close(fd) }
            let buffer = try MappedFile.readStream(fd: fd, path: path)
            streamed = buffer
            bytes = UnsafeRawBufferPointer(buffer)
            return
        }
        self.fd = fd
        let size = Int(info.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        // No MADV_SEQUENTIAL, though the scan reads front to back: with it, a fault maps the
        // whole readahead window, tens of megabytes ahead of the scan between two releases
        // (a server's group write peaked 25 MB higher), and on a cached store it was no faster.
        let mapping: FileMapping?
        do {
            mapping = try FileMapping.map(fd: fd, count: size)
        } catch {
            close(fd)
            throw StoreError.unreadable(path: path, reason: errorText((error as? FileMapping.Failure)?.code ?? EINVAL))
        }
        if let mapping {
            self.mapping = mapping
            bytes = mapping.bytes
            return
        }
        // Every guard is in use (many stores open at once): an unguarded mapping could be
        // killed by a truncation, so the file is read into memory instead.
        guard let copy = MappedFile.readWhole(fd: fd, size: size) else {
            close(fd)
            throw StoreError.unreadable(path: path, reason: MappedFile.changedReason)
        }
        streamed = copy
        bytes = UnsafeRawBufferPointer(copy)
    }

    deinit {
        if fd >= 0 { close(fd) }
        streamed?.deallocate()
    }

    /// `size` bytes of `fd` from its start, read with pread; nil when the file ends sooner or
    /// cannot be read (it changed since its size was taken).
    private static func readWhole(fd: Int32, size: Int) -> UnsafeMutableRawBufferPointer? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        var done = 0
        while done < size {
            let n = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                buffer.deallocate()
                return nil
            }
            done += n
        }
        return buffer
    }

    /// The error of a store that was truncated or rewritten while it was being read: what was
    /// read is not one version of the store.
    var changedError: StoreError {
        .unreadable(path: path, reason: MappedFile.changedReason)
    }

    static let changedReason = "the store changed while it was being read (rewritten or truncated by another program); try again"

    /// Whether the file is still what it was when opened: no page was lost to a truncation,
    /// and its size and modification time are the same (a rename over it is not a change of
    /// this file; the writer checks for that itself).
    var isUnchanged: Bool {
        if let mapping, mapping.lostPages { return false }
        guard fd >= 0 else { return true }
        var now = stat()
        guard fstat(fd, &now) == 0 else { return false }
        return now.st_size == opened.st_size && now.st_mtim.tv_sec == opened.st_mtim.tv_sec
            && now.st_mtim.tv_nsec == opened.st_mtim.tv_nsec
    }

    /// Throws `changedError` unless `isUnchanged`.
    func verifyUnchanged() throws {
        guard isUnchanged else { throw changedError }
    }

    /// What the file was when opened (inode, size, modification time).
    var identity: FileIdentity { FileIdentity(opened) }

    /// A second descriptor of the open file (the caller closes it); nil when it is not a
    /// regular file held open.
    func duplicateDescriptor() -> Int32? {
        guard fd >= 0 else { return nil }
        let copy = dup(fd)
        guard copy >= 0 else { return nil }
        _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        return copy
    }

    /// Whether `path` still names this very file (not a file renamed over it since it was opened).
    func isStill(at path: String) -> Bool {
        guard fd >= 0 else { return true }
        var there = stat()
        guard stat(path, &there) == 0 else { return false }
        return there.st_dev == opened.st_dev && there.st_ino == opened.st_ino
    }

    /// Runs `body`, which reads these bytes; an error or a result that came from a file that
    /// changed meanwhile becomes `changedError` (zeros read in place of a lost page make any
    /// kind of error).
    package func reading<T>(_ body: () throws -> T) throws -> T {
        let result: T
        do {
            result = try body()
        } catch {
            try verifyUnchanged()
            throw error
        }
        try verifyUnchanged()
        return result
    }

    /// Hands back the memory of the pages below `offset` once they have been read. The mapping
    /// stays valid: a later read of those bytes maps them again from the page cache. This keeps
    /// the resident size of a scan of a large store small instead of growing to the file's size.
    /// `step`: how much is handed back at once (a server's several scans at a time use less).
    func release(upTo offset: Int, step: Int = MappedFile.releaseStep) {
        let end = min(offset, bytes.count) / MappedFile.pageSize * MappedFile.pageSize
        guard end - releasedUpTo >= step else { return }
        release(releasedUpTo..<end)
        releasedUpTo = end
    }

    /// Hands back the memory of every page read so far.
    func releaseAll() {
        release(0..<bytes.count)
    }

    /// Hands back the memory of the whole pages inside `range` (safe from any thread: it keeps
    /// no state; a later read maps them again from the page cache).
    func release(_ range: Range<Int>) {
        mapping?.release(range)
    }

    /// Hands back the pages around a record just read. A fault maps the whole page-cache folio
    /// around it — up to 2 MB on a file the kernel caches in large folios — so reading fifty
    /// customers spread over a store kept ~100 MB resident until the copy released them.
    func release(around range: Range<Int>) {
        let folio = 2 << 20
        release(max(0, range.lowerBound - folio)..<min(bytes.count, range.upperBound + folio))
    }

    /// A copy of `range`, read with pread rather than through the mapping: the server's reads of
    /// single customers land all over the file, and each fault through the mapping maps a whole
    /// (large) page-cache folio — its resident size would climb toward the store's size.
    /// A short read (the file was truncated) is `changedError`.
    func copy(_ range: Range<Int>) throws -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count)
        guard fd >= 0 else { return Array(bytes[range]) }
        var copied = [UInt8](repeating: 0, count: range.count)
        var done = 0
        while done < range.count {
            let n = copied.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw changedError }
            done += n
        }
        return copied
    }

    /// A second pass over the bytes (the writer's copy) releases behind itself from the start again.
    func restartRelease() {
        releasedUpTo = 0
    }

    static let pageSize = FileMapping.pageSize

    /// Release in steps of this many bytes: rare enough to cost nothing, small enough to matter.
    static let releaseStep = 16 << 20

    /// The most read from a pipe or device (which has no size to map): a stream that goes on
    /// past this is refused rather than read into memory without end.
    static let streamLimit = 1 << 30

    /// Reads a pipe or device to its end, but stops early — with bounded memory — at the first
    /// byte that can stand nowhere in a JSON document (a control character other than tab, LF
    /// and CR; a byte never found in UTF-8), so that the scan reports it there: `/dev/zero`
    /// and `/dev/urandom` stop at once. A stream longer than `limit` is refused.
    static func readStream(fd: Int32, path: String, limit: Int = streamLimit) throws -> UnsafeMutableRawBufferPointer {
        let read: StreamRead
        do {
            read = try SubsSystem.readStream(fd, limit: limit, stopAfter: neverInJSON)
        } catch let error as StreamReadError {
            throw StoreError.unreadable(path: path, reason: errorText(error.code))
        }
        guard !read.truncated else {
            read.bytes.deallocate()
            throw StoreError.unreadable(path: path, reason: "longer than \(limit >> 20) MiB, the most subs reads from a pipe or device")
        }
        return read.bytes
    }

    /// Bytes no JSON text contains anywhere: control characters (raw, even inside strings),
    /// except the three whitespace ones, and bytes that never occur in UTF-8.
    private static func neverInJSON(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0xC0 || byte == 0xC1 || byte >= 0xF5
    }

    /// What a file that is not a regular one is, in words.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a directory"
        default: return "not a regular file"
        }
    }

    static func openError(path: String, errno code: Int32) -> StoreError {
        switch code {
        case ENOENT, ENOTDIR: return .missing(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path, reason: "permission denied reading the store")
        case ELOOP: return .unreadable(path: path, reason: "too many levels of symbolic links")
        case ENXIO: return .unreadable(path: path, reason: "is a socket or a device that is not there, not a regular file")
        case EWOULDBLOCK: return .unreadable(path: path, reason: "the file is leased by another program; try again")
        default: return .unreadable(path: path, reason: errorText(code))
        }
    }
}
