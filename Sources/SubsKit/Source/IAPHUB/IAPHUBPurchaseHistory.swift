// An IAPHUB user's purchases (IAPHUBPurchases.swift) as subs' history and renewal counts. Each
// purchase is one store transaction; an auto-renewable subscription's purchases share their
// `originalPurchase`, the chain's first purchase. Pure (fuzzed with the listing's decoder).

public enum IAPHUBPurchaseHistory {
    /// Purchases oldest first; equal dates keep the listing's order.
    static func oldestFirst(_ purchases: [IAPHUBPurchase]) -> [IAPHUBPurchase] {
        purchases.enumerated()
            .sorted { a, b in a.element.purchaseDate != b.element.purchaseDate ? a.element.purchaseDate < b.element.purchaseDate : a.offset < b.offset }
            .map(\.element)
    }

    /// The transaction type a purchase's place in its chain gives it (SPEC section 2's types).
    static func type(_ p: IAPHUBPurchase) -> TransactionType {
        switch p.productType {
        case "consumable": return .consumablePurchase
        case "non_consumable": return .nonConsumablePurchase
        case "renewable_subscription":
            if p.isRenewal { return p.subscriptionPeriodType == "intro" ? .introRenewed : .subscriptionRenewed }
            switch p.subscriptionPeriodType {
            case "trial": return .trialStarted
            case "intro": return .introStarted
            default: return .subscriptionStarted
            }
        default:
            // A non-renewing subscription: each purchase is a period of its own, never a renewal.
            return .subscriptionStarted
        }
    }

    static func source(_ platform: String?) -> String {
        switch platform {
        case "ios": return EntitlementSource.appstore.rawValue
        case "android": return EntitlementSource.playstore.rawValue
        case "stripe": return EntitlementSource.stripe.rawValue
        default: return EntitlementSource.unknown.rawValue
        }
    }

    /// The history entries dated <= until, oldest first: one `transaction` per purchase and a
    /// `refund` at each refundDate. `sandbox`: the environment asked for is not production (a
    /// purchase's own `isSandbox` wins when it says).
    public static func entries(_ purchases: [IAPHUBPurchase], sandbox: Bool, until: Instant) -> [HistoryEntry] {
        var out: [HistoryEntry] = []
        out.reserveCapacity(purchases.count)
        for p in oldestFirst(purchases) {
            let type = type(p)
            let entitlements = p.entitlementId.map { [$0] } ?? []
            let chain = p.productType == "renewable_subscription" ? p.chainId : p.id
            out.append(HistoryEntry(date: p.purchaseDate, kind: .transaction, type: type.rawValue, entitlements: entitlements, fields: [
                ("transactionId", .string(p.id.string)),
                ("originalTransactionId", .string(chain.string)),
                ("productId", .string((p.productSku ?? p.product)?.string)),
                ("expirationDate", .date(type.isSubscription ? p.expirationDate : nil)),
                ("source", .string(source(p.platform))),
                ("environment", .string((p.isSandbox ?? sandbox) ? PurchaseEnvironment.sandbox.rawValue : PurchaseEnvironment.production.rawValue)),
                // A purchase in IAPHUB's listing says nothing of family sharing.
                ("ownershipType", .string(nil)),
                ("offerCode", .string(p.promoCode)),
                ("price", .string(p.price)),
                ("currency", .string(p.price == nil ? nil : p.currency)),
            ]))
            if p.isRefunded, let refunded = p.refundDate {
                out.append(HistoryEntry(date: refunded, kind: .refund, type: "revoked", entitlements: entitlements, fields: [
                    ("transactionId", .string(p.id.string)),
                    ("productId", .string((p.productSku ?? p.product)?.string)),
                ]))
            }
        }
        return out.enumerated()
            .filter { $0.element.date <= until }
            .sorted { a, b in a.element.date != b.element.date ? a.element.date < b.element.date : a.offset < b.offset }
            .map(\.element)
    }

    /// What the listing cannot show, or nil: refunds without a date (no entry can be dated).
    public static func untold(_ purchases: [IAPHUBPurchase]) -> String? {
        let undated = purchases.filter { $0.isRefunded && $0.refundDate == nil }.map(\.id)
        guard !undated.isEmpty else { return nil }
        return "\(undated.count) purchase\(undated.count == 1 ? " is" : "s are") marked refunded without a refundDate ("
            + undated.strings.joined(separator: ", ") + "), so no refund entry is shown for \(undated.count == 1 ? "it" : "them")"
    }

    /// The chain an entitlement's product is in: the user answer's `originalPurchase`, else its
    /// `purchase` (a first purchase), else — the answer naming neither — the chain of the latest
    /// listed purchase with the entitlement's key.
    static func chain(of product: IAPHUBProduct, key: ID, in ordered: [IAPHUBPurchase]) -> ID? {
        if let original = product.originalPurchase, !original.isEmpty { return original }
        if let purchase = product.purchase, !purchase.isEmpty {
            return ordered.first { $0.id == purchase }?.chainId ?? purchase
        }
        return ordered.last { $0.entitlementId == key && $0.productType == "renewable_subscription" }?.chainId
    }

    /// renewsCount of each entitlement `check` shows (key → the product describing it): for an
    /// auto-renewable subscription, the purchases of its chain that are renewals (not the chain's
    /// first), paid and not refunded by `until`, dated <= until; 0 for a non-consumable or a
    /// non-renewing subscription; nil when no purchase of its chain is listed.
    public static func renewsCounts(_ purchases: [IAPHUBPurchase], products: [ID: IAPHUBProduct],
                                    until: Instant) -> [ID: Int?] {
        let ordered = oldestFirst(purchases).filter { $0.purchaseDate <= until }
        var counts: [ID: Int?] = [:]
        for (key, product) in products {
            guard product.type == "renewable_subscription" else { counts[key] = 0; continue }
            guard let chain = chain(of: product, key: key, in: ordered) else { counts[key] = .some(nil); continue }
            let members = ordered.filter { $0.productType == "renewable_subscription" && $0.chainId == chain }
            guard !members.isEmpty else { counts[key] = .some(nil); continue }
            counts[key] = members.filter { p in
                p.isRenewal && p.isPaid && !(p.isRefunded && (p.refundDate.map { $0 <= until } ?? true))
            }.count
        }
        return counts
    }
}
