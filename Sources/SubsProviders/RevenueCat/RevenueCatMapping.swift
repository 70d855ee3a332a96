// From a RevenueCat v1 subscriber to our answers: each entitlement's fields exactly as SPEC
// section 6 (provider `revenuecat`) says, evaluated at T (the answer's request_date, or --at as
// a projection of the same record), and the history v1 can tell.

import SubsModel

public enum RevenueCatMapping {
    /// Whether this answer is a subscriber RevenueCat created on this very GET (a GET creates
    /// unknown app user ids): nothing bought or granted, and first seen within 60 s of the
    /// request (or the API said 201 Created).
    public static func isCreatedEmpty(_ s: RevenueCatSubscriber, httpStatus: Int) -> Bool {
        // Something malformed was left out: the subscriber had something, so it was not just created.
        guard s.isEmpty, s.problems.isEmpty else { return false }
        if httpStatus == 201 { return true }
        guard let first = s.firstSeen else { return false }
        return abs(first.seconds - s.requestDate.seconds) <= 60
    }

    /// The customer's status at `t`: every entitlement of the answer, sorted by id. `projected`:
    /// `t` is `--at`, not the answer's request date, and the record is projected to it.
    public static func status(_ s: RevenueCatSubscriber, requestedId: ID, at t: Instant,
                              projected: Bool = false) -> CustomerStatus {
        let id = s.originalAppUserId.flatMap { $0.isEmpty ? nil : $0 } ?? requestedId
        let record = CustomerRecord(id: id, aliases: id == requestedId ? [] : [requestedId], firstSeen: s.firstSeen,
                                    attributes: s.attributes)
        let entitlements = s.entitlements.map { entitlement($0, of: s, at: t) }.sorted { $0.id < $1.id }
        var status = CustomerStatus(record: record, requestedId: requestedId, requestDate: t, entitlements: entitlements,
                                    spending: spending(s, at: t))
        if projected { Projection.apply(&status, at: t) }
        return status
    }

    /// The record's source of an entitlement: its product's subscription, else the latest
    /// purchase of that non-subscription product.
    enum Described {
        case subscription(RevenueCatSubscription)
        case purchase(RevenueCatPurchase)
        case unknown
    }

    static func described(_ e: RevenueCatEntitlement, of s: RevenueCatSubscriber) -> Described {
        guard let product = e.productIdentifier else { return .unknown }
        if let subscription = s.subscription(product) { return .subscription(subscription) }
        if let purchase = s.latestPurchase(product) { return .purchase(purchase) }
        return .unknown
    }

