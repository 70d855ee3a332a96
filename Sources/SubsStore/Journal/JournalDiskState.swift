// The journal as a stat sees it (serve compares it, the writer's bound reads it).

#if canImport(Glibc)
import Glibc
#endif

/// The journal file as a stat sees it: a change appended, a tail cut or a new journal renamed
/// in all change it.
struct JournalDiskState: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int

    /// The journal of the store at `path` now; nil when there is none.
    static func at(storePath path: String) -> JournalDiskState? {
        guard let resolved = try? StoreFiles.resolvedPath(path) else { return nil }
        var info = stat()
        guard stat(JournalFile.path(forStore: resolved), &info) == 0 else { return nil }
        return JournalDiskState(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size))
    }
}

