// From RevenueCat's API v2 (a customer, its subscriptions, one-time purchases and, for App Store
// and Play Store subscriptions, their store transactions) to our answers: each entitlement's
// fields, renewal counts and the history. What v2 does not say stays null or is left out, never
// guessed; the README lists each field read and what it cannot show.

import SubsJSON
import SubsModel

/// Everything subs asked RevenueCat v2 about one customer.
public struct RevenueCatV2Record: Sendable {
    public var customer: RevenueCatV2Customer
    /// Every active entitlement, all pages of `active_entitlements` followed.
    public var activeEntitlements: [(id: ID, expiresAt: Instant?)]
    public var subscriptions: [RevenueCatV2Subscription]
    public var purchases: [RevenueCatV2Purchase]
    /// Store transactions by subscription id, oldest first (App Store and Play Store only).
    public var transactions: [ID: [RevenueCatV2Transaction]]
    public var requestDate: Instant
    /// Why a list was not read to its end (a page cap, the time budget), one clause each.
    public var unfinished: [String] = []
    /// Subscriptions whose transactions were not all read: no renewal count for them.
    public var partialChains: Set<ID> = []
    /// The customer's answer came from the cache (judged at the local clock).
    public var fromCache = false

    public init(customer: RevenueCatV2Customer, activeEntitlements: [(id: ID, expiresAt: Instant?)],
                subscriptions: [RevenueCatV2Subscription], purchases: [RevenueCatV2Purchase],
                transactions: [ID: [RevenueCatV2Transaction]], requestDate: Instant, unfinished: [String] = [],
                partialChains: Set<ID> = [], fromCache: Bool = false) {
        self.customer = customer
        self.activeEntitlements = activeEntitlements
        self.subscriptions = subscriptions
        self.purchases = purchases
        self.transactions = transactions
        self.requestDate = requestDate
        self.unfinished = unfinished
        self.partialChains = partialChains
        self.fromCache = fromCache
    }
}

public enum RevenueCatV2Mapping {
    /// Entitlement id (`entl…`) → its lookup key, from every subscription and purchase that names
    /// it; an entitlement only the active list names keeps its id (v2 names it nowhere else).
    static func lookupKeys(_ r: RevenueCatV2Record) -> [ID: ID] {
        var keys: [ID: ID] = [:]
        for ref in r.subscriptions.flatMap(\.entitlements) + r.purchases.flatMap(\.entitlements) {
            if let key = ref.lookupKey, !key.isEmpty, keys[ref.id] == nil { keys[ref.id] = key }
        }
        return keys
    }

    public static func status(_ r: RevenueCatV2Record, requestedId: ID, at t: Instant, projected: Bool = false) -> CustomerStatus {
        let keys = lookupKeys(r)
        let record = CustomerRecord(id: r.customer.id, aliases: r.customer.id == requestedId ? [] : [requestedId],
                                    firstSeen: r.customer.firstSeenAt, attributes: r.customer.attributes)
        var ids: [ID] = r.activeEntitlements.map(\.id)
        for ref in r.subscriptions.flatMap(\.entitlements) + r.purchases.flatMap(\.entitlements) where !ids.contains(ref.id) {
            ids.append(ref.id)
        }
        let entitlements = ids.map { entitlement($0, named: keys[$0] ?? $0, in: r, at: t) }.sorted { $0.id < $1.id }
        var status = CustomerStatus(record: record, requestedId: requestedId, requestDate: t, entitlements: entitlements,
                                    spending: spending(r, at: t))
        if projected { Projection.apply(&status, at: t) }
        return status
    }

    /// The source that describes entitlement `id`: a subscription giving access (the latest end),
    /// else an owned purchase (the latest), else the latest subscription, else the latest purchase.
    enum Described {
        case subscription(RevenueCatV2Subscription)
        case purchase(RevenueCatV2Purchase)
        case none
    }

    static func described(_ id: ID, in r: RevenueCatV2Record) -> Described {
        let subs = r.subscriptions.filter { $0.entitlements.contains { $0.id == id } }
        let buys = r.purchases.filter { $0.entitlements.contains { $0.id == id } }
        let end = { (s: RevenueCatV2Subscription) in s.endsAt ?? s.currentPeriodEndsAt ?? Instant.latest }
        let latestSub = { (list: [RevenueCatV2Subscription]) in list.max { end($0) < end($1) } }
        let latestBuy = { (list: [RevenueCatV2Purchase]) in
            list.max { ($0.purchasedAt ?? Instant.earliest) < ($1.purchasedAt ?? Instant.earliest) }
        }
        if let s = latestSub(subs.filter(\.givesAccess)) { return .subscription(s) }
        if let p = latestBuy(buys.filter { $0.status != "refunded" }) { return .purchase(p) }
        if let s = latestSub(subs) { return .subscription(s) }
        if let p = latestBuy(buys) { return .purchase(p) }
        return .none
    }

