// The customers a search found, as records: the local store's scan and the subs REST API's
// search both answer this; the seam evaluates it (`results(_:at:)`, beside FindResult).

/// The customers a search found, as records (the rules evaluate them).
public struct FoundRecords: Sendable {
    public var catalog: Catalog
    /// The answering server's clock (remote); nil for the local store.
    public var requestDate: Instant?
    /// Per term, in the order asked: each customer found and why, best kind first, then in store order.
    public var matches: [[(record: CustomerRecord, kind: MatchKind)]]

    public init(catalog: Catalog, requestDate: Instant? = nil, matches: [[(record: CustomerRecord, kind: MatchKind)]]) {
        self.catalog = catalog
        self.requestDate = requestDate
        self.matches = matches
    }
}
