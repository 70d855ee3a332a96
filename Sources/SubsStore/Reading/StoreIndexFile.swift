// STORE.index (SPEC section 2 rev. 4): where each customer's record stands in one version of the
// store, so that a write finds the customers it changes without scanning the store. Rebuildable,
// bound to the store version it indexes (its stamp), rebuilt by the next write when stale, never
// the truth: what it points at is checked (the key there is the id asked for) before it is used,
// and anything odd falls back to the scan.
// Format (little-endian): a 128-byte header — "SUBSIX01", the store's stamp, the top level's
// ranges, counts, a CRC-32C of the header — then a hash table of `bucketCount` UInt32 (entry + 1,
// 0: empty), the entries (40 bytes: next entry + 1, id length, id offset in the id bytes, key
// offset, record offset, record length, owner: the key entry an alias belongs to, or all ones),
// then the id bytes. Written to a temporary file, fsynced, renamed in.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON
import SubsModel

enum StoreIndexFile {
    static func path(forStore storePath: String) -> String { storePath + ".index" }

    private static let magic = Array("SUBSIX01".utf8)
    private static let headerSize = 128
    private static let entrySize = 40
    private static let noOwner = UInt32.max

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// Writes the index of `store` (scanned with `collectAll`), the version `stamp`.
    static func write(_ store: ScannedStore, stamp: StoreStamp, storePath: String) throws {
        let spans = store.index.all
        let aliases = store.index.allAliases
        let count = spans.count + aliases.count
        var buckets = 1
        while buckets < max(2 * count, 16) { buckets <<= 1 }
        var table = [UInt32](repeating: 0, count: buckets)
        var entries = [UInt8]()
        entries.reserveCapacity(count * entrySize)
        var ids = [UInt8]()
        func put(_ value: UInt64, _ width: Int) {
            for k in 0..<width { entries.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
        }
        func add(id: ID, span: CustomerSpan, owner: UInt32) {
            let bytes = Array(id.string.utf8)
            let index = UInt32(entries.count / entrySize)
            let bucket = Int(bytes.withUnsafeBytes { hash($0) } & UInt64(buckets - 1))
            put(UInt64(table[bucket]), 4)
            table[bucket] = index + 1
            put(UInt64(bytes.count), 4)
            put(UInt64(ids.count), 8)
            put(UInt64(span.keyOffset), 8)
            put(UInt64(span.range.lowerBound), 8)
            put(UInt64(span.range.count), 4)
            put(UInt64(owner), 4)
            ids += bytes
        }
        for span in spans { add(id: span.id, span: span, owner: noOwner) }
        for (alias, customer) in aliases { add(id: alias, span: spans[customer], owner: UInt32(customer)) }

        var header = [UInt8]()
        func head(_ value: UInt64, _ width: Int) {
            for k in 0..<width { header.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
        }
        header += magic
        head(UInt64(bitPattern: stamp.size), 8)
        head(UInt64(bitPattern: stamp.seconds), 8)
        head(UInt64(bitPattern: stamp.nanoseconds), 8)
        head(UInt64(stamp.sample), 4)
        let index = store.index
        var flags: UInt64 = index.rootIsObject ? 1 : 0
        if index.schemaVersion != nil { flags |= 2 }
        if index.products != nil { flags |= 4 }
        if index.customers != nil { flags |= 8 }
        if index.firstCustomerKeyOffset != nil { flags |= 16 }
        head(flags, 4)
        for range in [index.schemaVersion, index.products, index.customers] {
            head(UInt64(range?.lowerBound ?? 0), 8)
            head(UInt64(range?.upperBound ?? 0), 8)
        }
        head(UInt64(index.firstCustomerKeyOffset ?? 0), 8)
        head(UInt64(count), 8)
        head(UInt64(buckets), 8)
        head(UInt64(ids.count), 8)
        head(UInt64(CRC32C.checksum(header)), 4)
        head(0, 4)
        precondition(header.count == headerSize)

        let temp = try TemporaryFile(beside: storePath, mode: store.file.mode & 0o666, owner: (store.file.owner, store.file.group))
        defer { temp.discard() }
        try header.withUnsafeBytes { try temp.write($0) }
        var tableBytes = [UInt8]()
        tableBytes.reserveCapacity(buckets * 4)
        for value in table { for k in 0..<4 { tableBytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(k)))) } }
        try tableBytes.withUnsafeBytes { try temp.write($0) }
        try entries.withUnsafeBytes { try temp.write($0) }
        try ids.withUnsafeBytes { try temp.write($0) }
        try temp.sync()
        guard rename(temp.path, path(forStore: storePath)) == 0 else {
            throw StoreFiles.writeError(path: storePath, errno: errno, doing: "cannot put the index in place")
        }
    }

    /// The spans of `ids` in the store mapped as `file` (the version `stamp`) as the index gives
    /// them; nil when there is no index, it is for another version, or anything in it does not
    /// hold (then the store is scanned).
    static func lookup(storePath: String, ids: [ID], stamp: StoreStamp, file: MappedFile) -> StoreIndexVisitor? {
        let fd = open(path(forStore: storePath), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let fileSize = Int(info.st_size)
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset + count <= fileSize else { return nil }
            var buffer = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            return buffer
        }
        func number(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
            var value: UInt64 = 0
            for k in 0..<width { value |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
            return value
        }
        guard let header = read(0, headerSize), Array(header[0..<8]) == magic,
              UInt32(number(header, 120, 4)) == CRC32C.checksum(Array(header[0..<120])) else { return nil }
        let indexed = StoreStamp(size: Int64(bitPattern: number(header, 8, 8)), seconds: Int64(bitPattern: number(header, 16, 8)),
                                 nanoseconds: Int64(bitPattern: number(header, 24, 8)), sample: UInt32(number(header, 32, 4)))
        guard indexed == stamp else { return nil }
        let flags = number(header, 36, 4)
        let size = file.bytes.count
        func range(_ at: Int, _ flag: UInt64) -> Range<Int>?? {
            guard flags & flag != 0 else { return .some(nil) }
            let lo = Int(number(header, at, 8)), hi = Int(number(header, at + 8, 8))
            guard lo <= hi, hi <= size else { return nil }
            return .some(lo..<hi)
        }
        guard let schemaVersion = range(40, 2), let products = range(56, 4), let customers = range(72, 8) else { return nil }
        let firstKey = flags & 16 != 0 ? Int(number(header, 88, 8)) : nil
        let count = Int(number(header, 96, 8)), buckets = Int(number(header, 104, 8)), idBytes = Int(number(header, 112, 8))
        guard buckets > 0, buckets & (buckets - 1) == 0,
              headerSize + buckets * 4 + count * entrySize + idBytes == fileSize else { return nil }
        let entriesAt = headerSize + buckets * 4, idsAt = entriesAt + count * entrySize

        struct Entry { var next: Int; var id: [UInt8]; var keyOffset: Int; var record: Range<Int>; var owner: UInt32 }
        func entry(_ i: Int) -> Entry? {
            guard i >= 0, i < count, let raw = read(entriesAt + i * entrySize, entrySize) else { return nil }
            let idLength = Int(number(raw, 4, 4)), idOffset = Int(number(raw, 8, 8))
            let keyOffset = Int(number(raw, 16, 8)), lo = Int(number(raw, 24, 8)), length = Int(number(raw, 32, 4))
            guard idOffset + idLength <= idBytes, lo + length <= size, let id = read(idsAt + idOffset, idLength) else { return nil }
            return Entry(next: Int(number(raw, 0, 4)), id: id, keyOffset: keyOffset, record: lo..<(lo + length), owner: UInt32(number(raw, 36, 4)))
        }
        /// The customer an entry points at, checked against the store: its key there is `id`.
        func span(_ e: Entry, id: [UInt8]) -> CustomerSpan? {
            let bytes = file.bytes
            guard e.keyOffset < e.record.lowerBound, e.record.count >= 2, bytes[e.keyOffset] == UInt8(ascii: "\""),
                  bytes[e.record.lowerBound] == UInt8(ascii: "{"), bytes[e.record.upperBound - 1] == UInt8(ascii: "}") else { return nil }
            // The key: its string up to the closing quote before the record.
            var end = e.keyOffset + 1
            while end < e.record.lowerBound, bytes[end] != UInt8(ascii: "\"") || bytes[end - 1] == UInt8(ascii: "\\") { end += 1 }
            guard end < e.record.lowerBound, let key = try? JSON.parse(bytes, range: e.keyOffset..<(end + 1)).stringValue,
                  Array(key.utf8) == id else { return nil }
            return CustomerSpan(keyOffset: e.keyOffset, id: ID(key), range: e.record)
        }

        var byKey: [CustomerSpan?] = []
        var byAlias: [[CustomerSpan]] = []
        for id in ids {
            let bytes = Array(id.string.utf8)
            let bucket = Int(bytes.withUnsafeBytes { hash($0) } & UInt64(buckets - 1))
            guard let slot = read(headerSize + bucket * 4, 4) else { return nil }
            var next = Int(number(slot, 0, 4))
            var key: CustomerSpan?
            var owners: [CustomerSpan] = []
            var steps = 0
            while next != 0 {
                steps += 1
                guard steps <= count, let e = entry(next - 1) else { return nil }
                next = e.next
                guard e.id == bytes else { continue }
                if e.owner == noOwner {
                    guard let found = span(e, id: bytes) else { return nil }
                    key = found
                } else {
                    guard let ownerEntry = entry(Int(e.owner)), ownerEntry.owner == noOwner,
                          let owner = span(ownerEntry, id: ownerEntry.id) else { return nil }
                    if !owners.contains(where: { $0.keyOffset == owner.keyOffset }) { owners.append(owner) }
                }
            }
            byKey.append(key)
            byAlias.append(owners.sorted { $0.keyOffset < $1.keyOffset })
        }
        return StoreIndexVisitor(buffer: file.bytes, requested: RequestedIds(ids), rootIsObject: flags & 1 != 0,
                                 schemaVersion: schemaVersion, products: products, customers: customers,
                                 firstCustomerKeyOffset: firstKey, byKey: byKey, byAlias: byAlias)
    }
}
