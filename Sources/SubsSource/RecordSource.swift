// The record-backed source: customer records and a catalog from a RecordStore (the local
// store, the subs REST API), answered with the entitlement rules and History — the same
// answers whichever store the records come from.

import SubsSystem
import SubsModel

public struct RecordSource: CustomerSource {
    public let records: RecordStore
    public let clock: any Clock

    public init(records: RecordStore, clock: any Clock) {
        self.records = records
        self.clock = clock
    }

    public var capabilities: SourceCapabilities { .all }

    public func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        try statuses(of: ids, at: t, counting: .any)
    }

    /// Records of the other environment are left out before the rules run, so a production
    /// chain that expired still describes an entitlement a sandbox purchase keeps active.
    /// One scan of the records for every id; the answer's notes go with the first.
    public func renewalCounts(of ids: [ID], at t: Instant?) throws -> [StatusAnswer] {
        let answer = try statuses(of: ids, at: t)
        return answer.statuses.enumerated().map { index, status in
            var one = answer
            one.statuses = [status]
            one.unanswered = answer.unanswered[index].map { [0: $0] } ?? [:]
            if index > 0 { one.remarks = Remarks() }
            return one
        }
    }

    public func statuses(of ids: [ID], at t: Instant?, counting environment: EnvironmentFilter) throws -> StatusAnswer {
        let lookup = try records.lookup(ids)
        let at = t ?? lookup.requestDate ?? clock.now()
        let statuses = zip(ids, lookup.records).map { id, record in
            record.map { (requestedId: id, record: $0) }
        }
        let evaluated = statuses.concurrentMap { pair in
            pair.map { EntitlementRules.status(of: $0.record, requestedAs: $0.requestedId, catalog: lookup.catalog, at: at,
                                               counting: environment) }
        }
        return StatusAnswer(requestDate: at, statuses: evaluated,
                            knownEntitlements: Set(lookup.catalog.entitlementIds), remarks: records.takeRemarks(),
                            unanswered: lookup.unanswered)
    }

    public func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        let lookup = try records.lookup([id])
        guard let record = lookup.records.first ?? nil else { return nil }
        let at = t ?? lookup.requestDate ?? clock.now()
        let end = until ?? at
        return HistoryAnswer(requestDate: at, customerId: record.id, provider: records.provider,
                             entries: History.entries(of: record, catalog: lookup.catalog, until: end),
                             remarks: records.takeRemarks(), knownEntitlements: Set(lookup.catalog.entitlementIds),
                             catalog: lookup.catalog,
                             accessEnds: AccessEnds.of(record, catalog: lookup.catalog, until: end))
    }

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?,
                      dryRun: Bool) throws -> ChangeAnswer {
        let written = try records.apply(change, to: ids, now: now, dryRun: dryRun)
        let at = t ?? now
        let customers = written.customers.map { customer in
            (change: customer,
             status: EntitlementRules.evaluate(customer.record, catalog: written.catalog, at: at)
                .first { $0.id == change.entitlement })
        }
        return ChangeAnswer(requestDate: at, customers: customers, remarks: records.takeRemarks())
    }

    public func customerIds() throws -> [ID] {
        try records.customerIds()
    }

    public func customerNames() throws -> [ID] {
        try records.customerNames()
    }

    public func entitlementIds() throws -> [ID] {
        try records.lookup([]).catalog.entitlementIds
    }
}
