// A store held open for `subs serve`: one indexed version (`StoreVersion`) answers every GET
// with a dictionary probe and one pread. Every request compares what is on disk now with the
// version it would answer from (one stat: cheap beside the answer) and never answers from an
// older one (SPEC section 7, "fresh answers"):
// - a write the server makes updates the index from what it wrote (no scan); a request that
//   finds that write's file at the path before the index has it waits the moment until it has;
// - a change by another program (a `subs grant` beside the server) is indexed by the first
//   request that finds it: one strict scan of the new file (as long as a `check`), while the
//   requests behind it wait for that scan, never for an older version. That provisional version
//   answers at once, checking each record it reads; a thread of its own then checks the records
//   whose bytes changed (the others keep their check) and the complete version takes over.
// The version serving keeps its file open, so an answer never mixes two versions.
// What is compared is `DiskState`: the store file's identity and the journal's (device, inode,
// size), so that a line appended by serve or another writer is a change like a rename: the
// journal (small by construction) is read again and applied over the version (`ServedJournal`);
// the store is scanned again only when the store file itself changed (a compaction by another
// process, a write by an older subs).
// Decisions: a path that is not a regular file any more (a FIFO, a directory, gone) is never
// answered from the old version — such GETs take the waiting path, which says what stands there,
// as before; a version whose scan failed is said for as long as it is the file at the path.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import SubsSystem
import SubsModel

/// What the served version and journal must match to answer: the store file and its journal
/// as they are on disk.
struct DiskState: Equatable {
    var store: FileIdentity
    var journal: JournalDiskState?

    /// The state at `path` now (two stats); throws the store's error when there is no file.
    init(path: String) throws {
        store = try FileIdentity(path: path)
        journal = JournalDiskState.at(storePath: path)
    }

    init(store: FileIdentity, journal: JournalDiskState?) {
        self.store = store
        self.journal = journal
    }
}

public final class ServedStore: @unchecked Sendable {
    public let path: String
    /// Guards the fields below and is signalled whenever the version, a scan or a write ends;
    /// never held during a scan or a check.
    private let state = NSCondition()
    private var version: StoreVersion?
    /// The journal applied to `version` (read again when the one on disk is another).
    private var journal = ServedJournal.none
    /// The newest version whose records were all checked: a new version keeps its checks for
    /// the records that did not change.
    private var lastChecked: StoreVersion?
    /// The file whose scan failed, and why (syntax or check): said again without a scan.
    private var failed: (identity: FileIdentity, error: Error)?
    /// A scan of the file at the path is under way (one at a time; the others wait for it).
    private var indexing = false
    /// The thread checking a provisional version's records is running.
    private var checking = false
    /// The file a write of the server is putting in place (from just before its rename until
    /// its index is made from its edits): a request that finds it waits for that index.
    private var ownWrite: FileIdentity?
    /// Scans made so far (the tests read it: a write of the server makes none).
    private(set) var scans = 0
    /// Records checked after a scan (the tests read it: unchanged records keep their check).
    private(set) var recordsChecked = 0
    /// Tests: runs before each scan of a changed file, on the thread that scans (to hold it there).
    var beforeIndexing: (@Sendable () -> Void)?
    /// Tests: runs on the checking thread before it checks each provisional version.
    var beforeChecking: (@Sendable () -> Void)?

    public init(path: String) {
        self.path = path
    }

    /// Scans and checks the store now (at start, so that a store that cannot be served is said at once).
    public func prepare() throws {
        let complete = try StoreVersion.scan(path: path)
        let read = try ServedJournal.load(storePath: path, version: complete)
        state.withLock {
            journal = read
            scans += 1
            version = complete
            lastChecked = complete
        }
    }

    /// What a read without waiting found.
    package enum Lookup {
        case found(StoredCustomer)
        case notFound
        case failure(Error)
        /// Not answerable without waiting (no version yet, the file at the path is not the
        /// version's, the version's records are being checked, the path is not a regular file,
        /// the file changed under the read): the waiting path answers.
        case wait
    }

