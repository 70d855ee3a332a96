// A store held open for `subs serve`: one indexed version (`StoreVersion`) answers every GET
// with a dictionary probe and one pread. A write the server makes updates the index from what it
// wrote (the next GET sees it, no scan). A change by another program (a `subs grant` beside the
// server) is scanned on a thread of its own while GETs answered without waiting go on from the
// previous version; the version serving keeps its file open, so an answer never mixes two.
// Decisions: a path that is not a regular file any more (a FIFO, a directory, gone) is never
// answered from the old version — such GETs take the waiting path, which says what stands there,
// as before; a version whose scan failed is said for as long as it is the file at the path.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON

public final class ServedStore: @unchecked Sendable {
    public let path: String
    /// Guards the fields below; never held during a scan.
    private let lock = NSLock()
    private var version: StoreVersion?
    /// The file whose scan failed, and why (syntax or check): said again without a scan.
    private var failed: (identity: FileIdentity, error: Error)?
    private var reindexing = false
    /// Writes of the server under way: the change they make is indexed from their edits.
    private var writing = 0
    /// Scans made so far (the tests read it: a write of the server makes none).
    private(set) var scans = 0
    /// One scan at a time; a waiting read that needs one waits for the scan under way.
    private let scanLock = NSLock()
    /// Tests: runs on the re-index thread before it scans (to hold it there).
    var beforeReindex: (@Sendable () -> Void)?

    public init(path: String) {
        self.path = path
    }

    /// Scans the store now (at start, so that a store that cannot be served is said at once).
    public func prepare() throws {
        _ = try current()
    }

    /// What a read without waiting found.
    enum Lookup {
        case found(StoredCustomer)
        case notFound
        case failure(Error)
        /// Not answerable without waiting (no version yet, the path is not a regular file, the
        /// file changed under the read): the waiting path answers.
        case wait
    }

    /// The customer `id` names, from the version indexed now: never scans, never waits for a
    /// scan or a lock held long. A newer file at the path is scanned on another thread meanwhile.
    func customerWithoutWaiting(_ id: ID) -> Lookup {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .wait }
        let identity = FileIdentity(info)
        lock.lock()
        guard let version else { lock.unlock(); return .wait }
        if identity != version.identity {
            if let failed, failed.identity == identity { lock.unlock(); return .wait }
            if !reindexing && writing == 0 {
                reindexing = true
                let thread = Thread { [self] in reindex() }
                thread.name = "subs-store-index"
                thread.start()
            }
        }
        lock.unlock()
        do {
            guard let i = try version.customerIndex(id, path: path) else { return .notFound }
            return .found(try version.customer(i, path: path))
        } catch let error as StoreError where error.isChangedWhileReading {
            return .wait
        } catch {
            return .failure(error)
        }
    }

    /// The customer `id` names (id, else an alias of exactly one customer) as stored; nil when
    /// none. Waits for a scan when the file changed. Throws the store's errors.
    func customer(_ id: ID) throws -> StoredCustomer? {
        do {
            let version = try current()
            return try version.customerIndex(id, path: path).map { try version.customer($0, path: path) }
        } catch let error as StoreError where error.isChangedWhileReading {
            // Rewritten in place under our read: read the new version once more.
            let version = try current(forceRescan: true)
            return try version.customerIndex(id, path: path).map { try version.customer($0, path: path) }
        }
    }

    /// The id of the customer `id` names (itself, or the owner of that alias); nil when none.
    /// Spellings of one customer (an alias, the id) have one canonical id.
    public func canonicalId(_ id: ID) throws -> ID? {
        let version = try current()
        return try version.customerIndex(id, path: path).map { version.ids[$0] }
    }

    /// A write of the server begins: a new file seen meanwhile is its own, indexed at `endWrite`.
    func beginWrite() {
        lock.withLock { writing += 1 }
    }

    /// A write of the server ended; `report` is what it wrote (nil: nothing). The version it
    /// was made from becomes the new one without a scan.
    func endWrite(_ report: CommitReport?) {
        if let report, let base = lock.withLock({ version }), let derived = base.applying(report) {
            lock.withLock {
                if version === base {
                    version = derived
                    failed = nil
                }
            }
        }
        lock.withLock { writing -= 1 }
    }

    private func reindex() {
        beforeReindex?()
        scanLock.withLock {
            // Another scan (a waiting read's) may have been made meanwhile, or failed.
            let identity = try? FileIdentity(path: path)
            let known = lock.withLock { identity == version?.identity || identity == failed?.identity }
            if !known { _ = try? scan(identity) }
        }
        lock.withLock { reindexing = false }
    }

    /// The version of the file as it is now: scanned again when it changed. Waits for a scan.
    private func current(forceRescan: Bool = false) throws -> StoreVersion {
        func indexed(_ identity: FileIdentity?) throws -> StoreVersion? {
            try lock.withLock {
                guard !forceRescan, let identity else { return nil }
                if let version, version.identity == identity { return version }
                if let failed, failed.identity == identity { throw failed.error }
                return nil
            }
        }
        if let version = try indexed(try? FileIdentity(path: path)) { return version }
        scanLock.lock()
        defer { scanLock.unlock() }
        // Another scan may have made it while this one waited.
        let identity = try? FileIdentity(path: path)
        if let version = try indexed(identity) { return version }
        return try scan(identity)
    }

    /// Scans the file now at the path (`scanLock` held). `identity`: what the path was before.
    private func scan(_ identity: FileIdentity?) throws -> StoreVersion {
        lock.withLock { scans += 1 }
        do {
            let fresh = try StoreVersion.scan(path: path)
            lock.withLock {
                version = fresh
                failed = nil
            }
            return fresh
        } catch let error as StoreError {
            switch error {
            case .syntax, .invalid:
                // Remembered only for the file that was scanned (the path did not change meanwhile).
                if let identity, (try? FileIdentity(path: path)) == identity {
                    lock.withLock { failed = (identity, error) }
                }
            default:
                break
            }
            throw error
        }
    }
}

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
