// A Qonversion v4 user's purchases as subs' history and renewal counts (SPEC section 6, API v4).
// Only what the purchases say: v4 shows no refund, no trial and no cancellation on a purchase,
// so none is ever invented. Pure (fuzzed with the v4 decoders).

import SubsModel

public enum QonversionPurchaseHistory {
    /// The chain a purchase belongs to: the store's own key (original transaction id, Play
    /// purchase token, Stripe subscription id), else — the store data naming none — its platform
    /// and product, as purchases of one subscription product by one user renew one another.
    static func chainKey(_ p: QonversionPurchase) -> ID {
        if let id = p.chainId { return "id:\(id)" }
        return "product:\(p.platform.rawValue):\(p.productId)"
    }

    /// Whether a purchase is of `productId` (a v4 entitlement's product): the same id, or a Play
    /// base plan `{product_id}:{base_plan_id}` of it.
    static func isOf(_ p: QonversionPurchase, product productId: ID) -> Bool {
        p.productId == productId || (p.productId.hasPrefix(productId.string + ":") && !productId.isEmpty)
    }

    /// The indices of the purchases dated by `until`, oldest first; equal dates keep the reverse
    /// of the wire order (the wire is newest first). Indices, not copies: a listing may hold
    /// hundreds of thousands of purchases.
    static func oldestFirst(_ purchases: [QonversionPurchase], until: Instant) -> [Int] {
        let n = purchases.count
        return purchases.indices.reversed().filter { purchases[$0].purchasedAt.hasHappened(by: until) }
            .sorted { a, b in
                purchases[a].purchasedAt != purchases[b].purchasedAt ? purchases[a].purchasedAt < purchases[b].purchasedAt
                    : n - a < n - b
            }
    }

    /// A price of zero (a free trial or a free period) is not a paid renewal; an unknown price is
    /// taken as paid, as Qonversion records store transactions, which are charges.
    static func isPaid(_ p: QonversionPurchase) -> Bool {
        guard let price = p.price else { return true }
        let digits = price.filter { $0 != "." && $0 != "-" && $0 != "+" }
        return !(digits.allSatisfy { $0 == "0" } && !digits.isEmpty)
    }

    /// Where a purchase stands in its chain.
    struct Place {
        /// The chain's first purchase.
        var first = false
        /// The purchase before it in the chain is of another product: Qonversion reports that as
        /// an upgrade, downgrade or product change, not as a renewal.
        var productChange = false
    }

    /// The place of each purchase of `order` (oldest first), in that order. One-time purchases
    /// are never first nor a change.
    static func places(_ purchases: [QonversionPurchase], _ order: [Int]) -> [Place] {
        var previous: [ID: Int] = [:]
        return order.map { i in
            let p = purchases[i]
            guard p.expiresAt != nil else { return Place() }
            let key = chainKey(p)
            defer { previous[key] = i }
            guard let before = previous[key] else { return Place(first: true) }
            return Place(productChange: !purchases[before].productId.utf8.elementsEqual(p.productId.utf8))
        }
    }

