// The entitlement rules of SPEC section 3: a pure function of (customer record, catalog, T).
// Gathers each entitlement's sources at T and picks the one that describes it.

public enum EntitlementRules {
    /// Every entitlement the customer has a source for at T, sorted by id.
    public static func evaluate(_ customer: CustomerRecord, catalog: Catalog, at t: Instant) -> [EntitlementInfo] {
        let records = RecordsAsOf(customer, at: t)
        var candidates: [ID: [SourceCandidate]] = [:]

        for (entitlement, chain) in chains(records, catalog: catalog) {
            if let candidate = chain.candidate(entitlement: entitlement, catalog: catalog, at: t) {
                candidates[entitlement, default: []].append(candidate)
            }
        }
        for purchase in records.transactions where purchase.record.type == .nonConsumablePurchase {
            for entitlement in unlocked(by: purchase.record, catalog: catalog) {
                candidates[entitlement, default: []].append(.purchase(purchase, entitlement: entitlement))
            }
        }
        for grant in records.grants {
            candidates[grant.record.entitlement, default: []].append(.grant(grant, at: t))
        }

        return candidates.keys.sorted().compactMap { withOthers(candidates[$0]!) }
    }

    /// The describing source's fields, with every other active source listed beside them.
    static func withOthers(_ candidates: [SourceCandidate]) -> EntitlementInfo? {
        guard let chosen = describingIndex(candidates) else { return nil }
        var info = candidates[chosen].info
        info.otherActiveSources = candidates.indices
            .filter { $0 != chosen && candidates[$0].info.isActive }
            .map { OtherActiveSource(candidates[$0].info) }
        return info
    }

    public static func status(of customer: CustomerRecord, requestedAs requestedId: ID? = nil,
                              catalog: Catalog, at t: Instant,
                              counting environment: EnvironmentFilter = .any) -> CustomerStatus {
        var counted = customer
        if let only = environment.environment { counted.transactions.removeAll { $0.environment != only } }
        return CustomerStatus(record: customer, requestedId: requestedId, requestDate: t,
                              entitlements: evaluate(counted, catalog: catalog, at: t),
                              spending: Spent.spending(of: counted, at: t))
    }

    /// The active source with the latest end if any source is active, else the source with the
    /// latest end; ties as `SourceCandidate.isPreferred(over:)` says. nil for no candidates.
    static func describingIndex(_ candidates: [SourceCandidate]) -> Int? {
        let active = candidates.indices.filter { candidates[$0].info.isActive }
        let pool = active.isEmpty ? Array(candidates.indices) : active
        return pool.dropFirst().reduce(pool.first) { best, next in
            guard let best else { return next }
            return candidates[next].isPreferred(over: candidates[best]) ? next : best
        }
    }

    /// Chains per entitlement: subscription transactions grouped by originalTransactionId,
    /// keeping for entitlement E only those whose product unlocks E. Each chain comes once per
    /// entitlement, in the order of its first transaction.
    static func chains(_ records: RecordsAsOf, catalog: Catalog) -> [(ID, Chain)] {
        struct ChainKey: Hashable {
            let entitlement: ID
            let chainId: ID
        }
        var order: [ChainKey] = []
        var members: [ChainKey: [Indexed<Transaction>]] = [:]
        for transaction in records.transactions where transaction.record.type.isSubscription {
            for entitlement in unlocked(by: transaction.record, catalog: catalog) {
                let key = ChainKey(entitlement: entitlement, chainId: transaction.record.originalTransactionId)
                if members[key] == nil { order.append(key) }
                members[key, default: []].append(transaction)
            }
        }
        var eventsByChain: [ID: [SubscriptionEvent]] = [:]
        for event in records.events { eventsByChain[event.originalTransactionId, default: []].append(event) }

        return order.map { key in
            (key.entitlement, Chain(originalTransactionId: key.chainId, members: members[key]!,
                                    events: eventsByChain[key.chainId] ?? []))
        }
    }

    /// Entitlements a transaction's product unlocks, each once. Consumables unlock nothing, and a
    /// product missing from the catalog (a data error the store reports) unlocks nothing either.
    static func unlocked(by transaction: Transaction, catalog: Catalog) -> [ID] {
        guard transaction.type != .consumablePurchase else { return [] }
        return catalog.entitlements(unlockedBy: transaction.productId)
    }
}
