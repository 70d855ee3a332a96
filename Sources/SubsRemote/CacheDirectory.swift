// The cache directory, opened once per cache operation and used through its descriptor: what
// is checked (owner, mode) is what is read and written, even if someone renames or replaces the
// path meanwhile. A directory or entry that another user owns or may write is not trusted: an
// entry in it could have been put there to pass a `--require` gate offline.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct CacheDirectory {
    let fd: Int32
    let path: String

    enum Opened {
        case trusted(CacheDirectory)
        /// Nothing there yet (a lookup is a miss; `store` creates it).
        case missing
        /// Not to be used: why, for the one warning.
        case distrusted(String)
        /// Cannot be opened (a file in the way, permissions…): why.
        case failed(String)
    }

    /// Opens `path` without following a symbolic link and checks that it is a directory owned by
    /// the effective user and writable by nobody else; one that is only readable by others is
    /// tightened to 0700.
    static func open(_ path: String) -> Opened {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .missing
            case ELOOP: return .distrusted("\(path): cache not used: a symbolic link")
            case ENOTDIR:
                // O_DIRECTORY with O_NOFOLLOW says ENOTDIR for a link, even to a directory.
                var info = stat()
                if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK { return .distrusted("\(path): cache not used: a symbolic link") }
                return .failed("not a directory")
            default: return .failed(String(cString: strerror(errno)))
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            return .failed(reason)
        }
        if let problem = CacheDirectory.distrust(info, euid: geteuid()) {
            _ = Glibc.close(fd)
            return .distrusted("\(path): cache not used: \(problem)")
        }
        if (info.st_mode & 0o077) != 0 { _ = fchmod(fd, 0o700) }
        return .trusted(CacheDirectory(fd: fd, path: path))
    }

    /// Why a file with this status is not to be trusted by `euid`, or nil.
    static func distrust(_ info: stat, euid: uid_t) -> String? {
        if info.st_uid != euid { return "owned by another user (uid \(info.st_uid))" }
        if (info.st_mode & 0o022) != 0 {
            return "writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8))); chmod go-w it"
        }
        return nil
    }

    func close() { _ = Glibc.close(fd) }

    enum EntryRead {
        case bytes([UInt8])
        case missing
        /// Present but not to be trusted: why, for the one warning.
        case distrusted(String)
        /// Present but not readable as an entry (too large, cut short, unreadable).
        case unusable
    }

    /// The bytes of entry `name` when it is a regular file we own, writable by nobody else, of
    /// at most `limit` bytes. Never follows a link, never waits on a FIFO, never reads more than
    /// the size it had when opened.
    func read(_ name: String, limit: Int) -> EntryRead {
        let entry = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        let shown = path + "/" + name
        guard entry >= 0 else {
            switch errno {
            case ENOENT: return .missing
            case ELOOP: return .distrusted("\(shown): cache entry not used: a symbolic link")
            case ENXIO: return .distrusted("\(shown): cache entry not used: not a regular file")
            default: return .unusable
            }
        }
        defer { Glibc.close(entry) }
        var info = stat()
        guard fstat(entry, &info) == 0 else { return .unusable }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .distrusted("\(shown): cache entry not used: not a regular file") }
        if let problem = CacheDirectory.distrust(info, euid: geteuid()) { return .distrusted("\(shown): cache entry not used: \(problem)") }
        guard info.st_size >= 0, info.st_size <= limit else { return .unusable }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(entry, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .unusable }
            offset += n
        }
        return .bytes(bytes)
    }

    /// Writes entry `name` from `parts` (a header and a body, never copied into one): a new 0600
    /// file beside it (created exclusively, never through a link), synced, then renamed over it,
    /// so that a reader — another subs process too — sees the old entry or the new one, whole.
    func write(_ parts: [[UInt8]], to name: String) throws {
        var temporary = ""
        var file: Int32 = -1
        for _ in 0..<8 where file < 0 {
            temporary = ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            file = openat(fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if file < 0 && errno != EEXIST { break }
        }
        guard file >= 0 else { throw RemoteError.cache(path: path, reason: "cannot create a file: \(String(cString: strerror(errno)))") }
        var ok = fchmod(file, 0o600) == 0
        for bytes in parts {
            var offset = 0
            while ok && offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, bytes.count - offset) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { ok = false } else { offset += n }
            }
        }
        let code = errno
        ok = ok && fsync(file) == 0
        Glibc.close(file)
        if !ok || renameat(fd, temporary, fd, name) != 0 {
            let reason = String(cString: strerror(ok ? errno : code))
            unlinkat(fd, temporary, 0)
            throw RemoteError.cache(path: path + "/" + name, reason: "cannot write: \(reason)")
        }
    }
}

/// Says why the cache is not trusted, once per cache.
final class DistrustReport: @unchecked Sendable {
    private let lock = NSLock()
    private var said = false
    private let hear: ((String) -> Void)?

    init(_ hear: ((String) -> Void)?) { self.hear = hear }

    func report(_ why: String) {
        lock.lock()
        let first = !said
        said = true
        lock.unlock()
        if first { hear?(why) }
    }
}
