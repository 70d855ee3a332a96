// The ids a command asked for, matched against raw key bytes during a scan without allocating.

import SubsJSON
import SubsModel

package struct RequestedIds {
    let ids: [[UInt8]]
    private var byHash: [UInt64: [Int]] = [:]

    init(_ ids: [ID]) {
        self.ids = ids.map { Array($0.utf8) }
        for (i, id) in self.ids.enumerated() {
            // The hash is taken inside the closure: the pointer is valid only there.
            byHash[id.withUnsafeBytes { RequestedIds.hash($0) }, default: []].append(i)
        }
    }

    var isEmpty: Bool { ids.isEmpty }

    /// Indices of the requested ids equal to these raw (unescaped) UTF-8 bytes.
    func matches(raw: UnsafeRawBufferPointer) -> [Int]? {
        guard let candidates = byHash[RequestedIds.hash(raw)] else { return nil }
        let found = candidates.filter { i in
            ids[i].count == raw.count && (raw.count == 0 || ids[i].withUnsafeBytes { memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 })
        }
        return found.isEmpty ? nil : found
    }

    /// Matches a key as it stands in the document (escapes decoded only when present).
    func matches(key: JSONKey) -> [Int]? {
        if !key.hasEscapes { return matches(raw: key.raw) }
        let decoded = Array(key.string.utf8)
        return decoded.withUnsafeBytes { matches(raw: $0) }
    }

    /// FNV-1a: fast, and good enough to bucket a few ids.
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in bytes {
            h = (h ^ UInt64(b)) &* 0x100000001b3
        }
        return h
    }
}

#if canImport(Glibc)
import Glibc
#endif
