// The local JSON store: reads (one strict scan, then only the catalog and the customers asked
// for) and writes (StoreWriter). SubsProviders makes it a `RecordStore` for `RecordSource`; the
// store itself knows nothing of the seam.

import SubsJSON
import SubsSystem
import SubsModel

/// The local JSON store.
public struct LocalStore {
    public let path: String
    /// Seconds a write waits for another writer's lock (SUBS_LOCK_TIMEOUT).
    public let lockTimeout: Double
    /// Test hook: where a write pauses (nil: nowhere).
    public let writePause: WritePause?
    /// What serve's writes keep of the journal from one to the next (see `KeptJournal`).
    let keptJournal = KeptJournal()

    public init(path: String, lockTimeout: Double = 10, writePause: WritePause? = nil) {
        self.path = path
        self.lockTimeout = lockTimeout
        self.writePause = writePause
    }

    /// The catalog and the record of each id (an id or alias), in order; nil where no customer has
    /// that id or alias. Throws when the store is missing or invalid.
    public func read(_ ids: [ID]) throws -> (catalog: Catalog, records: [CustomerRecord?]) {
        // Many customers: decode them on another core while the scan goes on.
        let store = try JournaledStore.scan(path: path, ids: ids, decodeEarly: ids.count >= 64)
        // Everything decoded below comes from the mapping: a store changed meanwhile is refused.
        return try store.store.file.reading { try read(ids, in: store) }
    }

    private func read(_ ids: [ID], in journaled: JournaledStore) throws -> (catalog: Catalog, records: [CustomerRecord?]) {
        let store = journaled.store
        let early = store.index.early?.finish() ?? [:]
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems
        guard problems.isEmpty else { throw StoreError.invalid(path: path, problems: problems) }

        // Which customer each id names (a customer named twice, by id and alias, is read once),
        // then each of them decoded — on all cores when there are many.
        var customers: [LocatedCustomer] = []
        var slot: [Int: Int] = [:]   // key offset (negative: in the journal) → index in customers
        var slots: [Int?] = []
        for (i, id) in ids.enumerated() {
            guard let customer = try journaled.customer(forRequest: i, id: id) else {
                slots.append(nil)
                continue
            }
            let key = customer.inJournal ? -1 - customer.span.keyOffset : customer.span.keyOffset
            if slot[key] == nil {
                slot[key] = customers.count
                customers.append(customer)
            }
            slots.append(slot[key])
        }
        let decoded = try customers.concurrentMap { customer -> CustomerRecord in
            if !customer.inJournal, let record = early[customer.span.keyOffset] { return record }
            var customerDecoder = RecordDecoder()
            let record = try journaled.record(customer, catalog: catalog, into: &customerDecoder)
            guard customerDecoder.problems.isEmpty, let record else {
                throw StoreError.invalid(path: path, problems: customerDecoder.problems)
            }
            return record
        }
        let records = slots.map { $0.map { decoded[$0] } }
        return (catalog, records)
    }

    /// What the subs REST API answers for `id` (an id or alias): the customer's canonical id, its
    /// record exactly as stored (unknown fields included) and the catalog as stored — both
    /// checked like every read. nil when no customer has that id or alias.
    public func storedRecord(_ id: ID) throws -> StoredRecord? {
        let journaled = try JournaledStore.scan(path: path, ids: [id])
        let store = journaled.store
        return try store.file.reading { () throws -> StoredRecord? in
            let read = try read([id], in: journaled)
            guard read.records.first ?? nil != nil, let customer = try journaled.customer(forRequest: 0, id: id),
                  let products = store.index.products else { return nil }
            return StoredRecord(id: customer.id, record: try journaled.value(customer), products: try store.value(products))
        }
    }

    /// Every customer id, in store order (shell completion). The store must be valid JSON.
    public func customerIds() throws -> [ID] {
        let store = try JournaledStore.scan(path: path, ids: [], collectAll: true)
        return try store.store.file.reading { store.all.map(\.id) }
    }

    /// Ids, then aliases, in store order: one scan (only a USER not found pays for it).
    public func customerNames() throws -> [ID] {
        let store = try JournaledStore.scan(path: path, ids: [], collectAll: true)
        return try store.store.file.reading { store.all.map(\.id) + store.allAliases }
    }
}

extension LocalStore {
    /// Several changes, each succeeding or failing on its own, committed in one write.
    public func applyEach(_ requests: [ChangeRequest], now: Instant) throws -> [Result<StoredRecord, ChangeError>] {
        try StoreWriter(path: path, lockTimeout: lockTimeout, pause: writePause).applyEach(requests, now: now)
    }

    /// `applyEach`, with what the write did (the server's index follows it); `willCommit` is
    /// told the new file's identity just before it is renamed in.
    func applyEachReporting(_ requests: [ChangeRequest], now: Instant, willCommit: (FileIdentity) -> Void = { _ in }) throws
        -> (results: [Result<StoredRecord, ChangeError>], report: CommitReport?) {
        // serve folds the journal itself, off the request path (`compactIfPastBound`).
        try StoreWriter(path: path, lockTimeout: lockTimeout, compactsInline: false, kept: keptJournal).applyEachReporting(requests, now: now, willCommit: willCommit)
    }

    /// Applies a grant or revoke to every customer named (one atomic write), or to none.
    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws -> ChangeResult {
        try StoreWriter(path: path, lockTimeout: lockTimeout, pause: writePause).apply(change, to: ids, now: now, dryRun: dryRun)
    }
}
