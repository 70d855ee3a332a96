// `find` on the local store: one scan of its bytes (StoreSearchVisitor), then only the customers
// that match are decoded — checked like every customer `check` reads.

import SubsJSON

/// The customers a search found, as records (the rules evaluate them).
public struct FoundRecords: Sendable {
    public var catalog: Catalog
    /// The answering server's clock (remote); nil for the local store.
    public var requestDate: Instant?
    /// Per term, in the order asked: each customer found and why, best kind first, then in store order.
    public var matches: [[(record: CustomerRecord, kind: MatchKind)]]
    /// Per term (by index): why customers it matches were not read (a remote budget ended first).
    public var unread: [Int: RemoteError]

    public init(catalog: Catalog, requestDate: Instant? = nil, matches: [[(record: CustomerRecord, kind: MatchKind)]],
                unread: [Int: RemoteError] = [:]) {
        self.catalog = catalog
        self.requestDate = requestDate
        self.matches = matches
        self.unread = unread
    }
}

extension FoundRecords {
    /// Each term's result, with the active entitlements of its customers at T.
    public func results(_ terms: [String], at t: Instant) -> [FindResult] {
        zip(terms, matches).enumerated().map { index, pair in
            FindResult(term: pair.0, matches: pair.1.concurrentMap { match in
                FindMatch(customerId: match.record.id, matchedBy: match.kind, email: FindMatch.email(of: match.record),
                          activeEntitlements: EntitlementRules.evaluate(match.record, catalog: catalog, at: t)
                              .filter(\.isActive).map(\.id))
            }, unread: unread[index])
        }
    }
}

extension LocalStore {
    public func find(_ query: FindQuery) throws -> FoundRecords {
        let file = try MappedFile(path: path)
        var visitor = StoreSearchVisitor(buffer: file.bytes, query: query, scanned: { file.release(upTo: $0) })
        do {
            try JSON.scan(file.bytes, visitor: &visitor)
            try file.verifyUnchanged()
        } catch {
            try file.verifyUnchanged()
            if let error = error as? JSONError { throw StoreError.syntax(path: path, error: error) }
            throw error
        }
        let store = ScannedStore(path: path, file: file, index: visitor.index)
        return try file.reading { try found(query, hits: visitor.hits, in: store) }
    }

    private func found(_ query: FindQuery, hits: [[SearchHit]], in store: ScannedStore) throws -> FoundRecords {
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems
        guard problems.isEmpty else { throw StoreError.invalid(path: path, problems: problems) }

        // Per term: its customer by id or alias, then the others, each once with its best kind.
        var perTerm: [[SearchHit]] = []
        for (i, term) in query.terms.enumerated() {
            var best: [Int: SearchHit] = [:]
            if let span = store.index.byKey[i] {
                best[span.keyOffset] = SearchHit(span: span, kind: .customerId)
            } else if let span = try store.customerSpan(forRequest: i, id: ID(term)) {
                best[span.keyOffset] = SearchHit(span: span, kind: .alias)
            }
            for hit in hits[i] where best[hit.span.keyOffset].map({ hit.kind < $0.kind }) ?? true {
                best[hit.span.keyOffset] = hit
            }
            perTerm.append(best.values.sorted { ($0.kind, $0.span.keyOffset) < ($1.kind, $1.span.keyOffset) })
        }

        // Each customer decoded once, however many terms found it; on all cores when there are many.
        var order: [Int: Int] = [:]   // key offset → index in spans
        var spans: [CustomerSpan] = []
        for hit in perTerm.joined() where order[hit.span.keyOffset] == nil {
            order[hit.span.keyOffset] = spans.count
            spans.append(hit.span)
        }
        let records = try spans.concurrentMap { span -> CustomerRecord in
            var customerDecoder = RecordDecoder()
            let record = try store.customer(span, catalog: catalog, into: &customerDecoder)
            guard customerDecoder.problems.isEmpty, let record else {
                throw StoreError.invalid(path: path, problems: customerDecoder.problems)
            }
            return record
        }
        return FoundRecords(catalog: catalog, matches: perTerm.map { hits in
            hits.map { (record: records[order[$0.span.keyOffset]!], kind: $0.kind) }
        })
    }
}
