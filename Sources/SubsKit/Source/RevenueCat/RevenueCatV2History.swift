// The history RevenueCat's API v2 can tell: each store transaction of an App Store or Play Store
// subscription, the start and current period of any other subscription, a promotional grant, and
// each one-time purchase. v2 marks no refund, trial or billing issue on a transaction, so none is
// invented: what it cannot show is said once, in the answer's incomplete reason.

extension RevenueCatV2Mapping {
    /// Entries dated by until (its whole second), oldest first (ties keep the order: subscriptions, then purchases).
    public static func history(_ r: RevenueCatV2Record, until: Instant) -> [HistoryEntry] {
        let keys = lookupKeys(r)
        let names = { (refs: [RevenueCatV2EntitlementRef]) in Array(Set(refs.map { keys[$0.id] ?? $0.id })).sorted() }
        var all: [HistoryEntry] = []
        for s in r.subscriptions {
            let entitlements = names(s.entitlements)
            let environment = s.environment == "sandbox" ? "sandbox" : "production"
            let ownership = RevenueCatMapping.isFamilyShared(s.ownership) ? OwnershipType.familySharing.rawValue : OwnershipType.owner.rawValue
            let source = RevenueCatMapping.purchaseSource(s.store).rawValue
            if s.isPromotional {
                if let date = s.startsAt {
                    all.append(HistoryEntry(date: date, kind: .grant, type: "granted", entitlements: entitlements, fields: [
                        ("grantId", .string(s.id.string)), ("expirationDate", .date(s.endsAt ?? s.currentPeriodEndsAt)),
                        ("grantedBy", .string(nil)), ("reason", .string(nil)),
                    ]))
                }
                continue
            }
            if let chain = r.transactions[s.id], !chain.isEmpty {
                let original = chain[0].id
                for (i, t) in chain.enumerated() {
                    // Only a subscription in its trial now says its first period is one.
                    let type: TransactionType = i > 0 ? .subscriptionRenewed
                        : s.status == "trialing" && chain.count == 1 ? .trialStarted : .subscriptionStarted
                    all.append(entry(date: t.purchasedAt, type: type, entitlements: entitlements, transactionId: t.id,
                                     originalTransactionId: original, productId: t.productStoreIdentifier ?? s.productId,
                                     expiration: t.expirationDate, source: source, environment: environment,
                                     ownership: ownership, money: t.revenue))
                }
                continue
            }
            // No transaction list (Stripe, Amazon, Web Billing; or none answered): the start, and
            // the current period when it began later — a renewal or a resubscription, v2 does not say.
            guard let start = s.startsAt else { continue }
            let renewedSince = s.currentPeriodStartsAt.map { $0 > start } ?? false
            all.append(entry(date: start, type: !renewedSince && s.status == "trialing" ? .trialStarted : .subscriptionStarted,
                             entitlements: entitlements, transactionId: renewedSince ? nil : s.storeSubscriptionIdentifier.map { ID($0) },
                             originalTransactionId: nil, productId: s.productId,
                             expiration: renewedSince ? nil : s.currentPeriodEndsAt, source: source, environment: environment,
                             ownership: ownership, money: nil))
            if renewedSince, let current = s.currentPeriodStartsAt {
                all.append(entry(date: current, type: s.status == "trialing" ? .trialStarted : .subscriptionRenewed,
                                 entitlements: entitlements, transactionId: s.storeSubscriptionIdentifier.map { ID($0) },
                                 originalTransactionId: nil, productId: s.productId, expiration: s.currentPeriodEndsAt,
                                 source: source, environment: environment, ownership: ownership, money: nil))
            }
        }
        for p in r.purchases {
            guard let date = p.purchasedAt else { continue }
            let entitlements = names(p.entitlements)
            // v2 does not say whether a product is consumable: one that unlocks nothing is taken as one (as for v1).
            let type: TransactionType = entitlements.isEmpty ? .consumablePurchase : .nonConsumablePurchase
            let purchaseId = p.storePurchaseIdentifier.map { ID($0) } ?? p.id
            all.append(entry(date: date, type: type, entitlements: entitlements, transactionId: purchaseId,
                             originalTransactionId: purchaseId, productId: p.productId, expiration: nil,
                             source: RevenueCatMapping.purchaseSource(p.store).rawValue,
                             environment: p.environment == "sandbox" ? "sandbox" : "production",
                             ownership: RevenueCatMapping.isFamilyShared(p.ownership) ? OwnershipType.familySharing.rawValue : OwnershipType.owner.rawValue,
                             money: p.revenue))
        }
        // Sorted by their indices: the entries themselves are copied once.
        return all.indices.filter { all[$0].date.hasHappened(by: until) }
            .sorted { a, b in all[a].date != all[b].date ? all[a].date < all[b].date : a < b }
            .map { all[$0] }
    }

    private static func entry(date: Instant, type: TransactionType, entitlements: [ID], transactionId: ID?,
                              originalTransactionId: ID?, productId: ID?, expiration: Instant?, source: String,
                              environment: String, ownership: String, money: RevenueCatV2Money?) -> HistoryEntry {
        HistoryEntry(date: date, kind: .transaction, type: type.rawValue, entitlements: entitlements, fields: [
            ("transactionId", .string(transactionId?.string)),
            ("originalTransactionId", .string(originalTransactionId?.string)),
            ("productId", .string(productId?.string)),
            ("expirationDate", .date(type.isSubscription ? expiration : nil)),
            ("source", .string(source)),
            ("environment", .string(environment)),
            ("ownershipType", .string(ownership)),
            ("offerCode", .string(nil)),
            ("price", .string(money?.gross)),
            ("currency", .string(money?.gross == nil ? nil : money?.currency)),
        ])
    }

    /// Why the history is not the whole story, in one sentence: what v2 never shows, the
    /// subscriptions it lists no transactions for, refunded purchases (v2 gives no refund date),
    /// and lists not read to their end.
    public static func incompleteReason(_ r: RevenueCatV2Record) -> String {
        var parts = ["RevenueCat's API v2 marks no refund, free trial, cancellation or billing issue on a subscription's "
                     + "transactions, so none is shown"]
        let untold = Set(r.subscriptions.filter { !$0.isPromotional && !$0.hasStoreTransactions }
            .map { storeName($0.store) }).sorted()
        if !untold.isEmpty {
            parts.append("it lists no renewals of \(untold.joined(separator: ", ")) subscriptions (only their start and current period)")
        }
        let refunded = r.purchases.filter { $0.status == "refunded" }
        if !refunded.isEmpty {
            parts.append("\(refunded.count) one-time purchase\(refunded.count == 1 ? " is" : "s are") marked refunded without a date ("
                         + refunded.map { $0.storePurchaseIdentifier ?? $0.id.string }.joined(separator: ", ") + ")")
        }
        parts += r.unfinished
        return parts.joined(separator: "; ")
    }

    static func storeName(_ store: String?) -> String {
        switch store {
        case "stripe": return "Stripe"
        case "amazon": return "Amazon"
        case "rc_billing": return "Web Billing"
        case "mac_app_store": return "Mac App Store"
        case "app_store": return "App Store"
        case "play_store": return "Play Store"
        case let other?: return other
        case nil: return "unknown-store"
        }
    }
}
