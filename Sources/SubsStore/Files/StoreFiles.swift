// Crash-safe file operations for the store (SPEC section 5): the sidecar lock, and writes that
// go to a temporary file in the same directory, are fsynced, then take the store's place.

#if canImport(Glibc)
import Glibc
#endif
import SubsSystem

public enum StoreFiles {
    /// The sidecar lock file of a store: `STORE.lock`, never renamed or deleted.
    public static func lockPath(for storePath: String) -> String { storePath + ".lock" }

    /// The file a store path stands for: symbolic links followed (chains, relative targets
    /// resolved against the link's directory) to the last path, which may not exist yet (a
    /// dangling link names the file to create). Writes, the lock and the temporary file go
    /// there, so the link stays a link and every path to one store shares one lock.
    public static func resolvedPath(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = buffer.withUnsafeMutableBytes { readlink(current, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) }
            guard n > 0 else { throw StoreError.unreadable(path: path, reason: "cannot read symbolic link \(current): \(errorText(errno))") }
            let target = String(decoding: buffer[0..<n], as: UTF8.self)
            current = target.hasPrefix("/") || !current.contains("/") ? target : directory(of: current) + "/" + target
        }
        throw StoreError.unreadable(path: path, reason: "too many levels of symbolic links")
    }

    /// Runs `body` holding an exclusive `flock` on the store's sidecar lock, waiting at most
    /// `timeout` seconds for another writer (then `StoreError.lockTimeout`). `storePath` is a
    /// resolved path (`resolvedPath`). The lock file (`openLock`) is never followed when it is a
    /// symbolic link (refused), is created 0600 and opened for writing, and is refused when
    /// another user owns it; one this call creates is removed again when `body` fails: a failed
    /// command leaves nothing it created. A lock file that existed before stays.
    public static func withLock<T>(storePath: String, timeout: Double, _ body: () throws -> T) throws -> T {
        let lockPath = lockPath(for: storePath)
        let deadline = monotonicSeconds() + max(0, timeout)
        while true {
            let (fd, created) = try openLock(lockPath, storePath: storePath)
            defer { close(fd) }
            var delay: useconds_t = 1_000
            while flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                guard code == EWOULDBLOCK || code == EINTR else {
                    throw writeError(path: storePath, errno: code, doing: "cannot lock \(lockPath)")
                }
                if monotonicSeconds() >= deadline { throw StoreError.lockTimeout(path: storePath, seconds: timeout) }
                usleep(delay)
                delay = min(delay * 2, 50_000)
            }
            defer { flock(fd, LOCK_UN) }
            // A lock file removed (by a writer that created it and failed) while this one
            // waited locks nothing any more: start again with the file now at the path.
            guard names(lockPath, fd) else { continue }
            do {
                return try body()
            } catch {
                if created { unlink(lockPath) }
                throw error
            }
        }
    }

    /// Opens the lock file for reading and writing, creating it when missing; tells whether
    /// this call created it. Whoever can open a lock file can `flock` it — a read-only descriptor
    /// is enough — and so stop every write (exit 75, serve 503); hence (SPEC section 7 rev. 4):
    /// - a new lock file is 0600 whatever the store's mode and the umask; root creating one for
    ///   another user's store gives it to the store's owner, who must be able to lock it too;
    /// - a lock file is used only when the user running subs, root or the store's owner owns it
    ///   (each of them can change the store anyway); another user's is refused (77), as they
    ///   could hold it. A group of writers shares a store through a lock file made for it by the
    ///   store's owner or root, group-writable: `install -m 660 -g GROUP /dev/null STORE.lock`;
    /// - a lock file of the running user's that others may open is narrowed to 0600 (or 0660
    ///   when its group may read and write it: a shared lock), as earlier versions gave new lock
    ///   files the store's read bits.
    private static func openLock(_ lockPath: String, storePath: String) throws -> (Int32, Bool) {
        var store = stat()
        let storeExists = stat(storePath, &store) == 0
        let euid = geteuid()
        while true {
            var created = false
            var fd = open(lockPath, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            if fd < 0 && errno == ENOENT {
                fd = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
                if fd < 0 && errno == EEXIST { continue }   // another writer created it just now
                created = fd >= 0
            }
            guard fd >= 0 else {
                let code = errno
                if code == ELOOP {
                    throw StoreError.cannotWrite(path: storePath, reason: "lock file \(lockPath) is a symbolic link; refusing to follow it")
                }
                throw writeError(path: storePath, errno: code, doing: "cannot open lock file \(lockPath)")
            }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                close(fd)
                throw StoreError.cannotWrite(path: storePath, reason: "lock file \(lockPath) is not a regular file; refusing to use it")
            }
            if created {
                // Exactly 0600, whatever the umask; as root, the store's owner's (not as anyone
                // else: a chown would fail, and the lock is then the creator's).
                _ = fchmod(fd, 0o600)
                if storeExists && euid == 0 && store.st_uid != 0 { _ = fchown(fd, store.st_uid, store.st_gid) }
                return (fd, created)
            }
            let owner = info.st_uid
            guard owner == euid || owner == 0 || (storeExists && owner == store.st_uid) else {
                close(fd)
                throw StoreError.permissionDenied(
                    path: storePath,
                    reason: "lock file \(lockPath) is owned by another user (\(SecretFile.userName(owner))), who could hold it and stop every write; "
                        + "refusing to use it (remove it; a lock file shared by a group of writers is made by the store's owner or root); "
                        + "store left unchanged")
            }
            if owner == euid {
                let mode = info.st_mode & 0o777
                let narrowed: mode_t = mode & 0o060 == 0o060 ? 0o660 : 0o600
                if mode & ~narrowed != 0 { _ = fchmod(fd, mode & narrowed) }
            }
            return (fd, created)
        }
    }

    /// Whether `path` (not followed) is the file open as `fd`.
    private static func names(_ path: String, _ fd: Int32) -> Bool {
        var there = stat(), open = stat()
        guard lstat(path, &there) == 0, fstat(fd, &open) == 0 else { return false }
        return there.st_dev == open.st_dev && there.st_ino == open.st_ino
    }

    /// Creates a new store at `path` holding `bytes`, under the store's lock; its directory is
    /// created (0700) when missing. Never replaces an existing store. A symbolic link is
    /// followed: through a dangling link, the store is created where the link points.
    public static func createStore(path: String, bytes: [UInt8], lockTimeout: Double, pause: WritePause? = nil) throws {
        let target = try resolvedPath(path)
        try refuseExisting(target, named: path)
        try makeParentDirectory(of: target)
        try withLock(storePath: target, timeout: lockTimeout) {
            try create(path: target, bytes: bytes, named: path, pause: pause)
        }
    }

    /// What stands at `target` already, said as it is; and the journal of an earlier store left
    /// beside it (its changes would be applied to, or refuse, the new store: it is the user's to
    /// keep or remove, never ours to drop).
    private static func refuseExisting(_ target: String, named path: String) throws {
        var info = stat()
        guard lstat(target, &info) == 0 else {
            if lstat(target + ".journal", &info) == 0 {
                throw StoreError.cannotWrite(path: path, reason: "\(target).journal, the journal of an earlier store, is still there; "
                    + "move it aside or remove it first")
            }
            return
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError.cannotWrite(path: path, reason: "\(target == path ? "it" : target) is a directory, not a store")
        }
        throw StoreError.alreadyExists(path: path)
    }

    /// Writes `bytes` as a new file at `path` that must not exist yet (mode 0600). The file
    /// appears complete or not at all.
    static func create(path: String, bytes: [UInt8], named: String? = nil, pause: WritePause? = nil) throws {
        let temp = try TemporaryFile(beside: path, mode: 0o600, pause: pause)
        defer { temp.discard() }
        try bytes.withUnsafeBytes { try temp.write($0) }
        try temp.sync()
        StoreFiles.pause(pause, at: "renaming")
        // link() fails when the target exists, so an existing store is never replaced.
        try InterruptCleanup.committing {
            if link(temp.path, path) != 0 {
                let code = errno
                if code == EEXIST {
                    try refuseExisting(path, named: named ?? path)
                    throw StoreError.alreadyExists(path: named ?? path)
                }
                throw writeError(path: path, errno: code, doing: "cannot create store")
            }
        }
        StoreFiles.pause(pause, at: "renamed")
        syncDirectory(of: path)
    }

    /// Temporary files of writers that were killed mid-write. Holding the lock, no live writer
    /// can own one, so they are safe to remove.
    static func removeStaleTemporaries(beside path: String) {
        let prefix = "." + baseName(of: path) + ".tmp-"
        let dirPath = directory(of: path)
        guard let dir = opendir(dirPath) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            // Six characters: mkstemp's names, from earlier versions of subs.
            if name.hasPrefix(prefix), [6, TemporaryFile.suffixLength].contains(name.count - prefix.count) {
                unlink(dirPath + "/" + name)
            }
        }
    }

    static func makeParentDirectory(of path: String) throws {
        let dir = directory(of: path)
        var current = dir.hasPrefix("/") ? "" : "."
        for part in dir.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw writeError(path: path, errno: errno, doing: "cannot create directory \(current)")
            }
        }
    }

    static func syncDirectory(of path: String) {
        let fd = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func writeError(path: String, errno code: Int32, doing: String) -> StoreError {
        if code == EACCES || code == EPERM {
            return .permissionDenied(path: path, reason: "\(doing): permission denied; store left unchanged")
        }
        return .cannotWrite(path: path, reason: "\(doing): \(errorText(code))")
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Test hook: sleeps when `pause` names this step, so a test can kill the writer exactly
    /// there (crash-safety tests) or change the store meanwhile. A signal ends the pause early.
    static func pause(_ pause: WritePause?, at step: String) {
        guard let pause, pause.step == step else { return }
        usleep(useconds_t(max(0, min(pause.seconds, 60)) * 1_000_000))
    }
}

/// Test hook, injected by the caller (the CLI reads SUBS_TEST_PAUSE_AT and SUBS_TEST_PAUSE_FOR):
/// the store writer sleeps `seconds` (at most 60) at `step`: a change at appending (before its
/// journal append, the last look at the store) or appended (after its fdatasync); a new store file
/// (`store init`, a fold of the journal) at writing, syncing, renaming or renamed, and a fold also
/// at folded (its marker appended, before the rename) and compacted (renamed, before the fresh
/// journal).
public struct WritePause: Equatable, Sendable {
    public var step: String
    public var seconds: Double
    public init(step: String, seconds: Double = 30) {
        self.step = step
        self.seconds = seconds
    }
}
