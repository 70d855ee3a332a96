// The local JSON store: reads (one strict scan, then only the catalog and the customers asked
// for) and writes (StoreWriter), as records for `RecordSource`.

import SubsJSON

/// The local JSON store: records for `RecordSource`.
public struct LocalStore: RecordStore {
    public let path: String
    /// Seconds a write waits for another writer's lock (SUBS_LOCK_TIMEOUT).
    public let lockTimeout: Double
    /// Test hook: where a write pauses (nil: nowhere).
    public let writePause: WritePause?

    public init(path: String, lockTimeout: Double = 10, writePause: WritePause? = nil) {
        self.path = path
        self.lockTimeout = lockTimeout
        self.writePause = writePause
    }

    public func lookup(_ ids: [ID]) throws -> CustomerLookup {
        // Many customers: decode them on another core while the scan goes on.
        let store = try ScannedStore.scan(path: path, ids: ids, decodeEarly: ids.count >= 64)
        // Everything decoded below comes from the mapping: a store changed meanwhile is refused.
        return try store.file.reading { try lookup(ids, in: store) }
    }

    private func lookup(_ ids: [ID], in store: ScannedStore) throws -> CustomerLookup {
        let early = store.index.early?.finish() ?? [:]
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems
        guard problems.isEmpty else { throw StoreError.invalid(path: path, problems: problems) }

        // Which customer each id names (a customer named twice, by id and alias, is read once),
        // then each of them decoded — on all cores when there are many.
        var spans: [CustomerSpan] = []
        var slot: [Int: Int] = [:]   // key offset → index in spans
        var slots: [Int?] = []
        for (i, id) in ids.enumerated() {
            guard let span = try store.customerSpan(forRequest: i, id: id) else {
                slots.append(nil)
                continue
            }
            if slot[span.keyOffset] == nil {
                slot[span.keyOffset] = spans.count
                spans.append(span)
            }
            slots.append(slot[span.keyOffset])
        }
        let decoded = try spans.concurrentMap { span -> CustomerRecord in
            if let record = early[span.keyOffset] { return record }
            var customerDecoder = RecordDecoder()
            let record = try store.customer(span, catalog: catalog, into: &customerDecoder)
            guard customerDecoder.problems.isEmpty, let record else {
                throw StoreError.invalid(path: path, problems: customerDecoder.problems)
            }
            return record
        }
        let records = slots.map { $0.map { decoded[$0] } }
        return CustomerLookup(catalog: catalog, records: records)
    }

    /// What the subs REST API answers for `id` (an id or alias): the customer's canonical id, its
    /// record exactly as stored (unknown fields included) and the catalog as stored — both
    /// checked like every read. nil when no customer has that id or alias.
    public func storedRecord(_ id: ID) throws -> StoredRecord? {
        let store = try ScannedStore.scan(path: path, ids: [id])
        return try store.file.reading { () throws -> StoredRecord? in
            let lookup = try lookup([id], in: store)
            guard lookup.records.first ?? nil != nil, let span = try store.customerSpan(forRequest: 0, id: id),
                  let products = store.index.products else { return nil }
            return StoredRecord(id: span.id, record: try store.value(span.range), products: try store.value(products))
        }
    }

    /// Every customer id, in store order (shell completion). The store must be valid JSON.
    public func customerIds() throws -> [ID] {
        let store = try ScannedStore.scan(path: path, ids: [], collectAll: true)
        return try store.file.reading { store.index.all.map(\.id) }
    }

    /// Ids, then aliases, in store order: one scan (only a USER not found pays for it).
    public func customerNames() throws -> [ID] {
        let store = try ScannedStore.scan(path: path, ids: [], collectAll: true)
        return try store.file.reading { store.index.all.map(\.id) + store.index.allAliases.map(\.alias) }
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
        try StoreWriter(path: path, lockTimeout: lockTimeout).applyEachReporting(requests, now: now, willCommit: willCommit)
    }

    /// Applies a grant or revoke to every customer named (one atomic write), or to none.
    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws -> ChangeResult {
        try StoreWriter(path: path, lockTimeout: lockTimeout, pause: writePause).apply(change, to: ids, now: now, dryRun: dryRun)
    }
}

/// A customer as the store holds it, with the catalog (the subs REST API's GET answer).
public struct StoredRecord: Sendable {
    public var id: ID
    public var record: JSONValue
    public var products: JSONValue
    /// A grant with `create` made this customer.
    public var created = false
}
