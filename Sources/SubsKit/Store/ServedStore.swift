// A store held open for `subs serve`: scanned once, the byte range of every customer indexed by
// id and by alias, so a GET costs a dictionary probe and the decoding of one record instead of
// a scan of the whole file. When the file changes (another writer renamed a new version in, or
// it was rewritten), the next lookup scans it again.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON

public final class ServedStore: @unchecked Sendable {
    public let path: String
    private let lock = NSLock()
    private var snapshot: Snapshot?

    public init(path: String) {
        self.path = path
    }

    /// The scanned file and its index. Shared read-only by the threads that answer requests.
    private final class Snapshot: @unchecked Sendable {
        let store: ScannedStore
        let identity: FileIdentity
        let catalog: Catalog
        let byId: [String: Int]
        let byAlias: [String: [Int]]
        /// The catalog as stored (every answer carries it).
        let products: JSONValue

        init(path: String) throws {
            let identity = try FileIdentity(path: path)
            // Never waits: a FIFO or device put at the path is refused, not opened and read,
            // while the lock below makes every other request wait for this one.
            let store = try ScannedStore.scan(path: path, ids: [], collectAll: true, regularOnly: true)
            self.store = store
            self.identity = identity
            var problems = store.topLevelProblems()
            var decoder = RecordDecoder()
            let catalog = try store.file.reading { try store.catalog(into: &decoder) }
            problems += decoder.problems
            guard problems.isEmpty else { throw StoreError.invalid(path: path, problems: problems) }
            self.catalog = catalog
            var byId: [String: Int] = [:]
            for (i, span) in store.index.all.enumerated() { byId[span.id] = i }
            var byAlias: [String: [Int]] = [:]
            for (alias, customer) in store.index.allAliases where byAlias[alias]?.last != customer {
                byAlias[alias, default: []].append(customer)
            }
            self.byId = byId
            self.byAlias = byAlias
            self.products = try store.file.reading { try store.storedProducts() }
            // Lookups read their customer with pread (`MappedFile.copy`): the pages the scan
            // mapped go back now, and the server's resident size stays that of its index.
            store.file.releaseAll()
        }
    }

    /// Scans the store now (at start, so that a store that cannot be served is said at once).
    public func prepare() throws {
        _ = try current()
    }

    /// The customer `id` names (id, else an alias of exactly one customer) as stored, with the
    /// catalog; nil when none. Throws the store's errors (missing, invalid, changed).
    public func storedRecord(_ id: String) throws -> StoredRecord? {
        do {
            return try storedRecord(id, in: try current())
        } catch let error as StoreError where error.isChangedWhileReading {
            // Rewritten in place under our mapping: read the new version once more.
            return try storedRecord(id, in: try current(forceRescan: true))
        }
    }

    /// The id of the customer `id` names (itself, or the owner of that alias); nil when none.
    /// Spellings of one customer (an alias, the id) have one canonical id.
    public func canonicalId(_ id: String) throws -> String? {
        let snapshot = try current()
        return try customerIndex(id, in: snapshot).map { snapshot.store.index.all[$0].id }
    }

    private func customerIndex(_ id: String, in snapshot: Snapshot) throws -> Int? {
        if let byId = snapshot.byId[id] { return byId }
        guard let owners = snapshot.byAlias[id] else { return nil }
        guard owners.count == 1 else {
            let spans = snapshot.store.index.all
            let names = owners.prefix(5).map { "'\(spans[$0].id)'" }.joined(separator: ", ")
            throw StoreError.invalid(path: path, problems: [StoreProblem(
                path: "customers", message: "alias '\(id)' belongs to several customers: \(names)")])
        }
        return owners[0]
    }

    private func storedRecord(_ id: String, in snapshot: Snapshot) throws -> StoredRecord? {
        guard let index = try customerIndex(id, in: snapshot) else { return nil }
        let spans = snapshot.store.index.all
        let span = spans[index]
        let file = snapshot.store.file
        return try file.reading {
            let value: JSONValue
            do {
                value = try JSON.parse(try file.copy(span.range))
            } catch let error as JSONError {
                throw StoreError.syntax(path: path, error: error)
            }
            var decoder = RecordDecoder()
            _ = decoder.customer(id: span.id, value, catalog: snapshot.catalog, path: JSONPath.member("customers", span.id))
            guard decoder.problems.isEmpty else { throw StoreError.invalid(path: path, problems: decoder.problems) }
            return StoredRecord(id: span.id, record: value, products: snapshot.products)
        }
    }

    /// The snapshot of the file as it is now: rescanned when its identity changed.
    private func current(forceRescan: Bool = false) throws -> Snapshot {
        lock.lock()
        defer { lock.unlock() }
        if !forceRescan, let snapshot, (try? FileIdentity(path: path)) == snapshot.identity { return snapshot }
        // The old snapshot's mapping goes before the new scan maps the file again.
        snapshot = nil
        let fresh = try Snapshot(path: path)
        snapshot = fresh
        return fresh
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
