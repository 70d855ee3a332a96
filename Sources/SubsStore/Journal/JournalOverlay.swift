// The journal's changes as readers apply them: the latest after-image of each customer the
// journal names, laid out as a small store of its own (`{"customers": {…}}`) so that the store's
// own scanners find ids, aliases, emails and transactions in it exactly as in the store. A reader
// then takes a customer the journal names from here and every other one from the store.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON
import SubsModel
import SubsSystem

struct JournalOverlay {
    /// Customers the journal names, in the order of their first change; nil record: removed.
    private(set) var customers: [(id: ID, record: [UInt8]?)] = []
    private(set) var slot: [ID: Int] = [:]
    /// The journal's path (errors name it) and what it held (`store validate` reports its tear).
    var journalPath: String?
    var tear: JournalTear?
    var changes = 0

    static let empty = JournalOverlay()

    var isEmpty: Bool { customers.isEmpty }

    /// Whether the journal has a say on customer `id` (its record replaces the store's).
    func overrides(_ id: ID) -> Bool { slot[id] != nil }

    /// The latest after-image of `id` (nil: removed), when the journal names it.
    func record(_ id: ID) -> [UInt8]?? {
        slot[id].map { customers[$0].record }
    }

    mutating func apply(_ entries: [JournalEntry]) {
        for entry in entries {
            changes += 1
            if let i = slot[entry.customer] {
                customers[i].record = entry.record
            } else {
                slot[entry.customer] = customers.count
                customers.append((entry.customer, entry.record))
            }
        }
    }

    /// The customers of the journal that `ids` may name, by key or by alias, found without
    /// scanning their records: a record names an alias either byte for byte (the id's bytes are
    /// in it) or with an escape (a backslash is in it); both are kept, the scan decides.
    func candidates(for ids: [ID]) -> Set<ID> {
        let wanted = Set(ids)
        let needles = ids.map { Array($0.utf8) }
        var found: Set<ID> = []
        for customer in customers {
            guard let record = customer.record else { continue }
            if wanted.contains(customer.id) {
                found.insert(customer.id)
                continue
            }
            let named = record.withUnsafeBytes { bytes in
                ByteSearch.find([UInt8(ascii: "\\")], in: bytes) != nil || needles.contains { ByteSearch.find($0, in: bytes) != nil }
            }
            if named { found.insert(customer.id) }
        }
        return found
    }

    /// The customers present after the journal, as a store document of their own.
    var document: [UInt8] { document(of: nil) }

    /// `document`, of the customers `only` names (nil: all of them).
    func document(of only: Set<ID>?) -> [UInt8] {
        var bytes = Array(#"{"schemaVersion":1,"products":{},"customers":{"#.utf8)
        var first = true
        for customer in customers {
            guard let record = customer.record else { continue }
            if let only, !only.contains(customer.id) { continue }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes += Array(JSON.quote(customer.id.string).utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes += record
        }
        bytes += Array("}}".utf8)
        return bytes
    }

    /// The changes of `contents` that apply to the store version `stamp`, or the error of a
    /// journal written for another version (a store edited or replaced under its journal).
    static func changes(in contents: JournalContents, forStore stamp: StoreStamp, storePath: String, journalPath: String) throws -> [JournalEntry] {
        guard let header = contents.header else { return [] }
        if contents.folded.contains(stamp) { return [] }   // folded into this very store already
        if header == stamp || contents.entries.isEmpty { return header == stamp ? contents.entries : [] }
        throw StoreError.invalid(path: storePath, problems: [StoreProblem(
            path: journalPath,
            message: "the journal holds \(contents.entries.count) change\(contents.entries.count == 1 ? "" : "s") for another version of the store "
                + "(\(header)); the store (\(stamp)) was edited or replaced since. Put back the store the journal was written for "
                + "and run 'subs store compact' before editing; or, to keep this store without those changes, move the journal aside")])
    }

    /// The journal of the store open as `storeFD` (opened before the store: see `JournalFile`),
    /// read and checked against that store's version. Empty when there is no journal.
    static func load(_ journal: JournalFile?, storeFD: Int32?, storePath: String) throws -> JournalOverlay {
        guard let journal, let storeFD else { return .empty }
        let contents = try journal.contents()
        var overlay = JournalOverlay()
        overlay.journalPath = journal.path
        overlay.tear = contents.tear
        guard contents.header != nil else { return overlay }
        let stamp = try StoreStamp(fd: storeFD, path: storePath)
        overlay.apply(try changes(in: contents, forStore: stamp, storePath: storePath, journalPath: journal.path))
        return overlay
    }
}