    public static func entitlement(_ e: RevenueCatEntitlement, of s: RevenueCatSubscriber, at t: Instant) -> EntitlementInfo {
        // A projection to T before the answer only counts what had happened by T; at or after
        // it, everything the record says has happened.
        func happened(_ date: Instant?) -> Bool {
            guard let date else { return false }
            return date.hasHappened(by: t) || t >= s.requestDate
        }
        let source = described(e, of: s)
        var sub: RevenueCatSubscription?
        var purchase: RevenueCatPurchase?
        switch source {
        case .subscription(let x): sub = x
        case .purchase(let p): purchase = p
        case .unknown: break
        }
        let store = sub?.store ?? purchase?.store
        let promotional = store == "promotional"

        let revoked = happened(sub?.refundedAt)
        let isActive = !revoked && (e.expiresDate.map { t < $0 } ?? true)
        let billingIssue = happened(sub?.billingIssuesDetectedAt)
        let grace = sub?.gracePeriodExpiresDate ?? e.gracePeriodExpiresDate
        let state: EntitlementState
        if revoked { state = .revoked }
        else if isActive && billingIssue && grace.map({ $0 > t }) == true { state = .gracePeriod }
        else if isActive { state = .active }
        else if billingIssue { state = .billingRetry }
        else if let resume = sub?.autoResumeDate, resume > t { state = .paused }
        else { state = .expired }

        let periodType: PeriodType
        if promotional { periodType = .promotional }
        else if sub == nil { periodType = .normal }   // a one-time purchase has no period
        else { periodType = Self.periodType(sub?.periodType) }

        // A Google Play prepaid plan never renews by itself (RevenueCat's SDKs: willRenew false for
        // period_type prepaid): nonRenewable unless the store reported an issue or a cancellation.
        let renewState: RenewState
        if purchase != nil || promotional { renewState = .nonRenewable }
        else if sub == nil { renewState = e.expiresDate == nil ? .nonRenewable : .unknown }
        else if sub?.billingIssuesDetectedAt != nil { renewState = .billingIssue }
        else if sub?.unsubscribeDetectedAt != nil { renewState = .canceled }
        else if periodType == .prepaid { renewState = .nonRenewable }
        else if isActive { renewState = .willRenew }
        else { renewState = .unknown }
        // A scheduled pause stops the entitlement at the end of this period.
        let pauseAhead = sub?.autoResumeDate.map { $0 > t } ?? false
        let willRenew = renewState == .willRenew && !pauseAhead

        let grantType: GrantType = promotional ? .manual : isFamilyShared(sub?.ownershipType) ? .familySharing : .purchase
        let kind: SourceKind
        switch source {
        case .subscription: kind = promotional ? .grant : .chain
        case .purchase: kind = .purchase
        case .unknown: kind = e.expiresDate == nil ? .purchase : .chain
        }
        // The first purchase, which a restore or a renewal does not move; a one-time purchase
        // without original_purchase_date started at its purchase_date. The latest purchase is the
        // entitlement's own `purchase_date` ("the last purchase or renewal of the product that
        // grants this entitlement"), as RevenueCat's SDKs read latestPurchaseDate, for a one-time
        // product too; the source's own date only when the entitlement has none.
        // During a free trial (period_type trial: a trial is a subscription's first period, as the
        // stores allow one per subscription group) nothing is paid yet: no first purchase (SPEC
        // section 3), as with API v2.
        let started = sub?.originalPurchaseDate ?? purchase.flatMap { $0.originalPurchaseDate ?? $0.purchaseDate }
        let firstPaid = periodType == .trial ? nil : started

        return EntitlementInfo(
            id: e.id, isActive: isActive, state: state, renewState: renewState, willRenew: willRenew,
            periodType: periodType, source: entitlementSource(store), grantType: grantType,
            productId: e.productIdentifier, startedDate: started, trialStartDate: nil, firstPurchaseDate: firstPaid,
            lastPurchaseDate: e.purchaseDate ?? purchase?.purchaseDate ?? sub?.purchaseDate, expirationDate: e.expiresDate, gracePeriodExpirationDate: grace,
            billingIssueDetectedAt: sub?.billingIssuesDetectedAt, autoRenewDisableDate: sub?.unsubscribeDetectedAt,
            autoResumeDate: sub?.autoResumeDate, renewalProductId: nil, renewsCount: nil,
            isSandbox: sub?.isSandbox ?? purchase?.isSandbox ?? false, lastActivatedOfferCode: nil, grantId: nil,
            transactions: [], sourceKind: kind, revokedAt: revoked ? sub?.refundedAt : nil)
    }

    /// `period_type`: normal, trial, intro, prepaid (Google Play); absent → normal; a value this
    /// version does not know → unknown, never a guess.
    /// RevenueCat's OpenAPI description lists lower-case values but shows `NORMAL` as the field's
    /// example; its SDKs read that example as `normal` (anything they cannot decode is normal to
    /// them), so the case of a known value does not matter; a value unknown in any case stays unknown.
    public static func periodType(_ value: String?) -> PeriodType {
        switch value?.lowercased() {
        case nil, "normal": return .normal
        case "trial": return .trial
        case "intro": return .intro
        case "prepaid": return .prepaid
        default: return .unknown
        }
    }

    /// `ownership_type` `FAMILY_SHARED` (the OpenAPI enum's spelling; API v2 writes `family_shared`).
    static func isFamilyShared(_ value: String?) -> Bool {
        value?.uppercased() == "FAMILY_SHARED"
    }

    /// `store` → `source`: app_store/mac_app_store → appstore, play_store → playstore, stripe,
    /// amazon, promotional → manual, anything else (roku, paddle, unknown values) → unknown.
    public static func entitlementSource(_ store: String?) -> EntitlementSource {
        switch store {
        case "promotional": return .manual
        default: return EntitlementSource(rawValue: purchaseSource(store).rawValue) ?? .unknown
        }
    }

    static func purchaseSource(_ store: String?) -> PurchaseSource {
        switch store {
        case "app_store", "mac_app_store": return .appstore
        case "play_store": return .playstore
        case "stripe": return .stripe
        case "amazon": return .amazon
        default: return .unknown
        }
    }

