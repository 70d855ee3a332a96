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
