// `renew-count USER` without an entitlement (SPEC section 4, rev. 4): the customer's renewals
// across all subscription chains, each renewal once whatever it unlocks — so a chain that
// unlocks two entitlements is not counted twice, and a product change inside a chain keeps
// the chain's whole count.

extension CustomerStatus {
    /// Renewals across every subscription chain at `requestDate`: per chain, its paid
    /// transactions (not trials, not refunded by T) minus one, at least 0, summed. From the
    /// records when the source has them; a platform's answer without transactions sums its
    /// entitlements' counts, once per chain (by original transaction, else by product), and is
    /// null when one of them is unknown.
    public var renewalsAcrossChains: Int? {
        let t = requestDate
        let subscriptions = record.transactions.filter { $0.type.isSubscription && $0.transactionDate <= t }
        if !subscriptions.isEmpty {
            // Chains are keyed by their id's bytes (ID: SPEC section 7).
            var paid: [ID: Int] = [:]
            for transaction in subscriptions {
                let chain = transaction.originalTransactionId
                let refunded = transaction.revocationDate.map { $0 <= t } ?? false
                let counts = transaction.type != .trialStarted && !refunded
                paid[chain, default: 0] += counts ? 1 : 0
            }
            return paid.values.reduce(0) { $0 + max($1 - 1, 0) }
        }
        enum ChainKey: Hashable {
            case chain(ID)
            case product(ID?, EntitlementSource)
        }
        var perChain: [ChainKey: Int] = [:]
        for e in entitlements where e.sourceKind == .chain {
            guard let count = e.renewsCount else { return nil }
            let key = e.transactions.last.map { ChainKey.chain($0.originalTransactionId) } ?? .product(e.productId, e.source)
            perChain[key] = max(perChain[key] ?? 0, count)
        }
        return perChain.values.reduce(0, +)
    }
}
