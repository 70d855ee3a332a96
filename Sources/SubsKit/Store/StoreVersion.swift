// One version of a served store, indexed: where every customer record stands in that very file
// (held open, so a newer version renamed over the path never mixes into its answers), the
// catalog as compact bytes, and what the check of every record found — so that a GET is a
// dictionary probe and one pread, and its answer is spliced from the record's bytes.
// A version is made by a scan (at start, or after another program changed the file) or derived
// from the previous one and the edits of a write the server made itself (no scan). After another
// program's change the scan indexes first (one strict pass, as long as a `check`), and the
// records are checked after — only those whose bytes changed; meanwhile a read checks its record.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON

/// One version of the store file, open for reading (`pread`). Closed with the last reference.
final class RecordFile: @unchecked Sendable {
    let fd: Int32
    let identity: FileIdentity

    init(fd: Int32, identity: FileIdentity) {
        self.fd = fd
        self.identity = identity
    }

    deinit { close(fd) }

    /// The bytes at `range`. A file shorter than that, or rewritten in place since the version
    /// was indexed (its size or time changed), is the store's "changed while reading" error.
    func read(_ range: Range<Int>, path: String) throws -> [UInt8] {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, count in
            var done = 0
            while done < range.count {
                let n = pread(fd, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failed = true; break }
                done += n
            }
            count = done
        }
        var now = stat()
        guard !failed, fstat(fd, &now) == 0, FileIdentity(now) == identity else {
            throw StoreError.unreadable(path: path, reason: MappedFile.changedReason)
        }
        return bytes
    }
}

/// What a write the server made did to the store: the version it was made from, the new
/// version (open), and the edits as written (old byte ranges, new bytes).
struct CommitReport {
    let base: FileIdentity
    let written: RecordFile
    let edits: [Splice]
}

/// A customer's record as it stands in the store, and the member to leave out of an answer.
struct StoredCustomer {
    let id: ID
    /// The record's bytes, `{` to `}`, as stored (any formatting).
    let record: [UInt8]
    /// The record's own `id` member with one comma beside it (offsets in `record`): the
    /// answer's `id` is the customer's key, as it always was.
    let idMember: Range<Int>?
    /// The catalog of its version, compact.
    let products: [UInt8]
}

/// What the check of every record of a version found (see `StoreVersion.checks`).
struct RecordChecks {
    /// Records whose check found problems: a GET of one is `invalid_store`, as it always was.
    var problems: [Int: [StoreProblem]] = [:]
    /// Records with an `id` member of their own: the range to leave out (see `StoredCustomer`).
    var idMembers: [Int: Range<Int>] = [:]
}

final class StoreVersion: @unchecked Sendable {
    let file: RecordFile
    var identity: FileIdentity { file.identity }
    let ids: [ID]
    let ranges: [Range<Int>]
    let byId: [ID: Int]
    let byAlias: [ID: [Int]]
    /// The catalog, compact (every answer carries it), and decoded (a record is checked with it).
    let products: [UInt8]
    let catalog: Catalog
    /// What the check of every record found; nil while the version is provisional: indexed
    /// (every record's place known, the whole file strict JSON with a valid top level) but its
    /// records not checked yet — a read then checks the record it reads, and `checked(reusing:)`
    /// makes the complete version. A provisional version lets a GET after another program's
    /// change wait for one scan, never for the check of every record.
    let checks: RecordChecks?

    var isChecked: Bool { checks != nil }

    private init(file: RecordFile, ids: [ID], ranges: [Range<Int>], byId: [ID: Int], byAlias: [ID: [Int]],
                 products: [UInt8], catalog: Catalog, checks: RecordChecks?) {
        self.file = file
        self.ids = ids
        self.ranges = ranges
        self.byId = byId
        self.byAlias = byAlias
        self.products = products
        self.catalog = catalog
        self.checks = checks
    }

    private func with(file: RecordFile? = nil, ids: [ID]? = nil, ranges: [Range<Int>]? = nil, byId: [ID: Int]? = nil,
                      checks: RecordChecks?) -> StoreVersion {
        StoreVersion(file: file ?? self.file, ids: ids ?? self.ids, ranges: ranges ?? self.ranges, byId: byId ?? self.byId,
                     byAlias: byAlias, products: products, catalog: catalog, checks: checks)
    }

    /// Records checked per step (about 3 MB of the benchmark store); the pages read go back
    /// after each step, so the resident size stays that of the index, not of the store.
    private static let checkStep = 1024

