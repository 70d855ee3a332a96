// `find` on the local store: one scan of its bytes (StoreSearchVisitor), then only the customers
// that match are decoded — checked like every customer `check` reads.

import SubsJSON
import SubsSystem
import SubsModel

/// What one scan of `find` found, before any customer is decoded: per term, each customer found
/// once with its best kind, best kind first, then in store order. The store stays mapped for the
/// reads of the customers (`records(_:)`), which the caller makes inside `store.file.reading`.
package struct SearchScan {
    package let store: ScannedStore
    /// The journal's customers (scanned like a store), when the journal changes any: their
    /// hits' key offsets are past the store's bytes (`journalOffset`), so they sort after it.
    let journal: ScannedStore?
    package let catalog: Catalog
    package let perTerm: [[SearchHit]]
    /// Per id of `locating`, its customer (by key only), or nil.
    package let located: [CustomerSpan?]

    /// The customers at `hits`, decoded and checked like every customer `check` reads, read with
    /// pread (the mapping keeps only what the scan left mapped); on all cores when there are many.
    package func records(_ hits: [SearchHit]) throws -> [CustomerRecord] {
        try hits.concurrentMap(minimumCount: 64) { hit -> CustomerRecord in
            let bytes = hit.span.keyOffset >= store.bytes.count
                ? Array(journal!.bytes[hit.span.range]) : try store.file.copy(hit.span.range)
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
    package func searchScan(_ query: FindQuery, locating: [ID] = [], releaseStep: Int = MappedFile.releaseStep) throws -> SearchScan {
        // The journal first, then the store (see `JournalFile`).
        let journalFile = try JournalFile.open(storePath: try StoreFiles.resolvedPath(path))
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

            // The journal's customers searched like the store's; the store's hits on a customer
            // the journal names give way to them.
            let journaled = try JournaledStore.applying(journalFile, to: store, ids: query.terms.map { ID($0) } + locating, collectAll: false)
            var journalHits: [[SearchHit]] = query.terms.map { _ in [] }
            var journalStore: ScannedStore?
            let shift = store.bytes.count
            if let held = journaled.journal?.file {
                var journalVisitor = StoreSearchVisitor(buffer: held.bytes, query: query, locating: locating, scanned: { _ in })
                do {
                    try JSON.scan(held.bytes, visitor: &journalVisitor)
                } catch let error as JSONError {
                    throw StoreError.syntax(path: held.path, error: error)
                }
                journalHits = journalVisitor.hits.map { $0.map { SearchHit(span: Self.shifted($0.span, by: shift), kind: $0.kind) } }
                journalStore = ScannedStore(path: held.path, file: held, index: journalVisitor.index)
            }
            func keyed(_ customer: LocatedCustomer) -> CustomerSpan {
                customer.inJournal ? Self.shifted(customer.span, by: shift) : customer.span
            }

            // Per term: its customer by id or alias, then the others, each once with its best kind.
            var perTerm: [[SearchHit]] = []
            for (i, term) in query.terms.enumerated() {
                var best: [Int: SearchHit] = [:]
                if let customer = journaled.customerByKey(forRequest: i) {
                    best[keyed(customer).keyOffset] = SearchHit(span: keyed(customer), kind: .customerId)
                } else if let customer = try journaled.customer(forRequest: i, id: ID(term)) {
                    best[keyed(customer).keyOffset] = SearchHit(span: keyed(customer), kind: .alias)
                }
                let fromStore = visitor.hits[i].filter { !journaled.overlay.overrides($0.span.id) }
                for hit in fromStore + journalHits[i] where best[hit.span.keyOffset].map({ hit.kind < $0.kind }) ?? true {
                    best[hit.span.keyOffset] = hit
                }
                perTerm.append(best.values.sorted { ($0.kind, $0.span.keyOffset) < ($1.kind, $1.span.keyOffset) })
            }
            let located = locating.indices.map { journaled.customerByKey(forRequest: query.terms.count + $0).map(keyed) }
            return SearchScan(store: store, journal: journalStore, catalog: catalog, perTerm: perTerm, located: located)
        }
    }

    /// A journal customer's span with its key offset past the store's bytes.
    private static func shifted(_ span: CustomerSpan, by shift: Int) -> CustomerSpan {
        var span = span
        span.keyOffset += shift
        return span
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
