// An IAPHUB user's purchases (IAPHUBPurchases.swift) as subs' history and renewal counts. Each
// purchase is one store transaction; an auto-renewable subscription's purchases share their
// `originalPurchase`, the chain's first purchase. Pure (fuzzed with the listing's decoder).

public enum IAPHUBPurchaseHistory {
    /// The indices of the purchases, oldest first; equal dates keep the listing's order.
    /// Indices, not copies: a listing may hold hundreds of thousands of purchases.
    static func oldestFirst(_ purchases: [IAPHUBPurchase]) -> [Int] {
        purchases.indices.sorted { a, b in
            purchases[a].purchaseDate != purchases[b].purchaseDate ? purchases[a].purchaseDate < purchases[b].purchaseDate : a < b
        }
    }

    /// Which purchases of `order` (indices, oldest first) replaced their subscription with a new one of
    /// another product: IAPHUB's `subscription_replace` ("a subscription has been replaced by a new
    /// subscription with a different product"), which IAPHUB does not count as a renewal. Such a
    /// purchase stays in its chain (`originalPurchase`) and follows the replaced one
    /// (`linkedPurchase`); IAPHUB marks it with `subscriptionProrationMode`, and its product is not
    /// the one of the purchase it follows (`linkedPurchase`, else the chain's previous purchase).
    /// Products compare by `productSku`, as IAPHUB's sample server tells a replace (its `product`
    /// id stays the same in IAPHUB's own examples of a replace), else by `product`.
    static func replacements(_ purchases: [IAPHUBPurchase], _ order: [Int]) -> Set<ID> {
        let subscriptions = order.filter { purchases[$0].productType == "renewable_subscription" }
        // A replace may carry its predecessor's very purchaseDate (IAPHUB's sample server does):
        // the linked purchase is looked up wherever it stands in the listing.
        var byId: [ID: Int] = [:]
        for i in subscriptions where byId[purchases[i].id] == nil { byId[purchases[i].id] = i }
        var lastOfChain: [ID: Int] = [:]
        var replaced: Set<ID> = []
        for i in subscriptions {
            let p = purchases[i]
            let before = p.linkedPurchase.flatMap { byId[$0] } ?? lastOfChain[p.chainId]
            if p.isRenewal && (p.subscriptionProrationMode != nil || before.map { otherProduct(p, than: purchases[$0]) } == true) {
                replaced.insert(p.id)
            }
            lastOfChain[p.chainId] = i
        }
        return replaced
    }

    /// Whether two purchases are of different products: their skus differ, else (one has none)
    /// their IAPHUB product ids.
    static func otherProduct(_ a: IAPHUBPurchase, than b: IAPHUBPurchase) -> Bool {
        if let x = a.productSku, let y = b.productSku { return !x.utf8.elementsEqual(y.utf8) }
        if let x = a.product, let y = b.product { return !x.utf8.elementsEqual(y.utf8) }
        return false
    }

    /// The transaction type a purchase's place in its chain gives it (SPEC section 2's types); a
    /// replace starts the new product's subscription.
    static func type(_ p: IAPHUBPurchase, replace: Bool = false) -> TransactionType {
        switch p.productType {
        case "consumable": return .consumablePurchase
        case "non_consumable": return .nonConsumablePurchase
        case "renewable_subscription":
            if p.isRenewal && !replace { return p.subscriptionPeriodType == "intro" ? .introRenewed : .subscriptionRenewed }
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

    /// The history entries dated by until (its whole second), oldest first: one `transaction` per
    /// purchase and a `refund` at each refundDate. `sandbox`: the environment asked for is not
    /// production (a purchase's own `isSandbox` wins when it says).
    public static func entries(_ purchases: [IAPHUBPurchase], sandbox: Bool, until: Instant) -> [HistoryEntry] {
        var out: [HistoryEntry] = []
        out.reserveCapacity(purchases.count)
        let order = oldestFirst(purchases)
        let replaced = replacements(purchases, order)
        for i in order {
            let p = purchases[i]
            let type = type(p, replace: replaced.contains(p.id))
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
        // Sorted by their indices: the entries themselves are copied once.
        return out.indices.filter { out[$0].date.hasHappened(by: until) }
            .sorted { a, b in out[a].date != out[b].date ? out[a].date < out[b].date : a < b }
            .map { out[$0] }
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
    static func chain(of product: IAPHUBProduct, key: ID, in purchases: [IAPHUBPurchase], _ order: [Int]) -> ID? {
        if let original = product.originalPurchase, !original.isEmpty { return original }
        if let purchase = product.purchase, !purchase.isEmpty {
            return order.first { purchases[$0].id == purchase }.map { purchases[$0].chainId } ?? purchase
        }
        return order.last { purchases[$0].entitlementId == key && purchases[$0].productType == "renewable_subscription" }
            .map { purchases[$0].chainId }
    }

    /// renewsCount of each entitlement `check` shows (key → the product describing it), in IAPHUB's
    /// meaning of a renewal (its `subscription_renewal`, a trial's conversion included; never the
    /// first purchase, nor a `subscription_replace`): for an auto-renewable subscription, the
    /// purchases of its chain that are renewals (not the chain's first, not a replace), paid and
    /// not refunded by `until`, dated by until; 0 for a non-consumable or a non-renewing
    /// subscription; nil when no purchase of its chain is listed.
    public static func renewsCounts(_ purchases: [IAPHUBPurchase], products: [ID: IAPHUBProduct],
                                    until: Instant) -> [ID: Int?] {
        let order = oldestFirst(purchases).filter { purchases[$0].purchaseDate.hasHappened(by: until) }
        let replaced = replacements(purchases, order)
        var counts: [ID: Int?] = [:]
        for (key, product) in products {
            guard product.type == "renewable_subscription" else { counts[key] = 0; continue }
            guard let chain = chain(of: product, key: key, in: purchases, order) else { counts[key] = .some(nil); continue }
            let members = order.filter { purchases[$0].productType == "renewable_subscription" && purchases[$0].chainId == chain }
            guard !members.isEmpty else { counts[key] = .some(nil); continue }
            counts[key] = members.filter { i in
                let p = purchases[i]
                return p.isRenewal && !replaced.contains(p.id) && p.isPaid
                    && !(p.isRefunded && (p.refundDate.map { $0.hasHappened(by: until) } ?? true))
            }.count
        }
        return counts
    }
}
