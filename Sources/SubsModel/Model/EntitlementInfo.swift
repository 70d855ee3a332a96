// The status of one entitlement at an instant T: the fields of SPEC section 3, in output order.

public enum EntitlementState: String, Sendable, CaseIterable {
    case active, gracePeriod, billingRetry, paused, expired, revoked
    /// A provider's state this version of subs does not know (inactive).
    case unknown
}

public enum RenewState: String, Sendable, CaseIterable {
    case willRenew, canceled, billingIssue, nonRenewable, unknown
}

public enum PeriodType: String, Sendable, CaseIterable {
    /// `prepaid`: a Google Play prepaid plan, which never renews by itself (RevenueCat's word);
    /// `unknown`: a provider's period type subs does not know. The store's rules give neither.
    case normal, trial, intro, promotional, prepaid, unknown
}

/// `source` of an entitlement: where the money came from, or `manual` for grants.
public enum EntitlementSource: String, Sendable, CaseIterable {
    case appstore, playstore, stripe, amazon, unknown, manual
}

public enum GrantType: String, Sendable, CaseIterable {
    case purchase, familySharing, offerCode, manual
}

/// Which kind of source describes the entitlement.
public enum SourceKind: String, Sendable {
    case chain, purchase, grant
}

public struct EntitlementInfo: Equatable, Sendable {
    public var id: ID
    public var isActive: Bool
    public var state: EntitlementState
    public var renewState: RenewState
    public var willRenew: Bool
    public var periodType: PeriodType
    public var source: EntitlementSource
    public var grantType: GrantType
    public var productId: ID?
    public var startedDate: Instant?
    public var trialStartDate: Instant?
    public var firstPurchaseDate: Instant?
    public var lastPurchaseDate: Instant?
    public var expirationDate: Instant?
    public var gracePeriodExpirationDate: Instant?
    public var billingIssueDetectedAt: Instant?
    public var autoRenewDisableDate: Instant?
    public var autoResumeDate: Instant?
    public var renewalProductId: ID?
    /// nil only where a provider has no renewal counts (RevenueCat v1).
    public var renewsCount: Int?
    public var isSandbox: Bool
    public var lastActivatedOfferCode: String?
    public var grantId: ID?
    /// The chain's transactions dated <= T, oldest first; [that one] for a purchase; [] for a grant.
    public var transactions: [Transaction]
    /// What kind of source describes it (not an output field; wording uses it).
    public var sourceKind: SourceKind
    /// For grants: who granted it and why (not output fields of the entitlement; wording uses them).
    public var grantedBy: String?
    public var grantReason: String?
    /// For revoked sources: when (purchase/chain refund date, grant revokedAt).
    public var revokedAt: Instant?
    /// For revoked grants: who revoked it and why (`revoke --actor`, `--reason`).
    public var revokedBy: String?
    public var revokeReason: String?
    /// For chains: the resume date of a pause that ended without a renewal (autoResumeDate is
    /// null once a pause is over; the wording still tells it).
    public var lapsedPauseResumeDate: Instant?
    /// For chains with an open billing issue: until when the store retries the payment (the
    /// end of the paid period plus the billing retry period). Not an output field; wording uses it.
    public var billingRetryEndDate: Instant?
    /// For a provider's record projected (`--at`) to an instant before the record's start: that
    /// start (first purchase). Not an output field; wording uses it.
    public var projectedBeforeStart: Instant?
    /// The active sources other than the describing one (a lifetime purchase next to a renewing
    /// subscription, two stores): "why am I still being charged?" is answered from these.
    public var otherActiveSources: [OtherActiveSource] = []

