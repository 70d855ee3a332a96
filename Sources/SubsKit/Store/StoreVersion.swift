// One version of a served store, indexed: where every customer record stands in that very file
// (held open, so a newer version renamed over the path never mixes into its answers), the
// catalog as compact bytes, and what the check of every record found — so that a GET is a
// dictionary probe and one pread, and its answer is spliced from the record's bytes.
// A version is made by a scan (at start, or after another program changed the file) or derived
// from the previous one and the edits of a write the server made itself (no scan).

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

final class StoreVersion: @unchecked Sendable {
    let file: RecordFile
    var identity: FileIdentity { file.identity }
    let ids: [ID]
    let ranges: [Range<Int>]
    let byId: [ID: Int]
    let byAlias: [ID: [Int]]
    /// The catalog, compact (every answer carries it).
    let products: [UInt8]
    /// Records whose check found problems: a GET of one is `invalid_store`, as it always was.
    let problems: [Int: [StoreProblem]]
    /// Records with an `id` member of their own: the range to leave out (see `StoredCustomer`).
    let idMembers: [Int: Range<Int>]

    private init(file: RecordFile, ids: [ID], ranges: [Range<Int>], byId: [ID: Int], byAlias: [ID: [Int]],
                 products: [UInt8], problems: [Int: [StoreProblem]], idMembers: [Int: Range<Int>]) {
        self.file = file
        self.ids = ids
        self.ranges = ranges
        self.byId = byId
        self.byAlias = byAlias
        self.products = products
        self.problems = problems
        self.idMembers = idMembers
    }

    /// Records checked per step of the scan; the pages read go back after each step, so the
    /// resident size stays that of the index, not of the store.
    private static let checkStep = 4096

    /// Scans and checks the file now at `path` (a regular file only: never waits on a FIFO).
    static func scan(path: String) throws -> StoreVersion {
        let store = try ScannedStore.scan(path: path, ids: [], collectAll: true, regularOnly: true)
        return try store.file.reading {
            var top = store.topLevelProblems()
            var decoder = RecordDecoder()
            let catalog = try store.catalog(into: &decoder)
            top += decoder.problems
            guard top.isEmpty else { throw StoreError.invalid(path: path, problems: top) }
            let products = Array(JSONWriter.compact(try store.storedProducts()).utf8)
            let spans = store.index.all
            var problems: [Int: [StoreProblem]] = [:]
            var idMembers: [Int: Range<Int>] = [:]
            store.file.restartRelease()
            var start = 0
            while start < spans.count {
                let end = min(start + checkStep, spans.count)
                // Each record is checked as a GET used to check it, on all cores.
                let checked = try spans[start..<end].map { $0 }.concurrentMap { span -> ([StoreProblem], Range<Int>?) in
                    let value = try store.value(span.range)
                    var check = RecordDecoder()
                    _ = check.customer(id: span.id, value, catalog: catalog, path: JSONPath.member("customers", span.id))
                    let own = value.objectValue?["id"] != nil
                        ? StoreVersion.idMember(in: UnsafeRawBufferPointer(rebasing: store.bytes[span.range])) : nil
                    return (check.problems, own)
                }
                for (k, (found, own)) in checked.enumerated() {
                    if !found.isEmpty { problems[start + k] = found }
                    if let own { idMembers[start + k] = own }
                }
                store.file.release(upTo: spans[end - 1].range.upperBound)
                start = end
            }
            var byId: [ID: Int] = [:]
            byId.reserveCapacity(spans.count)
            for (i, span) in spans.enumerated() { byId[span.id] = i }
            var byAlias: [ID: [Int]] = [:]
            for (alias, customer) in store.index.allAliases where byAlias[alias]?.last != customer {
                byAlias[alias, default: []].append(customer)
            }
            guard let fd = store.file.duplicateDescriptor() else {
                throw StoreError.unreadable(path: path, reason: "cannot keep the store open")
            }
            // Reads go through the descriptor: the pages the scan mapped go back now.
            store.file.releaseAll()
            return StoreVersion(file: RecordFile(fd: fd, identity: store.file.identity), ids: spans.map(\.id),
                                ranges: spans.map(\.range), byId: byId, byAlias: byAlias, products: products,
                                problems: problems, idMembers: idMembers)
        }
    }

    /// The version a write made from this one, without a scan: the records after each edit
    /// moved by what it added or took, the records it replaced at their new place, the
    /// customers it created indexed. Nil when the write was not made from this version (then
    /// the new file is scanned).
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
        var idMembers = self.idMembers
        var problems = self.problems
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
                idMembers[i] = bytes.withUnsafeBytes { StoreVersion.idMember(in: $0) }
                problems[i] = nil
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
                    idMembers[ids.count - 1] = own
                }
            }
        }
        return StoreVersion(file: report.written, ids: ids, ranges: ranges, byId: byId, byAlias: byAlias,
                            products: products, problems: problems, idMembers: idMembers)
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
    /// is `invalid`.
    func customer(_ i: Int, path: String) throws -> StoredCustomer {
        if let found = problems[i] { throw StoreError.invalid(path: path, problems: found) }
        let bytes = try file.read(ranges[i], path: path)
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            throw StoreError.unreadable(path: path, reason: MappedFile.changedReason)
        }
        return StoredCustomer(id: ids[i], record: bytes, idMember: idMembers[i], products: products)
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
