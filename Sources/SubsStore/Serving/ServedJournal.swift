// The journal as `subs serve` applies it to the version it serves: each customer the journal
// names answered from its latest after-image (checked when the journal is read), every other
// one from the version's index. Read again whenever the journal on disk is not the one read
// (appended to by serve or by another process, cut, or replaced by a compaction), so that an
// answer that starts after a change is on disk includes it (SPEC section 7 rev. 4).

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON
import SubsModel

struct ServedJournal {
    /// The journal as it was read (nil: there was none), and the version it was applied to.
    var disk: JournalDiskState?
    var base: FileIdentity?
    private var records: [ID: [UInt8]?] = [:]
    private var problems: [ID: [StoreProblem]] = [:]
    private var idMembers: [ID: Range<Int>] = [:]
    private var aliasOwners: [ID: [ID]] = [:]
    /// Each customer's aliases, as read from its record (kept for the next read's reuse).
    private var aliasesOf: [ID: [ID]] = [:]
    /// What was read of the journal and applied (the next read reads only what is appended).
    private var read: JournalRead?
    private var overlay = JournalOverlay()

    static let none = ServedJournal()

    /// Whether this was read from `disk` for `version`.
    func isCurrent(_ disk: JournalDiskState?, for version: StoreVersion) -> Bool {
        // No journal on disk, none read: nothing to apply, to any version.
        self.disk == disk && (base == version.identity || (disk == nil && records.isEmpty))
    }

    /// The journal of the store at `path` applied to `version`.
    /// `previous`: the journal read before for the same version, whose checks stand for the
    /// records that did not change (an append changes a few customers: only they are checked).
    static func load(storePath path: String, version: StoreVersion, previous: ServedJournal? = nil) throws -> ServedJournal {
        let reuse = previous.flatMap { $0.base == version.identity ? $0 : nil }
        var served = ServedJournal()
        served.base = version.identity
        let resolved = try StoreFiles.resolvedPath(path)
        guard let file = try JournalFile.open(storePath: resolved) else { return served }
        // Only what was appended since the last read, when the journal is still the one read then.
        let (read, resumed) = try file.read(after: reuse?.read)
        served.read = read
        served.disk = JournalDiskState(device: read.device, inode: read.inode, size: read.size)
        let contents = read.contents
        guard contents.header != nil else { return served }
        let stamp = try StoreStamp(fd: version.file.fd, path: path)
        let entries = try JournalOverlay.changes(in: contents, forStore: stamp, storePath: path, journalPath: file.path)
        var overlay: JournalOverlay
        if resumed, let reuse, contents.header == stamp, !contents.folded.contains(stamp), entries.count >= reuse.overlay.changes {
            overlay = reuse.overlay
            overlay.apply(Array(entries[reuse.overlay.changes...]))
        } else {
            overlay = JournalOverlay()
            overlay.apply(entries)
        }
        served.overlay = overlay
        for customer in overlay.customers {
            served.records[customer.id] = customer.record
            guard let record = customer.record else { continue }
            if let reuse, let before = reuse.records[customer.id], before == record {
                served.problems[customer.id] = reuse.problems[customer.id]
                served.idMembers[customer.id] = reuse.idMembers[customer.id]
                for alias in reuse.aliasesOf[customer.id] ?? [] {
                    if served.aliasOwners[alias]?.last != customer.id { served.aliasOwners[alias, default: []].append(customer.id) }
                }
                served.aliasesOf[customer.id] = reuse.aliasesOf[customer.id]
                continue
            }
            let found = try record.withUnsafeBytes { try StoreVersion.checkRecord(id: customer.id, $0, catalog: version.catalog) }
            if !found.problems.isEmpty { served.problems[customer.id] = found.problems }
            if let own = found.idMember { served.idMembers[customer.id] = own }
            if let aliases = (try? JSON.parse(record))?.objectValue?["aliases"]?.arrayValue {
                for alias in aliases.compactMap(\.stringValue).map({ ID($0) }) where served.aliasOwners[alias]?.last != customer.id {
                    served.aliasOwners[alias, default: []].append(customer.id)
                    served.aliasesOf[customer.id, default: []].append(alias)
                }
            }
        }
        return served
    }

    /// A customer found for an id: in the journal (its id) or in the version (its index).
    enum Found {
        case journal(ID)
        case store(Int)
    }

    /// The customer `id` names in `version` with this journal applied: its key (the journal's,
    /// else the version's unless the journal changed it), else an alias of exactly one customer.
    func customer(_ id: ID, in version: StoreVersion, path: String) throws -> Found? {
        if let record = records[id], record != nil { return .journal(id) }
        if let i = version.byId[id], records[version.ids[i]] == nil { return .store(i) }
        var owners: [Found] = (version.byAlias[id] ?? []).filter { records[version.ids[$0]] == nil }.map { .store($0) }
        owners += (aliasOwners[id] ?? []).map { .journal($0) }
        guard owners.count <= 1 else {
            let names = owners.prefix(5).map { "'\(self.id(of: $0, in: version))'" }.joined(separator: ", ")
            throw StoreError.invalid(path: path, problems: [StoreProblem(
                path: "customers", message: "alias '\(id)' belongs to several customers: \(names)")])
        }
        return owners.first
    }

    func id(of found: Found, in version: StoreVersion) -> ID {
        switch found {
        case .journal(let id): return id
        case .store(let i): return version.ids[i]
        }
    }

    /// The record of a customer found, as stored.
    func stored(_ found: Found, in version: StoreVersion, path: String) throws -> StoredCustomer {
        switch found {
        case .store(let i):
            return try version.customer(i, path: path)
        case .journal(let id):
            if let found = problems[id] { throw StoreError.invalid(path: path, problems: found) }
            guard let record = records[id] ?? nil else { throw StoreError.unreadable(path: path, reason: MappedFile.changedReason) }
            return StoredCustomer(id: id, record: record, idMember: idMembers[id], products: version.products)
        }
    }
}