    public init(id: ID, isActive: Bool, state: EntitlementState, renewState: RenewState,
                willRenew: Bool, periodType: PeriodType, source: EntitlementSource,
                grantType: GrantType, productId: ID?, startedDate: Instant?,
                trialStartDate: Instant?, firstPurchaseDate: Instant?, lastPurchaseDate: Instant?,
                expirationDate: Instant?, gracePeriodExpirationDate: Instant?,
                billingIssueDetectedAt: Instant?, autoRenewDisableDate: Instant?,
                autoResumeDate: Instant?, renewalProductId: ID?, renewsCount: Int?,
                isSandbox: Bool, lastActivatedOfferCode: String?, grantId: ID?,
                transactions: [Transaction], sourceKind: SourceKind,
                grantedBy: String? = nil, grantReason: String? = nil, revokedAt: Instant? = nil,
                revokedBy: String? = nil, revokeReason: String? = nil, lapsedPauseResumeDate: Instant? = nil, billingRetryEndDate: Instant? = nil) {
        self.id = id
        self.isActive = isActive
        self.state = state
        self.renewState = renewState
        self.willRenew = willRenew
        self.periodType = periodType
        self.source = source
        self.grantType = grantType
        self.productId = productId
        self.startedDate = startedDate
        self.trialStartDate = trialStartDate
        self.firstPurchaseDate = firstPurchaseDate
        self.lastPurchaseDate = lastPurchaseDate
        self.expirationDate = expirationDate
        self.gracePeriodExpirationDate = gracePeriodExpirationDate
        self.billingIssueDetectedAt = billingIssueDetectedAt
        self.autoRenewDisableDate = autoRenewDisableDate
        self.autoResumeDate = autoResumeDate
        self.renewalProductId = renewalProductId
        self.renewsCount = renewsCount
        self.isSandbox = isSandbox
        self.lastActivatedOfferCode = lastActivatedOfferCode
        self.grantId = grantId
        self.transactions = transactions
        self.sourceKind = sourceKind
        self.grantedBy = grantedBy
        self.grantReason = grantReason
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
        self.revokeReason = revokeReason
        self.lapsedPauseResumeDate = lapsedPauseResumeDate
        self.billingRetryEndDate = billingRetryEndDate
    }
}

extension EntitlementInfo {
    /// When access ended or ends (SPEC section 4, rev. 4): what `check`'s UNTIL shows. A refund
    /// or revocation ends it then, unless the period (or grant) had already run out; otherwise
    /// it is `expirationDate` — the grace end during a billing issue, the end of the paid period
    /// for a pause (access stops there and the pause begins). nil: access never ends.
    public var accessEndDate: Instant? {
        guard state == .revoked, let revokedAt else { return expirationDate }
        return expirationDate.map { min($0, revokedAt) } ?? revokedAt
    }

    /// The revocation of a purchase or subscription that is a refund: not a grant's revocation,
    /// and not a family-sharing withdrawal (the organiser stopped sharing; nothing was refunded).
    public var isRefund: Bool {
        state == .revoked && sourceKind != .grant && grantType != .familySharing
    }

    /// When the period in force (or the purchase) was refunded; nil when it was not.
    public var refundedAt: Instant? { isRefund ? revokedAt : nil }
}

/// An active source of an entitlement that does not describe it (SPEC section 4, check document).
public struct OtherActiveSource: Equatable, Sendable {
    public var productId: ID?
    public var source: EntitlementSource
    /// When access from it ends (null: never).
    public var expirationDate: Instant?
    public var renewState: RenewState
    /// Not output fields; wording uses them.
    public var willRenew: Bool
    public var sourceKind: SourceKind
    public var isSandbox: Bool

    public init(productId: ID?, source: EntitlementSource, expirationDate: Instant?, renewState: RenewState,
                willRenew: Bool, sourceKind: SourceKind, isSandbox: Bool = false) {
        self.productId = productId
        self.source = source
        self.expirationDate = expirationDate
        self.renewState = renewState
        self.willRenew = willRenew
        self.sourceKind = sourceKind
        self.isSandbox = isSandbox
    }

    public init(_ e: EntitlementInfo) {
        self.init(productId: e.productId, source: e.source, expirationDate: e.expirationDate, renewState: e.renewState,
                  willRenew: e.willRenew, sourceKind: e.sourceKind, isSandbox: e.isSandbox)
    }
}

/// A customer's status at T: what `check` shows.
public struct CustomerStatus: Equatable, Sendable {
    public var record: CustomerRecord
    /// The id or alias exactly as it was asked for (so output can be joined to its input).
    public var requestedId: ID
    public var requestDate: Instant
    /// True when T is not an instant the provider answered for: a platform's current record
    /// projected to `--at`. Records judged by the rules at T (the store, subs serve) never are.
    public var projected: Bool
    /// Every entitlement with a source at T, sorted by id.
    public var entitlements: [EntitlementInfo]
    /// What the customer paid as of T, as far as the provider can tell (`totalSpent`); nil where
    /// it cannot tell at all.
    public var spending: Spending?

    public init(record: CustomerRecord, requestedId: ID? = nil, requestDate: Instant, projected: Bool = false,
                entitlements: [EntitlementInfo], spending: Spending? = nil) {
        self.record = record
        self.spending = spending
        self.requestedId = requestedId ?? record.id
        self.requestDate = requestDate
        self.projected = projected
        self.entitlements = entitlements
    }

    public var activeEntitlementIds: [ID] { entitlements.filter(\.isActive).map(\.id) }
}