    /// Whether an entry of `active_entitlements` is active as of the answer. RevenueCat lists what is
    /// active when it answers, so its `expires_at` lies after the answer's date; one that ends in
    /// an earlier second than the answer's own (as the OpenAPI description's example does) is not
    /// active: RevenueCat's SDKs judge an entitlement by its expiration against the request date,
    /// and subs never shows as active what its own expiration says has ended (SPEC section 3).
    /// Within the answer's second, the list is believed (the `Date` header has whole seconds).
    /// `t`: the answer's date, or `--at` (the record projected to T).
    static func isLive(_ entry: (id: ID, expiresAt: Instant?), at t: Instant) -> Bool {
        entry.expiresAt.map { $0.seconds >= t.seconds } ?? true
    }

    static func entitlement(_ id: ID, named name: ID, in r: RevenueCatV2Record, at t: Instant) -> EntitlementInfo {
        let active = r.activeEntitlements.first { $0.id == id }
        let isActive = active.map { isLive($0, at: t) } ?? false
        switch described(id, in: r) {
        case .subscription(let s):
            return subscriptionEntitlement(name, s, active: active, in: r, at: t)
        case .purchase(let p):
            let refunded = p.status == "refunded"
            let promotional = p.store == "promotional"
            // A one-time purchase never renews: its count is 0, not unknown.
            return EntitlementInfo(
                id: name, isActive: isActive, state: isActive ? .active : refunded ? .revoked : .expired,
                renewState: .nonRenewable, willRenew: false, periodType: promotional ? .promotional : .normal,
                source: RevenueCatMapping.entitlementSource(p.store),
                grantType: promotional ? .manual : RevenueCatMapping.isFamilyShared(p.ownership) ? .familySharing : .purchase,
                productId: p.productId, startedDate: p.purchasedAt, trialStartDate: nil, firstPurchaseDate: p.purchasedAt,
                lastPurchaseDate: p.purchasedAt, expirationDate: active?.expiresAt, gracePeriodExpirationDate: nil,
                billingIssueDetectedAt: nil, autoRenewDisableDate: nil, autoResumeDate: nil, renewalProductId: nil,
                renewsCount: 0, isSandbox: p.environment == "sandbox", lastActivatedOfferCode: nil, grantId: nil,
                transactions: [], sourceKind: .purchase)
        case .none:
            // Only the active list names it (a grant v2 shows nowhere else): its expiry is all v2 says.
            return EntitlementInfo(
                id: name, isActive: isActive, state: isActive ? .active : active != nil ? .expired : .unknown,
                renewState: active?.expiresAt == nil ? .nonRenewable : .unknown, willRenew: false, periodType: .normal,
                source: .unknown, grantType: .purchase, productId: nil, startedDate: nil, trialStartDate: nil,
                firstPurchaseDate: nil, lastPurchaseDate: nil, expirationDate: active?.expiresAt, gracePeriodExpirationDate: nil,
                billingIssueDetectedAt: nil, autoRenewDisableDate: nil, autoResumeDate: nil, renewalProductId: nil,
                renewsCount: nil, isSandbox: false, lastActivatedOfferCode: nil, grantId: nil, transactions: [],
                sourceKind: active?.expiresAt == nil ? .purchase : .chain)
        }
    }

