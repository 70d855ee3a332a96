// The cache's bound (SUBS_CACHE_MAX, SPEC section 7 rev. 4): after a write takes the entries
// past it, the oldest entries (by modification time: when they were written) are removed until
// they are under nine tenths of it, so that a full cache is listed once per tenth of the bound
// written, not once per write. The directory is listed through its descriptor, and only the
// names subs writes are counted or removed: entries (`<sha256>.entry`) and the temporary files
// of writes, which a writer killed between create and rename leaves behind (removed once an
// hour old). Several subs processes may share the cache: an entry is replaced by rename, so a
// reader has the old file or the new one, and removing a file another process removed first
// is no error.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What one process knows of its cache's size: the total found by the last listing plus what it
/// wrote since. Another process's writes are seen at the next listing.
final class CacheLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var known: Int?

    /// Counts a write of `bytes`; lists and evicts when the cache may be over `bound`.
    func wrote(_ bytes: Int, bound: Int, in folder: CacheDirectory) {
        lock.lock()
        defer { lock.unlock() }
        if let total = known, total + bytes <= bound {
            known = total + bytes
            return
        }
        known = folder.evict(downTo: bound - bound / 10, over: bound)
    }
}

extension CacheDirectory {
    struct Member {
        var name: String
        var size: Int
        var modified: timespec
    }

    /// The entries and temporary files of the directory, oldest first.
    func members() -> [Member] {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { _ = Glibc.close(copy) }
            return []
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var found: [Member] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard CacheDirectory.isOurs(name) else { continue }
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            found.append(Member(name: name, size: Int(info.st_size), modified: info.st_mtim))
        }
        return found.sorted { a, b in
            a.modified.tv_sec != b.modified.tv_sec ? a.modified.tv_sec < b.modified.tv_sec
                : a.modified.tv_nsec != b.modified.tv_nsec ? a.modified.tv_nsec < b.modified.tv_nsec : a.name < b.name
        }
    }

    /// A name subs writes here: `<64 hex digits>.entry`, or a write's `.tmp-…`.
    static func isOurs(_ name: String) -> Bool {
        if name.hasPrefix(".tmp-") { return true }
        guard name.hasSuffix(".entry"), name.utf8.count == 70 else { return false }
        return name.utf8.prefix(64).allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// When the entries take more than `bound` bytes, removes the oldest until they take at most
    /// `target`; a temporary file an hour old is a dead writer's and goes first. Returns the
    /// bytes left.
    @discardableResult
    func evict(downTo target: Int, over bound: Int) -> Int {
        var members = members()
        let hourAgo = time(nil) - 3600
        members.removeAll { member in
            guard member.name.hasPrefix(".tmp-") else { return false }
            if member.modified.tv_sec < hourAgo { remove(member.name) }
            // A write in progress is not counted: its writer counts it once renamed.
            return true
        }
        var total = members.reduce(0) { $0 + $1.size }
        guard total > bound else { return total }
        for member in members where total > target {
            remove(member.name)
            total -= member.size
        }
        return total
    }

    /// Removes `name` (already gone: nothing to do).
    func remove(_ name: String) {
        _ = unlinkat(fd, name, 0)
    }
}
