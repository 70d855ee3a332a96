// Duplicate-key detection for every open object during a scan, without allocating per key:
// small objects compare raw key bytes, large ones (a store's 100 000 customers) use a hash table.

/// The keys of all objects currently open, innermost object last. Keys are compared by their
/// decoded value, so "a" and "\u0061" are the same key; escapes are decoded only when present.
struct JSONKeySet {
    struct Record {
        /// Offset of the first byte after the opening quote.
        var start: Int
        var length: Int
        var escaped: Bool
    }

    /// Up to this many keys an object is searched linearly; beyond, it gets a hash table.
    static let linearLimit = 16

    private var records: UnsafeMutablePointer<Record>
    private var capacity: Int
    private(set) var count = 0
    /// One table per depth: only one object is open at each depth at a time.
    private var tables: [JSONKeyHashTable] = []

    init() {
        capacity = 256
        records = .allocate(capacity: capacity)
    }

    func release() { records.deallocate() }

    /// Forgets the keys of an object that has closed (its keys started at `objectBase`).
    @inline(__always)
    mutating func pop(to objectBase: Int) { count = objectBase }

    /// Adds `key` to the object at `depth` whose keys start at `objectBase`.
    /// Returns false when the object already has an equal key.
    ///
    /// `filter` is the object's small Bloom filter over (length, first byte, last byte) of its
    /// unescaped keys, so most new keys of a small object need no comparison at all. An escaped
    /// key saturates it, because its raw bytes say little about its value.
    @inline(__always)
    mutating func insert(_ key: Record, objectBase: Int, filter: inout UInt64, depth: Int,
                         bytes: UnsafePointer<UInt8>) -> Bool {
        let bit = key.escaped ? UInt64.max : JSONKeySet.filterBit(key, bytes)
        if filter & bit == 0 && count &- objectBase < JSONKeySet.linearLimit && count < capacity {
            filter |= bit
            records[count] = key
            count &+= 1
            return true
        }
        return insertComparing(key, objectBase: objectBase, filter: &filter, bit: bit, depth: depth, bytes: bytes)
    }

    @inline(__always)
    static func filterBit(_ key: Record, _ bytes: UnsafePointer<UInt8>) -> UInt64 {
        var x = UInt64(truncatingIfNeeded: key.length)
        if key.length > 0 {
            x |= UInt64(bytes[key.start]) &<< 8 | UInt64(bytes[key.start &+ key.length &- 1]) &<< 16
        }
        // Multiply-shift: the top six bits of the product pick one of 64 bits.
        return 1 &<< ((x &* 0x9E37_79B9_7F4A_7C15) &>> 58)
    }

    @inline(never)
    private mutating func insertComparing(_ key: Record, objectBase: Int, filter: inout UInt64, bit: UInt64,
                                          depth: Int, bytes: UnsafePointer<UInt8>) -> Bool {
        let known = count - objectBase
        if known < JSONKeySet.linearLimit {
            for i in objectBase..<count where JSONKeySet.equal(records[i], key, bytes) { return false }
            filter |= bit
        } else if !insertHashed(key, known: known, objectBase: objectBase, depth: depth, bytes: bytes) {
            return false
        }
        if count == capacity { grow() }
        records[count] = key
        count += 1
        return true
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Record>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: records, count: count)
        records.deallocate()
        records = bigger
        capacity *= 2
    }

    private mutating func insertHashed(_ key: Record, known: Int, objectBase: Int, depth: Int,
                                       bytes: UnsafePointer<UInt8>) -> Bool {
        while tables.count <= depth { tables.append(JSONKeyHashTable()) }
        let table = tables[depth]
        if known == JSONKeySet.linearLimit {
            // The object just outgrew linear search: index the keys it already has (all distinct).
            table.reset()
            for i in objectBase..<count { table.add(hash: JSONKeySet.hash(records[i], bytes), index: i) }
        }
        let hash = JSONKeySet.hash(key, bytes)
        let mask = table.capacity - 1
        var slot = Int(hash) & mask
        while true {
            let entry = table.slots[slot]
            if entry == 0 { break }
            if UInt32(truncatingIfNeeded: entry >> 32) == hash,
               JSONKeySet.equal(records[Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1], key, bytes) {
                return false
            }
            slot = (slot + 1) & mask
        }
        table.add(hash: hash, index: count)
        return true
    }

    // MARK: Comparing and hashing keys

    static func equal(_ a: Record, _ b: Record, _ bytes: UnsafePointer<UInt8>) -> Bool {
        if !a.escaped && !b.escaped {
            return a.length == b.length && bytesEqual(bytes + a.start, bytes + b.start, a.length)
        }
        return decoded(a, bytes) == decoded(b, bytes)
    }

    @inline(__always)
    static func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var i = 0
        while i &+ 8 <= length {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
                != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
            i &+= 8
        }
        while i < length {
            if a[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }

    static func decoded(_ key: Record, _ bytes: UnsafePointer<UInt8>) -> [UInt8] {
        JSONStringDecoding.decode(UnsafeRawBufferPointer(start: bytes + key.start, count: key.length))
    }

    static func hash(_ key: Record, _ bytes: UnsafePointer<UInt8>) -> UInt32 {
        if key.escaped {
            return decoded(key, bytes).withUnsafeBytes { hash($0.baseAddress!, $0.count) }
        }
        return hash(UnsafeRawPointer(bytes + key.start), key.length)
    }

    static func hash(_ p: UnsafeRawPointer, _ length: Int) -> UInt32 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(length)
        var i = 0
        while i + 8 <= length {
            h = (h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < length {
            tail |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0x94D0_49BB_1331_11EB
        h ^= h >> 29
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }
}

/// Open-addressing table of key-record indices. Each slot holds the key's 32-bit hash in the high
/// half and its record index + 1 in the low half; 0 marks an empty slot.
final class JSONKeyHashTable {
    private(set) var slots: UnsafeMutablePointer<UInt64>
    private(set) var capacity: Int
    private var used = 0

    init() {
        capacity = 64
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
    }

    deinit { slots.deallocate() }

    func reset() {
        // A table left large by an earlier big object is shrunk so that clearing stays cheap.
        if capacity > 1024 {
            slots.deallocate()
            capacity = 64
            slots = .allocate(capacity: capacity)
        }
        slots.initialize(repeating: 0, count: capacity)
        used = 0
    }

    func add(hash: UInt32, index: Int) {
        if (used + 1) * 2 > capacity { rehash(capacity: capacity * 2) }
        place(UInt64(hash) << 32 | UInt64(index + 1))
        used += 1
    }

    private func place(_ entry: UInt64) {
        let mask = capacity - 1
        var slot = Int(entry >> 32) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = entry
    }

    private func rehash(capacity newCapacity: Int) {
        let old = slots
        let oldCapacity = capacity
        capacity = newCapacity
        slots = .allocate(capacity: newCapacity)
        slots.initialize(repeating: 0, count: newCapacity)
        for i in 0..<oldCapacity where old[i] != 0 { place(old[i]) }
        old.deallocate()
    }
}
