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

/// What one scan of `find` found, before any customer is decoded: per term, each customer found
/// once with its best kind, best kind first, then in store order. The store stays mapped for the
/// reads of the customers (`records(_:)`), which the caller makes inside `store.file.reading`.
struct SearchScan {
    let store: ScannedStore
    let catalog: Catalog
    let perTerm: [[SearchHit]]
    /// Per id of `locating`, its customer (by key only), or nil.
    let located: [CustomerSpan?]

    /// The customers at `hits`, decoded and checked like every customer `check` reads, read with
    /// pread (the mapping keeps only what the scan left mapped); on all cores when there are many.
    func records(_ hits: [SearchHit]) throws -> [CustomerRecord] {
        try hits.concurrentMap(minimumCount: 64) { hit -> CustomerRecord in
            let bytes = try store.file.copy(hit.span.range)
            let value: JSONValue
            do { value = try JSON.parse(bytes) } catch { throw store.file.changedError }
            var decoder = RecordDecoder()
            let record = decoder.customer(id: hit.span.id, value, catalog: catalog,
                                          path: JSONPath.member("customers", hit.span.id))
            guard decoder.problems.isEmpty, let record else {
                throw StoreError.invalid(path: store.path, problems: decoder.problems)
            }
            return record
        }
    }
}

extension LocalStore {
    public func find(_ query: FindQuery) throws -> FoundRecords {
        let scan = try searchScan(query)
        return try scan.store.file.reading { try found(scan) }
    }

    /// One strict scan of the store for `query`'s terms (and the customers `locating` names),
    /// the catalog and top level checked; no customer decoded. `releaseStep`: how much of the
    /// mapping stays resident behind the scan at most (serve runs several scans at a time).
    func searchScan(_ query: FindQuery, locating: [ID] = [], releaseStep: Int = MappedFile.releaseStep) throws -> SearchScan {
        let file = try MappedFile(path: path)
        var visitor = StoreSearchVisitor(buffer: file.bytes, query: query, locating: locating,
                                         scanned: { file.release(upTo: $0, step: releaseStep) })
        do {
            try JSON.scan(file.bytes, visitor: &visitor)
            try file.verifyUnchanged()
        } catch {
            try file.verifyUnchanged()
            if let error = error as? JSONError { throw StoreError.syntax(path: path, error: error) }
            throw error
        }
        let store = ScannedStore(path: path, file: file, index: visitor.index)
        return try file.reading { () throws -> SearchScan in
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
                for hit in visitor.hits[i] where best[hit.span.keyOffset].map({ hit.kind < $0.kind }) ?? true {
                    best[hit.span.keyOffset] = hit
                }
                perTerm.append(best.values.sorted { ($0.kind, $0.span.keyOffset) < ($1.kind, $1.span.keyOffset) })
            }
            let located = locating.indices.map { store.index.byKey[query.terms.count + $0] }
            return SearchScan(store: store, catalog: catalog, perTerm: perTerm, located: located)
        }
    }

    private func found(_ scan: SearchScan) throws -> FoundRecords {
        // Each customer decoded once, however many terms found it; on all cores when there are many.
        var order: [Int: Int] = [:]   // key offset → index in unique
        var unique: [SearchHit] = []
        for hit in scan.perTerm.joined() where order[hit.span.keyOffset] == nil {
            order[hit.span.keyOffset] = unique.count
            unique.append(hit)
        }
        let records = try scan.records(unique)
        return FoundRecords(catalog: scan.catalog, matches: scan.perTerm.map { hits in
            hits.map { (record: records[order[$0.span.keyOffset]!], kind: $0.kind) }
        })
    }
}
