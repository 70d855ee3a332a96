// The new version of a store while it is being written: a file beside the store that takes
// its place only once it is complete and on disk, or is removed.

#if canImport(Glibc)
import Glibc
#endif
import SubsSystem

final class TemporaryFile {
    let path: String
    private let store: String
    private var fd: Int32
    private var committed = false
    /// Bytes written so far, and how many of them the disk has been asked to take already.
    private var size = 0
    private var flushRequested = 0
    /// Test hook: where to sleep on the way (nil: nowhere).
    private let pause: WritePause?

    /// Creates `.STORE.tmp-XXXXXX` in the store's directory with `mode`, owned by `owner` when
    /// given (a rewrite keeps the store's owner and group: as root, or the group alone when the
    /// writer belongs to it; otherwise the file is the writer's, as any new file is).
    init(beside store: String, mode: mode_t, owner: (uid: uid_t, gid: gid_t)? = nil, pause: WritePause? = nil) throws {
        self.store = store
        self.pause = pause
        let prefix = StoreFiles.directory(of: store) + "/." + StoreFiles.baseName(of: store) + ".tmp-"
        // The name is remembered for the Ctrl-C handler *before* the file exists (mkstemp would
        // create it first, and an interrupt between the two left it behind). The random part is
        // long enough that the name is never another writer's; O_EXCL makes sure of it.
        var candidate: String
        var created: Int32
        repeat {
            candidate = prefix + TemporaryFile.randomSuffix()
            InterruptCleanup.remember(candidate)
            created = open(candidate, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if created < 0 {
                let code = errno
                InterruptCleanup.forget()
                guard code == EEXIST else {
                    throw StoreFiles.writeError(path: store, errno: code, doing: "cannot create a temporary file")
                }
            }
        } while created < 0
        fd = created
        path = candidate
        if let owner, owner.uid != geteuid() || owner.gid != getegid(), fchown(fd, owner.uid, owner.gid) != 0 {
            _ = fchown(fd, uid_t.max, owner.gid)
        }
        // After fchown, which clears set-id bits.
        guard fchmod(fd, mode) == 0 else {
            let code = errno
            discard()
            throw StoreFiles.writeError(path: store, errno: code, doing: "cannot set file mode")
        }
        StoreFiles.pause(pause, at: "writing")
    }

    deinit { discard() }

    /// Twelve random letters and digits: the length `StoreFiles.removeStaleTemporaries` knows.
    static let suffixLength = 12
    static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<suffixLength).map { _ in alphabet.randomElement()! })
    }

    /// Appends `chunk`. Safe to call from one thread at a time.
    func write(_ chunk: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < chunk.count {
            let n = Glibc.write(fd, chunk.baseAddress! + offset, chunk.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreFiles.writeError(path: store, errno: errno, doing: "cannot write")
            }
            offset += n
        }
        size += chunk.count
        // Start writing large files out now, while the rest is still being produced: the
        // final fsync then waits for much less (it still guarantees everything is on disk).
        if size - flushRequested >= 8 << 20 {
            startWriteback(fd: fd, offset: Int64(flushRequested), count: Int64(size - flushRequested))
            flushRequested = size
        }
    }

    /// A second descriptor of the file as written so far, and what it is (the caller closes it):
    /// it keeps reading this version after the rename and after anything renamed over it later.
    func readableCopy() throws -> (fd: Int32, identity: FileIdentity) {
        let copy = dup(fd)
        guard copy >= 0 else { throw StoreFiles.writeError(path: store, errno: errno, doing: "cannot keep the new version open") }
        _ = fcntl(copy, F_SETFD, FD_CLOEXEC)
        var info = stat()
        guard fstat(copy, &info) == 0 else {
            let code = errno
            close(copy)
            throw StoreFiles.writeError(path: store, errno: code, doing: "cannot keep the new version open")
        }
        return (copy, FileIdentity(info))
    }

    /// Flushes the file to disk and closes it.
    func sync() throws {
        StoreFiles.pause(pause, at: "syncing")
        guard fsync(fd) == 0 else { throw StoreFiles.writeError(path: store, errno: errno, doing: "cannot sync") }
        close(fd)
        fd = -1
    }

    /// Syncs, then renames the file over `target` and syncs the directory: readers see the old
    /// store or the new one, never a mix. `verify` runs last before the rename (the store must
    /// still be the one this version was made from); if it throws, nothing is replaced.
    func commit(over target: String, verify: () throws -> Void = {}) throws {
        try sync()
        StoreFiles.pause(pause, at: "renaming")
        try verify()
        try InterruptCleanup.committing {
            guard rename(path, target) == 0 else {
                throw StoreFiles.writeError(path: target, errno: errno, doing: "cannot replace store")
            }
            committed = true
        }
        InterruptCleanup.forget()
        StoreFiles.pause(pause, at: "renamed")
        StoreFiles.syncDirectory(of: target)
    }

    /// Closes and removes the file unless it was committed (no stray temporary after a failure).
    func discard() {
        if fd >= 0 { close(fd); fd = -1 }
        if !committed {
            unlink(path)
            committed = true
            InterruptCleanup.forget()
        }
    }
}