    /// The customer `id` names, from the version indexed now when it is the file on disk: never
    /// scans, never waits for a scan or a lock held long.
    package func customerWithoutWaiting(_ id: ID) -> Lookup {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .wait }
        let onDisk = DiskState(store: FileIdentity(info), journal: JournalDiskState.at(storePath: path))
        let (seen, journal) = state.withLock { (version, self.journal) }
        guard let version = seen, version.identity == onDisk.store, journal.isCurrent(onDisk.journal, for: version),
              version.isChecked else { return .wait }
        do {
            guard let found = try journal.customer(id, in: version, path: path) else { return .notFound }
            return .found(try journal.stored(found, in: version, path: path))
        } catch let error as StoreError where error.isChangedWhileReading {
            return .wait
        } catch {
            return .failure(error)
        }
    }

    /// The customer `id` names (id, else an alias of exactly one customer) as stored; nil when
    /// none. Waits for the version of the file on disk. Throws the store's errors.
    package func customer(_ id: ID) throws -> StoredCustomer? {
        let (version, journal) = try current()
        do {
            return try journal.customer(id, in: version, path: path).map { try journal.stored($0, in: version, path: path) }
        } catch let error as StoreError where error.isChangedWhileReading {
            // Rewritten in place under our read: read the new version once more.
            let (version, journal) = try current(notAgain: version)
            return try journal.customer(id, in: version, path: path).map { try journal.stored($0, in: version, path: path) }
        }
    }

    /// The id of the customer `id` names (itself, or the owner of that alias); nil when none.
    /// Spellings of one customer (an alias, the id) have one canonical id.
    public func canonicalId(_ id: ID) throws -> ID? {
        let (version, journal) = try current()
        return try journal.customer(id, in: version, path: path).map { journal.id(of: $0, in: version) }
    }

    /// A write of the server is about to rename `written` over the store: a request that finds
    /// it there waits for `endWrite`, which indexes it from its edits.
    func willCommit(_ written: FileIdentity) {
        state.withLock { ownWrite = written }
    }

    /// A write of the server ended; `report` is what it wrote (nil: nothing). When it was made
    /// from the version indexed now, the new version is derived from its edits without a scan;
    /// otherwise (another program wrote in between) the next request scans the file.
    func endWrite(_ report: CommitReport?) {
        // Derived outside the lock (it copies the index); tried again if the version serving
        // changed meanwhile (its records' check ended) and is still the one the write read.
        while let report, let base = state.withLock({ version }), let derived = base.applying(report) {
            let installed = state.withLock { () -> Bool in
                guard version === base else { return false }
                version = derived
                failed = nil
                if derived.isChecked { lastChecked = derived } else { startChecking() }
                return true
            }
            if installed { break }
        }
        state.withLock {
            ownWrite = nil
            state.broadcast()
        }
    }

    /// A write of the server appended to the journal: read it now for the version serving, so
    /// that the next GET answers from it without waiting (the journal is small).
    func journalWritten() {
        state.withLock {
            guard let version, let read = try? ServedJournal.load(storePath: path, version: version, previous: journal) else { return }
            journal = read
        }
    }

    /// The version of the file on disk now: indexed again when it changed (by this request, or
    /// by the one already scanning it, whose scan it waits for). `notAgain`: a version found
    /// stale though its identity matched (rewritten in place within the clock's tick): scanned again.
    private func current(notAgain stale: StoreVersion? = nil) throws -> (StoreVersion, ServedJournal) {
        state.lock()
        defer { state.unlock() }
        while true {
            let onDisk = try DiskState(path: path)
            if let version, version.identity == onDisk.store, version !== stale {
                if journal.isCurrent(onDisk.journal, for: version) { return (version, journal) }
                // The journal changed (an append, a cut, a compaction's new journal): read again.
                // Small by construction; read under the lock so that requests share one read.
                let read = try ServedJournal.load(storePath: path, version: version, previous: journal)
                // A compaction renames the new store in before its fresh journal: a journal read
                // after the store changed may be the new store's. Then the store is indexed first.
                guard (try DiskState(path: path)).store == version.identity else { continue }
                journal = read
                if read.disk != onDisk.journal { continue }
                return (version, journal)
            }
            if let failed, failed.identity == onDisk.store { throw failed.error }
            if indexing || ownWrite == onDisk.store {
                // The scan under way, or the server's own write, makes the version asked for.
                state.wait()
                continue
            }
            indexing = true
            let seen = version
            state.unlock()
            let scanned = Result { () throws -> StoreVersion in
                beforeIndexing?()
                return try StoreVersion.index(path: path, previous: seen)
            }
            state.lock()
            indexing = false
            scans += 1
            state.broadcast()
            switch scanned {
            case .success(let fresh):
                // Unless the server's own write derived a version meanwhile that is still the
                // file on disk (then it is at least as new).
                if version === seen || version.map({ (try? DiskState(path: path))?.store != $0.identity }) ?? true {
                    version = fresh
                    failed = nil
                    startChecking()
                }
            case .failure(let error as StoreError):
                switch error {
                case .syntax, .invalid:
                    // Remembered only for the file that was scanned (the path did not change meanwhile).
                    if (try? DiskState(path: path)) == onDisk { failed = (onDisk.store, error) }
                default:
                    break
                }
                throw error
            case .failure(let error):
                throw error
            }
        }
    }

    /// Starts the thread that checks the records of a provisional version (`state` held).
    private func startChecking() {
        guard !checking, let version, !version.isChecked else { return }
        checking = true
        let thread = Thread { [self] in checkRecords() }
        thread.name = "subs-store-check"
        thread.start()
    }

    /// Checks the provisional versions' records until the version serving is a checked one. A
    /// check that fails (the file changed in place under it) leaves the version provisional: its
    /// reads go on checking their records until the next version.
    private func checkRecords() {
        while checkOnce() {}
        // The versions replaced are gone now. Their index was built on whichever thread found
        // the change, and glibc keeps what that thread's arena freed: without this, each change
        // by another program left ~20 MB more resident.
        Heap.trim()
    }

    /// Checks the version serving if it is provisional; false when it is not, or when its check
    /// failed and it is still the version serving.
    private func checkOnce() -> Bool {
        state.lock()
        guard let provisional = version, !provisional.isChecked else {
            checking = false
            state.unlock()
            return false
        }
        let previous = lastChecked
        state.unlock()
        beforeChecking?()
        let result = try? provisional.checked(reusing: previous, path: path)
        state.lock()
        defer { state.unlock() }
        guard let result else {
            // A newer version installed meanwhile (its start found this thread running) is next.
            if version !== provisional { return true }
            checking = false
            return false
        }
        recordsChecked += result.checked
        lastChecked = result.version
        if version === provisional { version = result.version }
        state.broadcast()
        return true
    }
}