    // MARK: history

    /// What v1 tells of the past, dated <= until, oldest first (ties keep document order): per
    /// subscription its original and latest purchase, unsubscribe, billing issue and refund (a
    /// promotional one is a grant); per non-subscription purchase, the purchase.
    public static func history(_ s: RevenueCatSubscriber, until: Instant) -> [HistoryEntry] {
        var all: [HistoryEntry] = []
        for sub in s.subscriptions {
            let entitlements = concerned(sub.productId, s)
            if sub.isPromotional {
                if let date = sub.purchaseDate ?? sub.originalPurchaseDate {
                    all.append(HistoryEntry(date: date, kind: .grant, type: "granted", entitlements: entitlements, fields: [
                        ("grantId", .string(sub.storeTransactionId ?? sub.productId.string)),
                        ("expirationDate", .date(sub.expiresDate)),
                        ("grantedBy", .string(nil)),
                        ("reason", .string(nil)),
                    ]))
                }
                continue
            }
            let renewedLater = sub.purchaseDate.map { p in sub.originalPurchaseDate.map { p > $0 } ?? false } ?? false
            if let start = sub.originalPurchaseDate ?? sub.purchaseDate {
                let type: TransactionType
                switch (renewedLater, sub.periodType?.lowercased()) {
                case (false, "trial"): type = .trialStarted
                case (false, "intro"): type = .introStarted
                default: type = .subscriptionStarted
                }
                all.append(transaction(sub, type: type, date: start, latest: !renewedLater, entitlements: entitlements))
            }
            if renewedLater, let latest = sub.purchaseDate {
                let type: TransactionType
                switch sub.periodType?.lowercased() {
                case "trial": type = .trialStarted
                case "intro": type = .introRenewed
                default: type = .subscriptionRenewed
                }
                all.append(transaction(sub, type: type, date: latest, latest: true, entitlements: entitlements))
            }
            if let date = sub.unsubscribeDetectedAt {
                all.append(HistoryEntry(date: date, kind: .event, type: EventType.autoRenewDisabled.rawValue,
                                        entitlements: entitlements, fields: [("originalTransactionId", .string(nil))]))
            }
            if let date = sub.billingIssuesDetectedAt {
                all.append(HistoryEntry(date: date, kind: .event, type: EventType.billingIssue.rawValue,
                                        entitlements: entitlements, fields: [("originalTransactionId", .string(nil))]))
            }
            if let date = sub.refundedAt {
                all.append(HistoryEntry(date: date, kind: .refund, type: "revoked", entitlements: entitlements, fields: [
                    ("transactionId", .string(sub.storeTransactionId)),
                    ("productId", .string(sub.productId.string)),
                ]))
            }
        }
        for purchase in s.purchases {
            guard let date = purchase.purchaseDate else { continue }
            let entitlements = concerned(purchase.productId, s)
            let id = purchase.storeTransactionId ?? purchase.id
            // v1 does not say whether a product is consumable: one that unlocks nothing is taken as one.
            let type: TransactionType = entitlements.isEmpty ? .consumablePurchase : .nonConsumablePurchase
            all.append(HistoryEntry(date: date, kind: .transaction, type: type.rawValue, entitlements: entitlements, fields: [
                ("transactionId", .string(id)),
                ("originalTransactionId", .string(id)),
                ("productId", .string(purchase.productId.string)),
                ("expirationDate", .date(nil)),
                ("source", .string(purchaseSource(purchase.store).rawValue)),
                ("environment", .string(purchase.isSandbox ? "sandbox" : "production")),
                ("ownershipType", .string(OwnershipType.owner.rawValue)),
                ("offerCode", .string(nil)),
                ("price", .string(purchase.price)),
                ("currency", .string(purchase.currency)),
            ]))
        }
        return all.enumerated()
            .filter { $0.element.date.hasHappened(by: until) }
            .sorted { a, b in a.element.date != b.element.date ? a.element.date < b.element.date : a.offset < b.offset }
            .map(\.element)
    }