    static func subscriptionEntitlement(_ name: ID, _ s: RevenueCatV2Subscription, active: (id: ID, expiresAt: Instant?)?,
                                        in r: RevenueCatV2Record, at t: Instant) -> EntitlementInfo {
        let isActive = active.map { isLive($0, at: t) } ?? false
        let chain = r.transactions[s.id] ?? []
        let latest = chain.last
        let state: EntitlementState
        switch s.status {
        case "in_grace_period": state = isActive ? .gracePeriod : .billingRetry
        case "in_billing_retry": state = .billingRetry
        case "paused": state = isActive ? .active : .paused
        case "trialing", "active": state = isActive ? .active : .expired
        case "expired": state = isActive ? .active : .expired
        default: state = isActive ? .active : .unknown
        }
        let renewState: RenewState
        if s.isPromotional { renewState = .nonRenewable }
        else if s.status == "in_grace_period" || s.status == "in_billing_retry" { renewState = .billingIssue }
        else {
            switch s.autoRenewalStatus {
            case "will_renew", "has_already_renewed", "will_change_product", "will_pause":
                renewState = isActive || s.givesAccess ? .willRenew : .unknown
            case "will_not_renew": renewState = .canceled
            default: renewState = .unknown
            }
        }
        // A pause set for the end of this period stops the renewal, as in v1.
        let willRenew = renewState == .willRenew && s.autoRenewalStatus != "will_pause" && isActive
        let trialing = s.status == "trialing"
        let periodType: PeriodType = s.isPromotional ? .promotional : trialing ? .trial : .normal
        // Nothing is paid during a free trial (subs's rule, SPEC section 3): no first purchase yet.
        // Once paid, v2 does not say whether the start was a trial: `starts_at` it is.
        return EntitlementInfo(
            id: name, isActive: isActive, state: state, renewState: renewState, willRenew: willRenew,
            periodType: periodType, source: RevenueCatMapping.entitlementSource(s.store),
            grantType: s.isPromotional ? .manual : RevenueCatMapping.isFamilyShared(s.ownership) ? .familySharing : .purchase,
            productId: latest?.productStoreIdentifier ?? s.productId, startedDate: s.startsAt,
            trialStartDate: trialing ? s.currentPeriodStartsAt : nil, firstPurchaseDate: trialing ? nil : s.startsAt,
            lastPurchaseDate: latest?.purchasedAt ?? s.currentPeriodStartsAt,
            expirationDate: active.map { $0.expiresAt } ?? s.endsAt ?? s.currentPeriodEndsAt,
            gracePeriodExpirationDate: state == .gracePeriod ? latest?.effectiveExpirationDate : nil,
            billingIssueDetectedAt: nil, autoRenewDisableDate: nil, autoResumeDate: nil,
            renewalProductId: s.autoRenewalStatus == "will_change_product" ? s.pendingProductStoreIdentifier : nil,
            renewsCount: renewsCount(s, in: r, at: t), isSandbox: s.environment == "sandbox", lastActivatedOfferCode: nil,
            grantId: s.isPromotional ? s.id : nil, transactions: [], sourceKind: s.isPromotional ? .grant : .chain)
    }

    /// How many times the subscription renewed by T, in RevenueCat's meaning (its webhooks'
    /// `renewal_number` starts at 1 and counts a trial's conversion and an App Store product
    /// change as renewals): 0 for a promotional grant (it never renews); for App Store and Play
    /// Store subscriptions whose transactions were all read, those dated by T after the first;
    /// else 0 for a subscription still in its first period (`current_period_starts_at` =
    /// `starts_at`), whatever its store, and `check`, which reads no transactions; nil otherwise
    /// (v2 lists no renewals of other stores, and a later period may be a resubscription).
    public static func renewsCount(_ s: RevenueCatV2Subscription, in r: RevenueCatV2Record, at t: Instant) -> Int? {
        if s.isPromotional { return 0 }
        if s.hasStoreTransactions, !r.partialChains.contains(s.id), let chain = r.transactions[s.id], !chain.isEmpty {
            return max(0, chain.filter { $0.purchasedAt.hasHappened(by: t) }.count - 1)
        }
        if let start = s.startsAt, s.currentPeriodStartsAt == start { return 0 }
        return nil
    }
}

extension RevenueCatV2Mapping {
    static let revenueInUSD = "RevenueCat API v2 gives a subscription's revenue in USD (gross, as RevenueCat converted it), "
        + "not its payments nor the currency they were made in"

    /// What v2 tells of the money (`totalSpent`), from what `check` already reads: each
    /// subscription's `total_revenue_in_usd.gross` (its payments not counted: v2 gives none, so
    /// the USD total is incomplete and `payments` null), and each one-time purchase's revenue
    /// (`revenue_in_usd`, one payment, refunded when its `status` is `refunded`). Started or
    /// bought up to T; promotional and family-shared ones are not payments; a malformed amount
    /// is a payment of unknown price.
    public static func spending(_ r: RevenueCatV2Record, at t: Instant) -> Spending {
        var payments: [Payment] = []
        for sub in r.subscriptions where !sub.isPromotional && sub.ownership != "family_shared" {
            guard let start = sub.startsAt ?? sub.currentPeriodStartsAt, start <= t else { continue }
            let (price, currency) = RevenueCatMapping.money(sub.totalRevenue?.gross, sub.totalRevenue?.currency)
            if price?.isZero == true { continue } // nothing paid yet (a free trial)
            payments.append(Payment(price: price, currency: currency, isSandbox: sub.environment == "sandbox", count: nil,
                                    incompleteReason: revenueInUSD))
        }
        for purchase in r.purchases where purchase.store != "promotional" && purchase.ownership != "family_shared" {
            guard let bought = purchase.purchasedAt, bought <= t else { continue }
            let (price, currency) = RevenueCatMapping.money(purchase.revenue?.gross, purchase.revenue?.currency)
            if price?.isZero == true { continue }
            payments.append(Payment(price: price, currency: currency, refunded: purchase.status == "refunded",
                                    isSandbox: purchase.environment == "sandbox"))
        }
        return Spending(payments: payments, unpricedReason: "RevenueCat gives no readable revenue for some payments")
    }
}