    /// Scans and checks the file now at `path` (a regular file only: never waits on a FIFO).
    static func scan(path: String) throws -> StoreVersion {
        // The id and alias tables are built after the check: the peak of the server's start is
        // the index or the check's pages, not both.
        let (bare, store) = try indexed(path: path, tables: false)
        return try store.file.reading {
            store.file.restartRelease()
            let (checks, _) = try check(bare, bytes: store.bytes, release: { store.file.release(upTo: $0.upperBound) }, reusing: nil)
            store.file.releaseAll()
            let (byId, byAlias) = tables(bare.ids, aliases: store.index.allAliases, sameIdsAs: nil)
            return StoreVersion(file: bare.file, ids: bare.ids, ranges: bare.ranges, byId: byId, byAlias: byAlias,
                                products: bare.products, catalog: bare.catalog, checks: checks)
        }
    }

    /// Indexes the file now at `path` without checking its records: the provisional version
    /// (see `checks`). One strict scan of the file, as long as a `check` of one customer.
    /// `previous`: the version it replaces, whose id table it shares when the customers are the
    /// same ones in the same order (another program's grant or revoke): less to build and hold.
    static func index(path: String, previous: StoreVersion? = nil) throws -> StoreVersion {
        let (version, store) = try indexed(path: path, tables: true, previous: previous)
        store.file.releaseAll()
        return version
    }

    /// The scan, the top level and catalog checked, every record's place; `tables`: with the id
    /// and alias tables (else empty: `scan` builds them after its check).
    private static func indexed(path: String, tables withTables: Bool,
                                previous: StoreVersion? = nil) throws -> (StoreVersion, ScannedStore) {
        let store = try ScannedStore.scan(path: path, ids: [], collectAll: true, regularOnly: true)
        let version = try store.file.reading { () throws -> StoreVersion in
            var top = store.topLevelProblems()
            var decoder = RecordDecoder()
            let catalog = try store.catalog(into: &decoder)
            top += decoder.problems
            guard top.isEmpty else { throw StoreError.invalid(path: path, problems: top) }
            let products = Array(JSONWriter.compact(try store.storedProducts()).utf8)
            let spans = store.index.all
            var ids = spans.map(\.id)
            var byId: [ID: Int] = [:]
            var byAlias: [ID: [Int]] = [:]
            if withTables {
                // The same customers in the same order: the previous id table stands.
                let same = previous.flatMap { previous in
                    previous.ids.count == ids.count && previous.ids == ids
                        ? previous : nil
                }
                if let same { ids = same.ids }
                (byId, byAlias) = StoreVersion.tables(ids, aliases: store.index.allAliases, sameIdsAs: same)
            }
            guard let fd = store.file.duplicateDescriptor() else {
                throw StoreError.unreadable(path: path, reason: "cannot keep the store open")
            }
            return StoreVersion(file: RecordFile(fd: fd, identity: store.file.identity), ids: ids,
                                ranges: spans.map(\.range), byId: byId, byAlias: byAlias, products: products,
                                catalog: catalog, checks: nil)
        }
        return (version, store)
    }

    /// The id table (`sameIdsAs`'s, a version with these very ids) and the alias table.
    private static func tables(_ ids: [ID], aliases: [(alias: ID, customer: Int)],
                               sameIdsAs previous: StoreVersion?) -> (byId: [ID: Int], byAlias: [ID: [Int]]) {
        var byId: [ID: Int]
        if let previous {
            byId = previous.byId
        } else {
            byId = [:]
            byId.reserveCapacity(ids.count)
            for (i, id) in ids.enumerated() { byId[id] = i }
        }
        var byAlias: [ID: [Int]] = [:]
        for (alias, customer) in aliases where byAlias[alias]?.last != customer {
            byAlias[alias, default: []].append(customer)
        }
        return (byId, byAlias)
    }

    /// This version with every record checked. A record whose bytes, id and catalog are those of
    /// a record of `previous` (a version whose records were checked) keeps that check: after
    /// another program changed a few customers, only they are checked again. Returns the
    /// version and how many records were checked (not taken from `previous`).
    func checked(reusing previous: StoreVersion?, path: String) throws -> (version: StoreVersion, checked: Int) {
        if isChecked { return (self, 0) }
        guard !ranges.isEmpty else { return (with(checks: RecordChecks()), 0) }
        // Each file mapped must still be the one indexed (one rewritten in place, truncated even,
        // is not): the ranges are places in that very file.
        let mine = try MappedFile(duplicating: file.fd, path: path)
        guard mine.identity == identity else { throw mine.changedError }
        // Checks are kept only under the same catalog (a record's check depends on it).
        let earlier = previous.flatMap { previous -> Earlier? in
            guard let checks = previous.checks, previous.products == products, !previous.ranges.isEmpty,
                  let mapped = try? MappedFile(duplicating: previous.file.fd, path: path),
                  mapped.identity == previous.identity else { return nil }
            return Earlier(version: previous, checks: checks, mapped: mapped)
        }
        let result = try mine.reading {
            try StoreVersion.check(self, bytes: mine.bytes, release: { mine.release($0) }, reusing: earlier)
        }
        mine.releaseAll()
        if let earlier {
            // Compared with a file that changed under the comparison: nothing taken from it stands.
            guard earlier.mapped.isUnchanged else { return try checked(reusing: nil, path: path) }
            earlier.mapped.releaseAll()
        }
        return (with(checks: result.checks), result.checked)
    }

