// A customer's history (SPEC section 4): every record dated <= T, oldest first.
// STUB — to be implemented (rules helper).

public enum History {
    /// Entries dated <= until, oldest first (ties keep store order: transactions, then refunds,
    /// events, grants, each in store order — see the implementation for the exact tie rule).
    public static func entries(of customer: CustomerRecord, catalog: Catalog, until: Instant) -> [HistoryEntry] {
        fatalError("History.entries not implemented yet")
    }
}
