// Which version of a file is open: what tells one from the next, and the store's error for a file
// that changed under its reader.

#if canImport(Glibc)
import Glibc
#endif

/// What tells one version of a file from the next: inode, size and modification time.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int64
    let modifiedNanoseconds: Int64

    init(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw MappedFile.openError(path: path, errno: errno) }
        self.init(info)
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }
}

extension StoreError {
    /// The store was truncated or rewritten while it was being read (a retry reads the new one).
    var isChangedWhileReading: Bool {
        if case .unreadable(_, let reason) = self { return reason == MappedFile.changedReason }
        return false
    }
}
