// An IAPHUB user's purchases (IAPHUBPurchases.swift) as subs' history and renewal counts. Each
// purchase is one store transaction; an auto-renewable subscription's purchases share their
// `originalPurchase`, the chain's first purchase. Pure (fuzzed with the listing's decoder).

import SubsModel

public enum IAPHUBPurchaseHistory {
    /// Purchases oldest first; equal dates keep the listing's order.
    static func oldestFirst(_ purchases: [IAPHUBPurchase]) -> [IAPHUBPurchase] {
        purchases.enumerated()
            .sorted { a, b in a.element.purchaseDate != b.element.purchaseDate ? a.element.purchaseDate < b.element.purchaseDate : a.offset < b.offset }
            .map(\.element)
    }

    /// Which purchases of `ordered` (oldest first) replaced their subscription with a new one of
    /// another product: IAPHUB's `subscription_replace` ("a subscription has been replaced by a new
    /// subscription with a different product"), which IAPHUB does not count as a renewal. Such a
    /// purchase stays in its chain (`originalPurchase`) and follows the replaced one
    /// (`linkedPurchase`); IAPHUB marks it with `subscriptionProrationMode`, and its product is not
    /// the one of the purchase it follows (`linkedPurchase`, else the chain's previous purchase).
    /// Products compare by `productSku`, as IAPHUB's sample server tells a replace (its `product`
    /// id stays the same in IAPHUB's own examples of a replace), else by `product`.
    static func replacements(_ ordered: [IAPHUBPurchase]) -> Set<[UInt8]> {
        let subscriptions = ordered.filter { $0.productType == "renewable_subscription" }
        // A replace may carry its predecessor's very purchaseDate (IAPHUB's sample server does):
        // the linked purchase is looked up wherever it stands in the listing.
        var byId: [[UInt8]: IAPHUBPurchase] = [:]
        for p in subscriptions { byId[Array(p.id.utf8)] = byId[Array(p.id.utf8)] ?? p }
        var lastOfChain: [[UInt8]: IAPHUBPurchase] = [:]
        var replaced: Set<[UInt8]> = []
        for p in subscriptions {
            let chain = Array(p.chainId.utf8)
            let before = p.linkedPurchase.flatMap { byId[Array($0.utf8)] } ?? lastOfChain[chain]
            if p.isRenewal && (p.subscriptionProrationMode != nil || before.map { otherProduct(p, than: $0) } == true) {
                replaced.insert(Array(p.id.utf8))
            }
            lastOfChain[chain] = p
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
        let ordered = oldestFirst(purchases)
        let replaced = replacements(ordered)
        for p in ordered {
            let type = type(p, replace: replaced.contains(Array(p.id.utf8)))
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
            .filter { $0.element.date.hasHappened(by: until) }
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

    /// renewsCount of each entitlement `check` shows (key → the product describing it), in IAPHUB's
    /// meaning of a renewal (its `subscription_renewal`, a trial's conversion included; never the
    /// first purchase, nor a `subscription_replace`): for an auto-renewable subscription, the
    /// purchases of its chain that are renewals (not the chain's first, not a replace), paid and
    /// not refunded by `until`, dated by until; 0 for a non-consumable or a non-renewing
    /// subscription; nil when no purchase of its chain is listed.
    public static func renewsCounts(_ purchases: [IAPHUBPurchase], products: [ID: IAPHUBProduct],
                                    until: Instant) -> [ID: Int?] {
        let ordered = oldestFirst(purchases).filter { $0.purchaseDate.hasHappened(by: until) }
        let replaced = replacements(ordered)
        var counts: [ID: Int?] = [:]
        for (key, product) in products {
            guard product.type == "renewable_subscription" else { counts[key] = 0; continue }
            guard let chain = chain(of: product, key: key, in: ordered) else { counts[key] = .some(nil); continue }
            let members = ordered.filter { $0.productType == "renewable_subscription" && $0.chainId == chain }
            guard !members.isEmpty else { counts[key] = .some(nil); continue }
            counts[key] = members.filter { p in
                p.isRenewal && !replaced.contains(Array(p.id.utf8)) && p.isPaid
                    && !(p.isRefunded && (p.refundDate.map { $0.hasHappened(by: until) } ?? true))
            }.count
        }
        return counts
    }
}
