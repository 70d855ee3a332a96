// `find` behind the source seam. A record-backed source (the local store, `subs serve`) searches
// every kind of term; a platform searches what its API allows — by default an id, through the
// same lookup `check` makes. RevenueCat's API v2 (`GET /projects/{id}/customers?search=TERM`,
// email, app user ids, store transaction ids and Apple order ids, paginated for emails) declares
// its own `searchableKinds` and `find` (RevenueCatV2Find.swift).

/// A query a source cannot search (a kind of term its API has no lookup for): the CLI says the
/// sentence and exits 64.
public struct NotSearchable: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

extension CustomerSource {
    public var searchableKinds: SearchKinds { .ids }

    public func whyNotSearchable(_ kind: SearchKinds) -> String {
        "this source looks customers up by id only"
    }

    /// Throws `NotSearchable` when the query asks for a kind of term the source cannot search:
    /// an attribute, or a term shaped like an email or a store id (`TermShape`). Nothing is asked.
    public func requireSearchable(_ query: FindQuery) throws {
        if !query.attributes.isEmpty, !searchableKinds.contains(.attributes) {
            throw NotSearchable(whyNotSearchable(.attributes))
        }
        for term in query.terms {
            if let why = whyNotSearchable(term: term) { throw NotSearchable(why) }
        }
    }

    public func whyNotSearchable(term: String) -> String? { unsearchableShape(term) }

    /// The sentence for a term shaped like a kind of term the source cannot search.
    public func unsearchableShape(_ term: String) -> String? {
        let shape = TermShape(of: term)
        guard !searchableKinds.contains(shape.kind) else { return nil }
        return "'\(term)' looks like \(shape.description), and \(whyNotSearchable(shape.kind))"
    }

    /// Ids only: each term is looked up as a customer id (or alias, identity) with `statuses`.
    /// A term the platform resolves to a customer of another id is a match by alias.
    public func find(_ query: FindQuery, at t: Instant?) throws -> FindAnswer {
        try requireSearchable(query)
        let answer = try statuses(of: query.terms.ids, at: t)
        let results = zip(query.terms, answer.statuses).enumerated().map { index, pair -> FindResult in
            let (term, status) = pair
            // Not read (the command's remote budget ended first): not known to match nothing.
            guard let status else { return FindResult(term: term, matches: [], unread: answer.unanswered[index]) }
            return FindResult(term: term, matches: [FindMatch(
                customerId: status.record.id, matchedBy: status.record.id == ID(term) ? .customerId : .alias,
                email: FindMatch.email(of: status.record), activeEntitlements: status.activeEntitlementIds)])
        }
        return FindAnswer(requestDate: answer.requestDate, results: results, remarks: answer.remarks)
    }
}

extension RecordSource {
    public var searchableKinds: SearchKinds { .all }

    public func find(_ query: FindQuery, at t: Instant?) throws -> FindAnswer {
        let found = try records.findResults(query, at: t, now: clock.now())
        return FindAnswer(requestDate: found.requestDate, results: found.results, remarks: records.takeRemarks())
    }
}
