// What a listing's decoded item costs in memory, counted against the command's byte budget (SPEC
// section 7 rev. 4, "Budgets") in place of the page it came in: a purchase of 400 bytes on the
// wire is a struct, a few strings, then a history entry, the timeline's index of it and its
// output row; a purchase of 60 bytes costs about as much. Counted from what the item holds, so a
// listing of tiny items and one of huge items both stop at the bound, and the process stays under
// it whatever the shapes of the pages (measured with `/usr/bin/time -v` on release builds; the
// figures are in CHANGELOG.md and docs/reference.md).

public enum Footprint {
    /// What one history entry costs: its struct, its fields (ten or so keys and values), its list
    /// of entitlements, the timeline's index of it and the allocator's overhead of each. Measured
    /// on release builds at about 800 bytes an entry; counted with room to spare.
    public static let perEntry = 896

    /// Heap bytes of a string: none when Swift keeps it inline (at most 15 UTF-8 bytes), else its
    /// allocation (a 32-byte header and the bytes, in 16-byte steps).
    public static func string(_ s: String?) -> Int {
        guard let count = s?.utf8.count, count > 15 else { return 0 }
        return (32 + count + 1 + 15) & ~15
    }

    /// An item of type `T` kept in a listing, with these strings (each counted twice: a string an
    /// item keeps may be copied once on its way to the output), that makes `entries` history
    /// entries (a purchase one, a refunded purchase two).
    public static func item<T>(_ type: T.Type, strings: [String?], entries: Int = 1) -> Int {
        entries * perEntry + MemoryLayout<T>.stride + 16 + 2 * strings.reduce(0) { $0 + string($1) }
    }
}