    /// The store transaction id belongs to the latest period; v1 has no id for the first one
    /// when the subscription renewed since.
    private static func transaction(_ sub: RevenueCatSubscription, type: TransactionType, date: Instant, latest: Bool,
                                    entitlements: [ID]) -> HistoryEntry {
        HistoryEntry(date: date, kind: .transaction, type: type.rawValue, entitlements: entitlements, fields: [
            ("transactionId", .string(latest ? sub.storeTransactionId : nil)),
            ("originalTransactionId", .string(nil)),
            ("productId", .string(sub.productId.string)),
            ("expirationDate", .date(latest ? sub.expiresDate : nil)),
            ("source", .string(purchaseSource(sub.store).rawValue)),
            ("environment", .string(sub.isSandbox ? "sandbox" : "production")),
            ("ownershipType", .string(isFamilyShared(sub.ownershipType) ? OwnershipType.familySharing.rawValue : OwnershipType.owner.rawValue)),
            ("offerCode", .string(nil)),
            // v1's price is the latest period's: the first period's is not known once it renewed.
            ("price", .string(latest ? sub.price : nil)),
            ("currency", .string(latest ? sub.currency : nil)),
        ])
    }

    /// Entitlements a product is known to unlock: those the answer describes by it, and for a
    /// promotional product (`rc_promo_<entitlement>_<duration>`) the entitlement it names.
    static func concerned(_ productId: ID, _ s: RevenueCatSubscriber) -> [ID] {
        var ids = Set(s.entitlements.filter { $0.productIdentifier == productId }.map(\.id))
        if productId.hasPrefix("rc_promo_") {
            for e in s.entitlements where productId.hasPrefix("rc_promo_\(e.id)_") { ids.insert(e.id) }
        }
        return ids.sorted()
    }

    /// Active promotional subscriptions of `entitlement` at the answer's request date.
    static func activePromotionals(of entitlement: ID, in s: RevenueCatSubscriber) -> [RevenueCatSubscription] {
        s.subscriptions.filter { sub in
            sub.isPromotional && sub.refundedAt == nil && (sub.expiresDate.map { s.requestDate < $0 } ?? true)
                && concerned(sub.productId, s).contains(entitlement)
        }
    }
}

extension RevenueCatMapping {
    static let latestPriceOnly = "RevenueCat API v1 gives each subscription's latest price only: its earlier periods are not counted"
    static let noPurchaseRefunds = "RevenueCat API v1 marks no refund on a one-time purchase"

    /// What v1 tells of the money (`totalSpent`): each one-time purchase (`non_subscriptions`,
    /// `price.amount` and `price.currency`) and each subscription's latest period (its `price`,
    /// refunded when the subscription has `refunded_at`), dated up to T. A subscription past its
    /// first period (`purchase_date` after `original_purchase_date`) paid periods v1 does not
    /// price: its currency's total is incomplete, never multiplied out. Promotional grants and
    /// family-shared access are not payments; a period priced zero (a free trial) neither; a
    /// price of another shape is a payment of unknown price (the rest of the customer stands).
    public static func spending(_ s: RevenueCatSubscriber, at t: Instant) -> Spending {
        func happened(_ date: Instant?) -> Bool { date.map { $0 <= t } ?? (t >= s.requestDate) }
        var payments: [Payment] = []
        for sub in s.subscriptions where !sub.isPromotional && sub.ownershipType != "FAMILY_SHARED" && happened(sub.purchaseDate) {
            let (price, currency) = money(sub.price, sub.currency)
            if price?.isZero == true { continue }
            if price == nil, sub.periodType == "trial" { continue }
            let firstPeriod = sub.originalPurchaseDate != nil && sub.originalPurchaseDate == sub.purchaseDate
            payments.append(Payment(price: price, currency: currency, refunded: sub.refundedAt.map { $0 <= t } ?? false,
                                    isSandbox: sub.isSandbox, incompleteReason: firstPeriod ? nil : latestPriceOnly))
        }
        for purchase in s.purchases where purchase.store != "promotional" && happened(purchase.purchaseDate) {
            let (price, currency) = money(purchase.price, purchase.currency)
            if price?.isZero == true { continue }
            payments.append(Payment(price: price, currency: currency, isSandbox: purchase.isSandbox,
                                    incompleteReason: noPurchaseRefunds))
        }
        return Spending(payments: payments, unpricedReason: "RevenueCat gives no readable price for some payments")
    }

    /// A vendor's amount and currency as exact money: both well formed, or neither.
    static func money(_ amount: String?, _ currency: String?) -> (DecimalAmount?, String?) {
        guard let amount, let price = DecimalAmount(exactly: amount), let currency, CurrencyCode.isValid(currency) else {
            return (nil, nil)
        }
        return (price, currency)
    }
}
