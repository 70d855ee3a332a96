// The part of a customer record that exists at an instant T (SPEC section 3): records dated
// after T are dropped, and revocations dated after T have not happened yet.

/// A record together with its position in the customer's array (store order breaks ties).
struct Indexed<Record> {
    let index: Int
    let record: Record
}

struct RecordsAsOf {
    /// Transactions with transactionDate <= T, store order; a revocation after T is cleared.
    let transactions: [Indexed<Transaction>]
    /// Events with date <= T, store order.
    let events: [SubscriptionEvent]
    /// Grants with grantedAt <= T, store order; a revocation after T is cleared.
    let grants: [Indexed<Grant>]

    init(_ customer: CustomerRecord, at t: Instant) {
        transactions = customer.transactions.enumerated().compactMap { index, transaction in
            guard transaction.transactionDate <= t else { return nil }
            var visible = transaction
            if let revoked = visible.revocationDate, revoked > t { visible.revocationDate = nil }
            return Indexed(index: index, record: visible)
        }
        events = customer.events.filter { $0.date <= t }
        grants = customer.grants.enumerated().compactMap { index, grant in
            guard grant.grantedAt <= t else { return nil }
            var visible = grant
            if let revoked = visible.revokedAt, revoked > t {
                visible.revokedAt = nil
                visible.revokedBy = nil
                visible.revokeReason = nil
            }
            return Indexed(index: index, record: visible)
        }
    }
}

extension Sequence {
    /// The element with the latest date; among equal dates the last one met, so that passing
    /// records in store order makes "later in the store" win ties.
    func latest(by date: (Element) -> Instant) -> Element? {
        var best: Element?
        for element in self where best.map({ date(element) >= date($0) }) ?? true {
            best = element
        }
        return best
    }
}
