// The journal beside the store, STORE.journal: opened before the store by every reader (so that
// a compaction between the two opens is seen as the folded marker naming the store just opened),
// read whole (it is small by construction: the writer folds it into the store past its bound),
// and appended to by the one writer holding STORE.lock.

#if canImport(Glibc)
import Glibc
#endif
import SubsSystem

/// An open journal file.
final class JournalFile {
    let path: String
    let fd: Int32

    /// The journal of the store at `storePath` (resolved: the journal stands beside the file a
    /// link names, as the lock does).
    static func path(forStore storePath: String) -> String { storePath + ".journal" }

    /// The most a journal may hold: far past the bound at which it is folded; a larger one is
    /// refused rather than read into memory.
    static let readLimit = 1 << 30

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// The journal of `storePath` opened for reading (and writing, with `writable`); nil when
    /// there is none. Anything but a regular file there is refused (a FIFO would hang a reader).
    static func open(storePath: String, writable: Bool = false) throws -> JournalFile? {
        let path = JournalFile.path(forStore: storePath)
        let fd = Glibc.open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            if code == ELOOP { throw StoreError.unreadable(path: path, reason: "the journal is a symbolic link; refusing to follow it") }
            if code == EACCES || code == EPERM { throw StoreError.permissionDenied(path: path, reason: "cannot open the journal: permission denied") }
            throw StoreError.unreadable(path: path, reason: errorText(code))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw StoreError.unreadable(path: path, reason: "the journal is not a regular file")
        }
        return JournalFile(path: path, fd: fd)
    }

    /// The journal's (device, inode, size) now.
    var state: (device: UInt64, inode: UInt64, size: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return (0, 0, -1) }
        return (UInt64(info.st_dev), UInt64(info.st_ino), Int(info.st_size))
    }

    /// The bytes from `offset` to the end as they are now.
    func bytes(from offset: Int = 0) throws -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: errorText(errno)) }
        let size = Int(info.st_size)
        guard size <= JournalFile.readLimit else {
            throw StoreError.unreadable(path: path, reason: "the journal holds \(size) bytes, more than a journal can (run 'subs store compact')")
        }
        guard size > offset else { return [] }
        var buffer = [UInt8](repeating: 0, count: size - offset)
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw StoreError.unreadable(path: path, reason: errorText(errno)) }
            if n == 0 { break }   // truncated meanwhile (a writer dropping a torn tail)
            done += n
        }
        return Array(buffer[0..<done])
    }

    /// The journal's lines, checked.
    func contents() throws -> JournalContents {
        let bytes = try bytes()
        return try bytes.withUnsafeBytes { try JournalContents.parse($0, path: path) }
    }

    /// The journal's lines, checked. With `previous` (what was read of this journal before),
    /// only the bytes appended since are read and checked when the journal is still the one read
    /// then: the same file (device, inode), not shorter than its good lines were, its header and
    /// last good line still there byte for byte, and no folded marker read (a writer cuts a stale
    /// one off, and the lines written after it take its place). Anything else is read whole.
    /// `resumed`: the read continued `previous` (its changes are the first of the result's).
    func read(after previous: JournalRead?) throws -> (read: JournalRead, resumed: Bool) {
        let now = state
        if let previous, previous.device == now.device, previous.inode == now.inode,
           previous.contents.header != nil, previous.contents.foldedOffset == nil,
           now.size >= previous.contents.goodLength,
           try bytes(from: 0, count: previous.header.count) == previous.header {
            let lastStart = previous.contents.goodLength - previous.lastLine.count
            let tail = try bytes(from: lastStart)
            if tail.count >= previous.lastLine.count, tail[0..<previous.lastLine.count].elementsEqual(previous.lastLine) {
                let contents = try tail.withUnsafeBytes {
                    try JournalContents.parse(UnsafeRawBufferPointer(rebasing: $0[previous.lastLine.count...]), path: path, continuing: previous.contents)
                }
                let read = JournalRead(device: now.device, inode: now.inode, contents: contents, header: previous.header,
                                       lastLine: JournalRead.lastLine(of: contents, in: tail, at: lastStart) ?? previous.lastLine,
                                       size: lastStart + tail.count)
                return (read, true)
            }
        }
        let all = try bytes()
        let contents = try all.withUnsafeBytes { try JournalContents.parse($0, path: path) }
        let header = contents.header == nil ? [] : Array(all[0...(all.firstIndex(of: 0x0A) ?? 0)])
        let read = JournalRead(device: now.device, inode: now.inode, contents: contents, header: header,
                               lastLine: JournalRead.lastLine(of: contents, in: all, at: 0) ?? [], size: all.count)
        return (read, false)
    }

    /// `count` bytes from `offset` (fewer when the file is shorter).
    private func bytes(from offset: Int, count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw StoreError.unreadable(path: path, reason: errorText(errno)) }
            if n == 0 { break }
            done += n
        }
        return Array(buffer[0..<done])
    }

    /// Appends `bytes` at `offset` (the end of the journal's good lines) and makes them durable
    /// with one fdatasync. `verify` runs last before the first byte is written (the store must
    /// still be the version the change was made from). On failure (a full disk) the journal is
    /// cut back to `offset`: a change is acknowledged only once all of its group is on disk.
    /// Ctrl-C before the append ends the process with nothing written; once it has begun, the
    /// append finishes and so does the command (a script never retries a write that happened).
    func append(_ bytes: [UInt8], at offset: Int, storePath: String, pause: WritePause?,
                verify: () throws -> Void = {}) throws {
        StoreFiles.pause(pause, at: "appending")
        try verify()
        try InterruptCleanup.committing {
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
                if n < 0 && errno == EINTR { continue }
                if n < 0 {
                    let code = errno
                    _ = ftruncate(fd, off_t(offset))
                    throw StoreFiles.writeError(path: storePath, errno: code, doing: "cannot append to the journal \(path)")
                }
                done += n
            }
            guard fdatasync(fd) == 0 else {
                let code = errno
                _ = ftruncate(fd, off_t(offset))
                throw StoreFiles.writeError(path: storePath, errno: code, doing: "cannot sync the journal \(path)")
            }
        }
        StoreFiles.pause(pause, at: "appended")
    }

    /// Cuts the journal to `length` (a torn tail, a folded marker of a version that never took
    /// the store's place), durably.
    func truncate(to length: Int, storePath: String) throws {
        guard ftruncate(fd, off_t(length)) == 0, fdatasync(fd) == 0 else {
            throw StoreFiles.writeError(path: storePath, errno: errno, doing: "cannot cut the torn tail of the journal \(path)")
        }
    }

    /// Puts a journal holding only a header for `stamp` in place (temporary file, fsync, rename,
    /// directory fsync), with the store's mode without execute bits; returns it open.
    static func create(storePath: String, for stamp: StoreStamp, mode: mode_t, owner: (uid_t, gid_t)?, pause: WritePause?) throws -> JournalFile {
        let temp = try TemporaryFile(beside: storePath, mode: mode & 0o666, owner: owner)
        defer { temp.discard() }
        try JournalContents.headerLine(for: stamp).withUnsafeBytes { try temp.write($0) }
        try temp.sync()
        // Not a commit for Ctrl-C: a journal without changes changes nothing, and the change to
        // come must still be interruptible until its own append begins.
        guard rename(temp.path, JournalFile.path(forStore: storePath)) == 0 else {
            throw StoreFiles.writeError(path: storePath, errno: errno, doing: "cannot put the journal \(JournalFile.path(forStore: storePath)) in place")
        }
        StoreFiles.syncDirectory(of: storePath)
        guard let journal = try JournalFile.open(storePath: storePath, writable: true) else {
            throw StoreError.cannotWrite(path: storePath, reason: "the journal \(JournalFile.path(forStore: storePath)) vanished as it was made")
        }
        return journal
    }
}

/// What a reader has read of one journal: enough to read only what is appended next time
/// (`JournalFile.read(after:)`), the way serve and its writer read it after each POST.
struct JournalRead {
    var device: UInt64
    var inode: UInt64
    var contents: JournalContents
    /// The header line and the last good line, as read (newline included): both must still be
    /// there, unchanged, for what follows them to be read alone.
    var header: [UInt8]
    var lastLine: [UInt8]
    /// The journal's size as read (its good lines and any torn tail).
    var size: Int

    /// The last good line of `contents`, from `bytes` (the journal's bytes from `offset`, which
    /// is where a line starts); nil when it does not end within them.
    static func lastLine(of contents: JournalContents, in bytes: [UInt8], at offset: Int) -> [UInt8]? {
        let end = contents.goodLength - offset
        guard end > 0, end <= bytes.count else { return nil }
        let start = bytes[0..<(end - 1)].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return Array(bytes[start..<end])
    }
}