    /// A checked version whose checks stand for the records that did not change, its file mapped.
    private struct Earlier {
        let version: StoreVersion
        let checks: RecordChecks
        let mapped: MappedFile
    }

    /// Checks every record of `version` in `bytes` (its file), each as a GET used to check it,
    /// on all cores, but those `earlier` checked as they are.
    /// `release` is given the bytes each step read, to hand their pages back.
    private static func check(_ version: StoreVersion, bytes: UnsafeRawBufferPointer, release: (Range<Int>) -> Void,
                              reusing earlier: Earlier?) throws -> (checks: RecordChecks, checked: Int) {
        var checks = RecordChecks()
        var checkedCount = 0
        let count = version.ranges.count
        var start = 0
        while start < count {
            let end = min(start + checkStep, count)
            let results = try Array(start..<end).concurrentMap { i -> (problems: [StoreProblem], own: Range<Int>?, reused: Bool) in
                let range = version.ranges[i]
                // Same id, same bytes: the same check.
                if let earlier, let j = earlier.version.byId[version.ids[i]],
                   earlier.version.ranges[j].count == range.count,
                   memcmp(earlier.mapped.bytes.baseAddress! + earlier.version.ranges[j].lowerBound,
                          bytes.baseAddress! + range.lowerBound, range.count) == 0 {
                    return (earlier.checks.problems[j] ?? [], earlier.checks.idMembers[j], true)
                }
                let found = try checkRecord(id: version.ids[i], UnsafeRawBufferPointer(rebasing: bytes[range]),
                                            catalog: version.catalog)
                return (found.problems, found.idMember, false)
            }
            for (k, result) in results.enumerated() {
                if !result.problems.isEmpty { checks.problems[start + k] = result.problems }
                if let own = result.own { checks.idMembers[start + k] = own }
                if !result.reused { checkedCount += 1 }
            }
            release(version.ranges[start].lowerBound..<version.ranges[end - 1].upperBound)
            earlier?.mapped.releaseAll()
            start = end
        }
        return (checks, checkedCount)
    }

    /// The check a GET makes of a record (`{...}`, strict JSON): its problems, and its own `id`
    /// member (see `StoredCustomer`).
    static func checkRecord(id: ID, _ record: UnsafeRawBufferPointer,
                            catalog: Catalog) throws -> (problems: [StoreProblem], idMember: Range<Int>?) {
        let value = try JSON.parse(record)
        var check = RecordDecoder()
        _ = check.customer(id: id, value, catalog: catalog, path: JSONPath.member("customers", id))
        let own = value.objectValue?["id"] != nil ? StoreVersion.idMember(in: record) : nil
        return (check.problems, own)
    }

    /// The version a write made from this one, without a scan: the records after each edit
    /// moved by what it added or took, the records it replaced at their new place, the
    /// customers it created indexed (the records it wrote need no check: the writer made them
    /// from checked records). A provisional version's stays provisional. Nil when the write was
    /// not made from this version (then the new file is scanned).
    func applying(_ report: CommitReport) -> StoreVersion? {
        guard report.base == identity else { return nil }
        let edits = report.edits.sorted { $0.range.lowerBound < $1.range.lowerBound }
        // Where each edit's bytes start in the new file.
        var newStart: [Int] = []
        var shift = 0
        for edit in edits {
            newStart.append(edit.range.lowerBound + shift)
            shift += edit.bytes.count - edit.range.count
        }
        var ranges = self.ranges
        var checks = self.checks
        var replaced = [Bool](repeating: false, count: edits.count)
        var e = 0
        shift = 0
        var previousEnd = 0
        for i in ranges.indices {
            let old = ranges[i]
            guard old.lowerBound >= previousEnd else { return nil }
            previousEnd = old.upperBound
            while e < edits.count, edits[e].range.upperBound <= old.lowerBound, edits[e].range != old {
                shift += edits[e].bytes.count - edits[e].range.count
                e += 1
            }
            if e < edits.count, edits[e].range == old {
                let bytes = edits[e].bytes
                ranges[i] = newStart[e]..<(newStart[e] + bytes.count)
                checks?.idMembers[i] = bytes.withUnsafeBytes { StoreVersion.idMember(in: $0) }
                checks?.problems[i] = nil
                replaced[e] = true
                shift += bytes.count - old.count
                e += 1
            } else if e < edits.count, edits[e].range.overlaps(old) {
                return nil
            } else {
                ranges[i] = (old.lowerBound + shift)..<(old.upperBound + shift)
            }
        }
        var ids = self.ids
        var byId = self.byId
        for (k, edit) in edits.enumerated() where !replaced[k] {
            // Customers appended to the `customers` object.
            guard let members = StoreVersion.members(inserted: edit.bytes) else { return nil }
            for member in members {
                guard byId[member.key] == nil else { return nil }
                byId[member.key] = ids.count
                ids.append(member.key)
                let range = (newStart[k] + member.value.lowerBound)..<(newStart[k] + member.value.upperBound)
                guard range.lowerBound >= (ranges.last?.upperBound ?? 0) else { return nil }
                ranges.append(range)
                if let own = edit.bytes.withUnsafeBytes({ StoreVersion.idMember(in: UnsafeRawBufferPointer(rebasing: $0[member.value])) }) {
                    checks?.idMembers[ids.count - 1] = own
                }
            }
        }
        return with(file: report.written, ids: ids, ranges: ranges, byId: byId, checks: checks)
    }

