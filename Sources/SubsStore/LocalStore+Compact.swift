// `subs store compact`: the journal folded into the store on demand (see `Compaction`).

#if canImport(Glibc)
import Glibc
#endif

extension LocalStore {
    /// Folds the journal into the store now (`subs store compact`), under the store's lock.
    public func compact() throws -> CompactionSummary {
        let path = try StoreFiles.resolvedPath(self.path)
        var info = stat()
        if stat(path, &info) != 0, errno == ENOENT || errno == ENOTDIR { throw StoreError.missing(path: self.path) }
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            try Compaction(path: path, pause: writePause).fold().summary
        }
    }
}

extension LocalStore {
    /// Whether the journal holds more than its bound (serve then folds it off the request path).
    package var journalPastBound: Bool {
        guard let path = try? StoreFiles.resolvedPath(self.path), let journal = JournalDiskState.at(storePath: path),
              let store = try? FileIdentity(path: path) else { return false }
        return journal.size > Compaction.bound(storeSize: Int(store.size))
    }

    /// Folds the journal (serve's background fold): what it did to the store file, for the
    /// served index to follow it without a scan; `willCommit` as for a write.
    func compactReporting(willCommit: @escaping (FileIdentity) -> Void) throws -> CommitReport? {
        let path = try StoreFiles.resolvedPath(self.path)
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            var compaction = Compaction(path: path, pause: writePause)
            compaction.willCommit = willCommit
            return try compaction.fold().report
        }
    }
}
