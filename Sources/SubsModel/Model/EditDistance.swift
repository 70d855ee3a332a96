// "did you mean …?" for mistyped options, commands, choice words and entitlement ids.

public enum EditDistance {
    /// The candidate closest to `word` within edit distance 2 (first in list order on ties).
    public static func closest(to word: String, among candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        // The distance is at least the difference in length: a huge word (a 100 KB argument)
        // is near nothing, and is not compared character by character with every candidate.
        let length = word.count
        for candidate in candidates where candidate != word && abs(candidate.count - length) <= 2 {
            let d = distance(word, candidate)
            if d <= 2, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        return best?.candidate
    }

    /// The id closest to `id` within edit distance 2, another id than it by its bytes: for an
    /// entitlement spelt in another Unicode form than the catalog's (NFD `café` for NFC), that
    /// spelling is the one suggested (the distance compares characters).
    public static func closest(to id: ID, among candidates: [ID]) -> ID? {
        var best: (candidate: ID, distance: Int)?
        let length = id.string.count
        for candidate in candidates where candidate != id && abs(candidate.string.count - length) <= 2 {
            let d = distance(id.string, candidate.string)
            if d <= 2, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        return best?.candidate
    }

    /// Up to `limit` candidates within edit distance 2 of `word` and at the smallest distance any
    /// has (in list order), for a customer id or alias not found. Compared by Unicode scalars, so that two ids
    /// are the same only when their bytes are (SPEC section 7): an NFD spelling of an NFC id is a
    /// suggestion, not the word itself. Bounded: a candidate is dropped as soon as it cannot be
    /// within 2, so a store of a million ids costs a pass, not a million full tables.
    public static func nearest(to word: ID, among candidates: [ID], limit: Int = 3) -> [ID] {
        let w = Array(word.string.unicodeScalars)
        guard !w.isEmpty, w.count <= 4096 else { return [] }
        var found: [(candidate: ID, distance: Int, order: Int)] = []
        var seen = Set<ID>()
        for (order, candidate) in candidates.enumerated() {
            let c = Array(candidate.string.unicodeScalars)
            guard abs(c.count - w.count) <= 2, c != w, let d = boundedDistance(w, c, bound: 2) else { continue }
            guard seen.insert(candidate).inserted else { continue }
            found.append((candidate, d, order))
        }
        // Only the nearest: one slip away beats two (git's "did you mean" lists its best alone).
        guard let best = found.map(\.distance).min() else { return [] }
        return found.filter { $0.distance == best }.sorted { $0.order < $1.order }.prefix(limit).map(\.candidate)
    }

    /// The optimal-string-alignment distance of `a` and `b` when it is at most `bound`, else nil.
    static func boundedDistance<T: Equatable>(_ a: [T], _ b: [T], bound: Int) -> Int? {
        if a.isEmpty { return b.count <= bound ? b.count : nil }
        if b.isEmpty { return a.count <= bound ? a.count : nil }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var best = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
                best = min(best, d)
            }
            if best > bound { return nil }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count] <= bound ? previous[b.count] : nil
    }

    /// Damerau–Levenshtein distance (optimal string alignment): a swap of two neighbours costs 1,
    /// because `--jsno` is one slip, not two.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
