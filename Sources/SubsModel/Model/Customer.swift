// One customer record of the store, as the rules and the output need it.

import SubsJSON

public enum TransactionType: String, Sendable, CaseIterable {
    case trialStarted, introStarted, introRenewed, subscriptionStarted, subscriptionRenewed
    case nonConsumablePurchase, consumablePurchase

    /// Types that belong to subscription products and carry an expirationDate.
    public var isSubscription: Bool {
        switch self {
        case .trialStarted, .introStarted, .introRenewed, .subscriptionStarted, .subscriptionRenewed: return true
        case .nonConsumablePurchase, .consumablePurchase: return false
        }
    }
}

public enum PurchaseSource: String, Sendable, CaseIterable {
    case appstore, playstore, stripe, amazon, unknown
}

public enum PurchaseEnvironment: String, Sendable, CaseIterable {
    case production, sandbox
}

public enum OwnershipType: String, Sendable, CaseIterable {
    case owner, familySharing
}

public struct Transaction: Equatable, Sendable {
    public var transactionId: ID
    public var originalTransactionId: ID
    public var productId: ID
    public var type: TransactionType
    public var transactionDate: Instant
    public var expirationDate: Instant?
    public var source: PurchaseSource
    public var environment: PurchaseEnvironment
    public var ownershipType: OwnershipType
    public var offerCode: String?
    /// The order id on the customer's receipt (Apple `MK…`, Google Play `GPA.…`), for `find`.
    public var orderId: String?
    public var revocationDate: Instant?
    /// What was paid, in millionths of `currency` (SPEC section 2, rev. 4); nil: not recorded.
    public var priceMicros: Int64?
    /// ISO 4217, present with `priceMicros`.
    public var currency: String?

    public init(transactionId: ID, originalTransactionId: ID, productId: ID,
                type: TransactionType, transactionDate: Instant, expirationDate: Instant? = nil,
                source: PurchaseSource = .unknown, environment: PurchaseEnvironment = .production,
                ownershipType: OwnershipType = .owner, offerCode: String? = nil,
                revocationDate: Instant? = nil, orderId: String? = nil,
                priceMicros: Int64? = nil, currency: String? = nil) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.type = type
        self.transactionDate = transactionDate
        self.expirationDate = expirationDate
        self.source = source
        self.environment = environment
        self.ownershipType = ownershipType
        self.offerCode = offerCode
        self.orderId = orderId
        self.revocationDate = revocationDate
        self.priceMicros = priceMicros
        self.currency = currency
    }

    /// The price as an exact decimal (nil when none was recorded).
    public var price: DecimalAmount? { priceMicros.flatMap { DecimalAmount(micros: $0) } }
}

public enum EventType: String, Sendable, CaseIterable {
    case autoRenewDisabled, autoRenewEnabled, billingIssue, billingRecovered
    case renewalProductChanged, pauseScheduled, pauseCanceled
}

public struct SubscriptionEvent: Equatable, Sendable {
    public var type: EventType
    public var date: Instant
    public var originalTransactionId: ID
    /// renewalProductChanged only.
    public var productId: ID?
    /// pauseScheduled only.
    public var autoResumeDate: Instant?

    public init(type: EventType, date: Instant, originalTransactionId: ID,
                productId: ID? = nil, autoResumeDate: Instant? = nil) {
        self.type = type
        self.date = date
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoResumeDate = autoResumeDate
    }
}

public struct Grant: Equatable, Sendable {
    public var id: ID
    public var entitlement: ID
    public var grantedAt: Instant
    /// nil = lifetime.
    public var expirationDate: Instant?
    public var grantedBy: String?
    public var reason: String?
    public var revokedAt: Instant?
    public var revokedBy: String?
    public var revokeReason: String?

    public init(id: ID, entitlement: ID, grantedAt: Instant, expirationDate: Instant?,
                grantedBy: String? = nil, reason: String? = nil, revokedAt: Instant? = nil,
                revokedBy: String? = nil, revokeReason: String? = nil) {
        self.id = id
        self.entitlement = entitlement
        self.grantedAt = grantedAt
        self.expirationDate = expirationDate
        self.grantedBy = grantedBy
        self.reason = reason
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
        self.revokeReason = revokeReason
    }
}

/// A customer record. Arrays keep store order (it breaks ties in the rules and in history).
public struct CustomerRecord: Equatable, Sendable {
    public var id: ID
    public var aliases: [ID]
    public var firstSeen: Instant?
    /// The `attributes` object as stored (shown as-is), or nil when absent.
    public var attributes: JSONObject?
    public var transactions: [Transaction]
    public var events: [SubscriptionEvent]
    public var grants: [Grant]

    public init(id: ID, aliases: [ID] = [], firstSeen: Instant? = nil,
                attributes: JSONObject? = nil, transactions: [Transaction] = [],
                events: [SubscriptionEvent] = [], grants: [Grant] = []) {
        self.id = id
        self.aliases = aliases
        self.firstSeen = firstSeen
        self.attributes = attributes
        self.transactions = transactions
        self.events = events
        self.grants = grants
    }
}
