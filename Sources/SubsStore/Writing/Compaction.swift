// Folding the journal into the store (SPEC section 5 rev. 4): the latest after-image of each
// customer the journal names is spliced into a new store file with the crash-safe rewrite
// (every other byte copied unchanged), then the journal is emptied. The order makes every crash
// point safe, and a reader never applies a line twice:
//   1. the new store is written to a temporary file and fsynced;
//   2. a folded marker naming the new file's version is appended to the journal (fdatasync);
//   3. the new file is renamed over the store, the directory fsynced;
//   4. a fresh journal (a header naming the new store) replaces the old one (temporary file,
//      fsync, rename, directory fsync).
// Before 2 the old store and the whole journal stand (the temporary file is a stale one the
// next writer removes). Between 2 and 3 the marker names a version that is not the store's: a
// reader applies the journal to the old store, and the next writer drops the marker. Between 3
// and 4 the marker names the store: readers apply nothing (it is in the store already), and the
// next writer starts a fresh journal. After 4 the new store has an empty journal.
// Runs under the store's lock.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON
import SubsModel

/// What a compaction folded.
public struct CompactionSummary: Equatable, Sendable {
    /// Changes (journal lines) folded, and the customers they changed.
    public var changes: Int
    public var customers: Int
    /// The journal's size before, in bytes.
    public var journalBytes: Int
}

struct Compaction {
    /// The resolved store path.
    let path: String
    var pause: WritePause? = nil
    /// Told the new store file's identity just before it is renamed in (serve's index waits for it).
    var willCommit: (FileIdentity) -> Void = { _ in }

    /// The journal is folded once it holds more than this many bytes: 1 % of the store, at least
    /// 64 KiB, at most 16 MiB. Readers apply at most that much (a check with a full journal costs
    /// about what it costs without); a fold rewrites the store about once per 1 % of it changed.
    static func bound(storeSize: Int) -> Int {
        max(64 << 10, min(16 << 20, storeSize / 100))
    }

    /// Folds the journal (the lock held). The report (nil when nothing was folded) says what the
    /// new store file is, for serve to derive its index from the edits.
    func run(lockHeld: Bool) throws -> CommitReport? {
        try fold().report
    }

    func fold() throws -> (summary: CompactionSummary, report: CommitReport?) {
        var summary = CompactionSummary(changes: 0, customers: 0, journalBytes: 0)
        StoreFiles.removeStaleTemporaries(beside: path)
        guard let journal = try JournalFile.open(storePath: path, writable: true) else { return (summary, nil) }
        let contents = try journal.contents()
        summary.journalBytes = journal.state.size
        // The customers the journal names, each once.
        var ids: [ID] = []
        var seen: Set<ID> = []
        for entry in contents.entries where seen.insert(entry.customer).inserted { ids.append(entry.customer) }
        let store = try ScannedStore.scan(path: path, ids: ids, regularOnly: true)
        return try store.file.reading { () throws -> (CompactionSummary, CommitReport?) in
            guard let fd = store.file.duplicateDescriptor() else { throw store.file.changedError }
            let stamp: StoreStamp
            do { stamp = try StoreStamp(fd: fd, path: path); close(fd) } catch { close(fd); throw error }
            guard let header = contents.header else { return (summary, nil) }
            if contents.folded.contains(stamp) || (header != stamp && contents.entries.isEmpty) {
                // Folded already (a compaction stopped before its last step), or an empty journal
                // of another version: a fresh journal for this store.
                _ = try JournalFile.create(storePath: path, for: stamp, mode: store.file.mode, owner: (store.file.owner, store.file.group), pause: nil)
                return (summary, nil)
            }
            var overlay = JournalOverlay()
            overlay.apply(try JournalOverlay.changes(in: contents, forStore: stamp, storePath: path, journalPath: journal.path))
            guard !overlay.isEmpty else { return (summary, nil) }
            summary.changes = overlay.changes
            summary.customers = overlay.customers.count

            var edits: [Splice] = []
            var created: [(id: ID, value: JSONValue)] = []
            let slot = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
            for customer in overlay.customers {
                guard let record = customer.record else {
                    throw StoreError.cannotWrite(path: path, reason: "the journal removes customer '\(customer.id)', which this subs cannot fold; use the subs that wrote it")
                }
                let value = try record.withUnsafeBytes { try JSON.parse($0) }
                if let i = slot[customer.id], let span = store.index.byKey[i] {
                    edits.append(Splice.replaceValue(span.range, with: value, in: store))
                } else {
                    created.append((customer.id, value))
                }
            }
            if !created.isEmpty { edits.append(try Splice.insertCustomers(created, into: store)) }
            if StoreWriter.usesCRLF(store.bytes) { edits = edits.map(StoreWriter.withCRLF) }

            // 1. The new store, written and (by commit) fsynced.
            let temp = try TemporaryFile(beside: path, mode: store.file.mode, owner: (store.file.owner, store.file.group), pause: pause)
            do {
                store.file.releaseAll()
                store.file.restartRelease()
                try Splice.write(edits, over: store.bytes, to: temp.write, written: { store.file.release(upTo: $0) })
                let written = try temp.readableCopy()
                let file = RecordFile(fd: written.fd, identity: written.identity)
                let newStamp = try StoreStamp(fd: written.fd, path: path)
                try temp.commit(over: path) {
                    guard store.file.isUnchanged, store.file.isStill(at: path) else { throw store.file.changedError }
                    // 2. The marker: from here on, the journal is in the file it names.
                    try journal.append(JournalContents.foldedLine(for: newStamp), at: contents.goodLength, storePath: path, pause: nil)
                    StoreFiles.pause(pause, at: "folded")
                    willCommit(written.identity)
                }
                // 3. done by commit: renamed, directory fsynced. 4. A fresh journal.
                StoreFiles.pause(pause, at: "compacted")
                _ = try JournalFile.create(storePath: path, for: newStamp, mode: store.file.mode, owner: (store.file.owner, store.file.group), pause: nil)
                return (summary, CommitReport(base: store.file.identity, written: file, edits: edits))
            } catch {
                temp.discard()
                throw error
            }
        }
    }
}

