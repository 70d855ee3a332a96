// The customers a search found, as records, and what the rules make of them at T: the local
// store's scan and the subs REST API's search both answer this, the seam evaluates it.

import SubsSystem

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

extension FoundRecords {
    /// Each term's result, with the active entitlements of its customers at T.
    public func results(_ terms: [String], at t: Instant) -> [FindResult] {
        zip(terms, matches).map { term, matches in
            FindResult(term: term, matches: matches.concurrentMap { match in
                FindMatch(customerId: match.record.id, matchedBy: match.kind, email: FindMatch.email(of: match.record),
                          activeEntitlements: EntitlementRules.evaluate(match.record, catalog: catalog, at: t)
                              .filter(\.isActive).map(\.id))
            })
        }
    }
}
