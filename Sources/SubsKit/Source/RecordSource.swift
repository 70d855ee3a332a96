// The record-backed source: customer records and a catalog from a RecordStore (the local
// store, the subs REST API), answered with the entitlement rules and History — the same
// answers whichever store the records come from.

public struct RecordSource: CustomerSource {
    public let records: RecordStore
    public let clock: any Clock

    public init(records: RecordStore, clock: any Clock) {
        self.records = records
        self.clock = clock
    }

    public var capabilities: SourceCapabilities { .all }

    public func statuses(of ids: [String], at t: Instant?) throws -> StatusAnswer {
        let lookup = try records.lookup(ids)
        let at = t ?? lookup.requestDate ?? clock.now()
        let statuses = zip(ids, lookup.records).map { id, record in
            record.map { (requestedId: id, record: $0) }
        }
        let evaluated = statuses.concurrentMap { pair in
            pair.map { EntitlementRules.status(of: $0.record, requestedAs: $0.requestedId, catalog: lookup.catalog, at: at) }
        }
        return StatusAnswer(requestDate: at, statuses: evaluated,
                            knownEntitlements: Set(lookup.catalog.entitlementIds), notes: records.takeNotes())
    }

    public func history(of id: String, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        let lookup = try records.lookup([id])
        guard let record = lookup.records.first ?? nil else { return nil }
        let at = t ?? lookup.requestDate ?? clock.now()
        return HistoryAnswer(requestDate: at, customerId: record.id, provider: records.provider,
                             entries: History.entries(of: record, catalog: lookup.catalog, until: until ?? at),
                             notes: records.takeNotes())
    }

    public func apply(_ change: CustomerChange, to ids: [String], now: Instant, at t: Instant?,
                      dryRun: Bool) throws -> ChangeAnswer {
        let written = try records.apply(change, to: ids, now: now, dryRun: dryRun)
        let at = t ?? now
        let customers = written.customers.map { customer in
            (change: customer,
             status: EntitlementRules.evaluate(customer.record, catalog: written.catalog, at: at)
                .first { $0.id == change.entitlement })
        }
        return ChangeAnswer(requestDate: at, customers: customers, notes: records.takeNotes())
    }

    public func customerIds() throws -> [String] {
        try records.customerIds()
    }

    public func entitlementIds() throws -> [String] {
        try records.lookup([]).catalog.entitlementIds
    }
}
