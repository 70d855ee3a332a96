// Crash-safe file operations for the store (SPEC section 5): the sidecar lock, and writes that
// go to a temporary file in the same directory, are fsynced, then take the store's place.

#if canImport(Glibc)
import Glibc
#endif

public enum StoreFiles {
    /// The sidecar lock file of a store: `STORE.lock`, never renamed or deleted.
    public static func lockPath(for storePath: String) -> String { storePath + ".lock" }

    /// Runs `body` holding an exclusive `flock` on the store's sidecar lock, waiting at most
    /// `timeout` seconds for another writer (then `StoreError.lockTimeout`).
    public static func withLock<T>(storePath: String, timeout: Double, _ body: () throws -> T) throws -> T {
        let lockPath = lockPath(for: storePath)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw writeError(path: storePath, errno: errno, doing: "cannot open lock file \(lockPath)") }
        defer { close(fd) }
        let deadline = monotonicSeconds() + max(0, timeout)
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
        return try body()
    }

    /// Creates a new store at `path` holding `bytes`, under the store's lock; its directory is
    /// created (0700) when missing. Never replaces an existing store.
    public static func createStore(path: String, bytes: [UInt8], lockTimeout: Double) throws {
        try makeParentDirectory(of: path)
        try withLock(storePath: path, timeout: lockTimeout) {
            try create(path: path, bytes: bytes)
        }
    }

    /// Writes `bytes` as a new file at `path` that must not exist yet (mode 0600). The file
    /// appears complete or not at all.
    static func create(path: String, bytes: [UInt8]) throws {
        let temp = try TemporaryFile(beside: path, mode: 0o600)
        defer { temp.discard() }
        try bytes.withUnsafeBytes { try temp.write($0) }
        try temp.sync()
        // link() fails when the target exists, so an existing store is never replaced.
        if link(temp.path, path) != 0 {
            let code = errno
            if code == EEXIST { throw StoreError.alreadyExists(path: path) }
            throw writeError(path: path, errno: code, doing: "cannot create store")
        }
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
            if name.hasPrefix(prefix), name.count == prefix.count + 6 {
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

    /// Test hook: with `SUBS_TEST_PAUSE_AT=STEP`, the writer sleeps at that step so a test can
    /// kill it exactly there (crash-safety tests). Does nothing otherwise.
    static func pauseForTests(_ step: String) {
        guard let wanted = getenv("SUBS_TEST_PAUSE_AT").map({ String(cString: $0) }), wanted == step else { return }
        sleep(30)
    }
}