    /// The customer `id` names: its key, else an alias of exactly one customer; nil when none.
    func customerIndex(_ id: ID, path: String) throws -> Int? {
        if let byId = byId[id] { return byId }
        guard let owners = byAlias[id] else { return nil }
        guard owners.count == 1 else {
            let names = owners.prefix(5).map { "'\(ids[$0])'" }.joined(separator: ", ")
            throw StoreError.invalid(path: path, problems: [StoreProblem(
                path: "customers", message: "alias '\(id)' belongs to several customers: \(names)")])
        }
        return owners[0]
    }

    /// The record of customer `i` as stored (one pread); a record whose check found problems
    /// is `invalid`. A provisional version checks the record here.
    func customer(_ i: Int, path: String) throws -> StoredCustomer {
        if let found = checks?.problems[i] { throw StoreError.invalid(path: path, problems: found) }
        let bytes = try file.read(ranges[i], path: path)
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            throw StoreError.unreadable(path: path, reason: MappedFile.changedReason)
        }
        guard let checks else {
            let found: (problems: [StoreProblem], idMember: Range<Int>?)
            do {
                found = try bytes.withUnsafeBytes { try StoreVersion.checkRecord(id: ids[i], $0, catalog: catalog) }
            } catch {
                // The scan found these bytes strict JSON: they are not what was scanned.
                throw StoreError.unreadable(path: path, reason: MappedFile.changedReason)
            }
            if !found.problems.isEmpty { throw StoreError.invalid(path: path, problems: found.problems) }
            return StoredCustomer(id: ids[i], record: bytes, idMember: found.idMember, products: products)
        }
        return StoredCustomer(id: ids[i], record: bytes, idMember: checks.idMembers[i], products: products)
    }

    /// In a record's bytes (`{...}`), the `id` member with the comma after it (before it, when
    /// it is the last member); nil when it has none or is not an object.
    static func idMember(in record: UnsafeRawBufferPointer) -> Range<Int>? {
        var visitor = MemberVisitor()
        guard (try? JSON.scan(record, visitor: &visitor)) != nil,
              let k = visitor.members.firstIndex(where: \.isId) else { return nil }
        let members = visitor.members
        if k + 1 < members.count { return members[k].keyOffset..<members[k + 1].keyOffset }
        if k > 0 { return members[k - 1].value.upperBound..<members[k].value.upperBound }
        return members[k].keyOffset..<members[k].value.upperBound
    }

    /// The members `"id": {...}` of bytes a write appended to the `customers` object (a comma
    /// first, or the whole inside of an empty object): keys, and value ranges in those bytes.
    static func members(inserted bytes: [UInt8]) -> [(key: ID, value: Range<Int>)]? {
        var skip = 0
        while skip < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[skip]) { skip += 1 }
        if skip < bytes.count, bytes[skip] == UInt8(ascii: ",") { skip += 1 }
        let wrapped = [UInt8(ascii: "{")] + bytes[skip...] + [UInt8(ascii: "}")]
        var visitor = MemberVisitor()
        guard (try? wrapped.withUnsafeBytes { try JSON.scan($0, visitor: &visitor) }) != nil else { return nil }
        // Offset b in `wrapped` is b - 1 + skip in `bytes`.
        return visitor.members.map { (ID($0.key), ($0.value.lowerBound - 1 + skip)..<($0.value.upperBound - 1 + skip)) }
    }
}

/// The members of the top-level object: key, where the key starts, the value's bytes.
private struct MemberVisitor: JSONScanVisitor {
    struct Member {
        var key: String
        var isId: Bool
        var keyOffset: Int
        var value: Range<Int>
    }

    let reportDepth = 1
    var members: [Member] = []

    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {}

    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
        guard depth == 1, let key else { return }
        members.append(Member(key: key.string, isId: key.equals("id"), keyOffset: key.offset, value: range))
    }
}