    /// The history entries of `purchases` dated by until (its whole second), oldest first: one
    /// `transaction` each. `sandbox`: the key is a sandbox secret key (`test_sk_…`), whose answers
    /// are sandbox data.
    public static func entries(_ purchases: [QonversionPurchase], entitlements: [QonversionEntitlement],
                               sandbox: Bool, until: Instant) -> [HistoryEntry] {
        let order = oldestFirst(purchases, until: until)
        let places = places(purchases, order)
        var out: [HistoryEntry] = []
        out.reserveCapacity(order.count)
        // The entitlements a product unlocks, once per product: the entries share the list.
        var unlockedBy: [ID: [ID]] = [:]
        let environment = sandbox ? PurchaseEnvironment.sandbox.rawValue : PurchaseEnvironment.production.rawValue
        for (n, i) in order.enumerated() {
            let p = purchases[i]
            let unlocked: [ID]
            if let known = unlockedBy[p.productId] { unlocked = known } else {
                unlocked = Array(Set(entitlements.compactMap { e in
                    e.productId.flatMap { isOf(p, product: $0) ? e.id : nil }
                })).sorted()
                unlockedBy[p.productId] = unlocked
            }
            let type: TransactionType
            if p.expiresAt == nil {
                // v4 does not say whether a one-time product is consumable: one that unlocks no
                // entitlement of the user's is taken as one (RevenueCat v1's history does the same).
                type = unlocked.isEmpty ? .consumablePurchase : .nonConsumablePurchase
            } else {
                // A change of product starts the new product's subscription (in the same chain).
                type = places[n].first || places[n].productChange ? .subscriptionStarted : .subscriptionRenewed
            }
            out.append(HistoryEntry(date: p.purchasedAt, kind: .transaction, type: type.rawValue, entitlements: unlocked, fields: [
                ("transactionId", .string(p.storeTransactionId ?? p.id)),
                ("originalTransactionId", .string(p.expiresAt == nil ? p.storeTransactionId ?? p.id : p.chainId?.string)),
                ("productId", .string(p.productId.string)),
                ("expirationDate", .date(p.expiresAt)),
                ("source", .string(p.platform.rawValue)),
                ("environment", .string(environment)),
                // v4 says nothing of family sharing or offer codes.
                ("ownershipType", .string(nil)),
                ("offerCode", .string(nil)),
                ("price", .string(p.price)),
                ("currency", .string(p.currency)),
            ]))
        }
        return out
    }

    /// renewsCount of each entitlement, in Qonversion's meaning of a renewal (its worked example:
    /// a trial, its conversion and 18 renewals is 18; a trial's conversion and a change of product
    /// are events of their own, `trial_converted`, `subscription_upgraded`…): for one from a
    /// subscription, in the chain of the latest purchase of its product dated by until, the paid
    /// purchases after the chain's first paid one that are not a change of product; 0 for a manual
    /// grant or a one-time product; nil when no purchase of its product is listed.
    public static func renewsCounts(_ purchases: [QonversionPurchase], entitlements: [QonversionEntitlement],
                                    until: Instant) -> [ID: Int?] {
        let order = oldestFirst(purchases, until: until)
        let places = places(purchases, order)
        // Each chain's purchases (by their place in `order`), oldest first.
        var chains: [ID: [Int]] = [:]
        for (n, i) in order.enumerated() where purchases[i].expiresAt != nil {
            chains[chainKey(purchases[i]), default: []].append(n)
        }
        var counts: [ID: Int?] = [:]
        for e in entitlements {
            if e.source == .manual { counts[e.id] = 0; continue }
            guard let product = e.productId,
                  let latest = order.last(where: { isOf(purchases[$0], product: product) }).map({ purchases[$0] }) else {
                counts[e.id] = .some(nil)
                continue
            }
            guard latest.expiresAt != nil, let chain = chains[chainKey(latest)] else { counts[e.id] = 0; continue }
            let paid = chain.filter { isPaid(purchases[order[$0]]) }
            counts[e.id] = paid.dropFirst().filter { !places[$0].productChange }.count
        }
        return counts
    }

    static let noRefunds = "Qonversion's API v4 marks no refund on a purchase: a refunded payment counts as paid"

    /// What the purchases tell of the money (`totalSpent`): each purchase dated up to T with its
    /// `price` (a decimal string, read exactly) and `currency`; a price of zero is no payment (a
    /// free trial or period); a price or currency of another shape is a payment of unknown
    /// price. v4 marks no refund, so every total is incomplete, and so is one the listing cut
    /// short (the page cap, the budget).
    public static func spending(_ purchases: [QonversionPurchase], sandbox: Bool, at t: Instant,
                                listingIncomplete: String?) -> Spending {
        var payments: [Payment] = []
        for p in purchases where p.purchasedAt <= t {
            var price: DecimalAmount?, currency: String?
            if let text = p.price, let amount = DecimalAmount(exactly: text), let code = p.currency, CurrencyCode.isValid(code) {
                price = amount
                currency = code
            }
            if price?.isZero == true { continue }
            payments.append(Payment(price: price, currency: currency, isSandbox: sandbox))
        }
        return Spending(payments: payments, incompleteReason: [noRefunds, listingIncomplete].compactMap { $0 }.joined(separator: "; "),
                        unpricedReason: "Qonversion gives no readable price for some purchases")
    }
}
