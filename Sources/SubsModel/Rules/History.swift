// A customer's history (SPEC section 4, `history` document): every record dated <= until,
// oldest first, with the keys each kind of entry carries.

public enum History {
    /// The entries `history --since DATE --entitlement ID` shows, and its route over HTTP: those
    /// dated from `since` on that concern `entitlement` (nil: no bound, every entitlement).
    public static func selected(_ entries: [HistoryEntry], since: Instant?, entitlement: ID?) -> [HistoryEntry] {
        guard since != nil || entitlement != nil else { return entries }
        return entries.filter { entry in
            (since.map { entry.date >= $0 } ?? true) && (entitlement.map { entry.entitlements.contains($0) } ?? true)
        }
    }

    /// Entries dated <= until, oldest first. Equal dates keep store order, which is: every
    /// transaction in array order, each followed by its refund; then events; then grants, each
    /// grant's "granted" before its "revoked".
    public static func entries(of customer: CustomerRecord, catalog: Catalog, until: Instant) -> [HistoryEntry] {
        var all: [HistoryEntry] = []
        all.reserveCapacity(customer.transactions.count + customer.events.count + customer.grants.count)
        // Per product, what it unlocks (sorted), computed once: work stays linear in the records.
        var byProduct: [ID: [ID]] = [:]
        func unlockedSorted(_ transaction: Transaction) -> [ID] {
            if transaction.type == .consumablePurchase { return [] }
            if let known = byProduct[transaction.productId] { return known }
            let entitlements = concerned(by: [transaction], catalog: catalog)
            byProduct[transaction.productId] = entitlements
            return entitlements
        }
        for transaction in customer.transactions {
            let entitlements = unlockedSorted(transaction)
            all.append(HistoryEntry(
                date: transaction.transactionDate, kind: .transaction, type: transaction.type.rawValue,
                entitlements: entitlements,
                fields: [
                    ("transactionId", .string(transaction.transactionId.string)),
                    ("originalTransactionId", .string(transaction.originalTransactionId.string)),
                    ("productId", .string(transaction.productId.string)),
                    ("expirationDate", .date(transaction.expirationDate)),
                    ("source", .string(transaction.source.rawValue)),
                    ("environment", .string(transaction.environment.rawValue)),
                    ("ownershipType", .string(transaction.ownershipType.rawValue)),
                    ("offerCode", .string(transaction.offerCode)),
                    // `priceMicros` as a decimal of its currency (SPEC section 2, rev. 4); null
                    // when the store recorded none: unknown, never guessed.
                    ("price", .string(Spent.priceText(transaction))),
                    ("currency", .string(transaction.priceMicros == nil ? nil : transaction.currency)),
                ]))
            if let revoked = transaction.revocationDate {
                all.append(HistoryEntry(
                    date: revoked, kind: .refund, type: "revoked", entitlements: entitlements,
                    fields: [
                        ("transactionId", .string(transaction.transactionId.string)),
                        ("productId", .string(transaction.productId.string)),
                    ]))
            }
        }

        // An event concerns what its chain unlocks as of the history's end, plus what the
        // product it switches to would unlock. Each chain's share is gathered in one pass.
        var chainProducts: [ID: Set<ID>] = [:]
        for transaction in customer.transactions
        where transaction.type.isSubscription && transaction.transactionDate <= until {
            chainProducts[transaction.originalTransactionId, default: []].insert(transaction.productId)
        }
        var byChain: [ID: [ID]] = [:]
        for event in customer.events {
            let chainId = event.originalTransactionId
            var entitlements: [ID]
            if let known = byChain[chainId] {
                entitlements = known
            } else {
                let products = chainProducts[chainId] ?? []
                entitlements = Array(Set(products.flatMap { catalog.entitlements(unlockedBy: $0) })).sorted()
                byChain[chainId] = entitlements
            }
            var fields: [(key: String, value: HistoryValue)] = [
                ("originalTransactionId", .string(event.originalTransactionId.string)),
            ]
            switch event.type {
            case .renewalProductChanged:
                fields.append(("productId", .string(event.productId?.string)))
                if let next = event.productId.flatMap({ catalog[$0] }) {
                    entitlements = Array(Set(entitlements + next.entitlements)).sorted()
                }
            case .pauseScheduled:
                fields.append(("autoResumeDate", .date(event.autoResumeDate)))
            default:
                break
            }
            all.append(HistoryEntry(date: event.date, kind: .event, type: event.type.rawValue,
                                    entitlements: entitlements, fields: fields))
        }

        for grant in customer.grants {
            all.append(HistoryEntry(
                date: grant.grantedAt, kind: .grant, type: "granted", entitlements: [grant.entitlement],
                fields: [
                    ("grantId", .string(grant.id.string)),
                    ("expirationDate", .date(grant.expirationDate)),
                    ("grantedBy", .string(grant.grantedBy)),
                    ("reason", .string(grant.reason)),
                ]))
            if let revoked = grant.revokedAt {
                all.append(HistoryEntry(
                    date: revoked, kind: .grant, type: "revoked", entitlements: [grant.entitlement],
                    fields: [
                        ("grantId", .string(grant.id.string)),
                        ("revokedBy", .string(grant.revokedBy)),
                        ("revokeReason", .string(grant.revokeReason)),
                    ]))
            }
        }

        // Sort on (date, position) so equal dates keep store order whatever the sort algorithm.
        return all.enumerated()
            .filter { $0.element.date <= until }
            .sorted { a, b in a.element.date != b.element.date ? a.element.date < b.element.date : a.offset < b.offset }
            .map(\.element)
    }

    /// Entitlements the transactions' products unlock, sorted; consumables unlock nothing.
    private static func concerned(by transactions: [Transaction], catalog: Catalog) -> [ID] {
        Array(Set(transactions.flatMap { EntitlementRules.unlocked(by: $0, catalog: catalog) })).sorted()
    }
}
