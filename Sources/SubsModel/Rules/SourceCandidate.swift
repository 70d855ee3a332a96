// A source of one entitlement at T (chain, purchase or grant) with what the choice among
// sources needs, and the purchase and grant columns of SPEC section 3's fields table.

struct SourceCandidate {
    /// The entitlement as this source would describe it.
    var info: EntitlementInfo
    /// When access from this source ends; nil = never.
    var end: Instant?
    /// Position of the source's first record in its array (transactions or grants).
    var storeIndex: Int

    var kindRank: Int {
        switch info.sourceKind {
        case .chain: return 0
        case .purchase: return 1
        case .grant: return 2
        }
    }

    /// Whether `self` describes the entitlement rather than `other`, both being equally eligible
    /// (both active, or neither): the later end, then the later start, then chain > purchase >
    /// grant, then the one earlier in the store.
    func isPreferred(over other: SourceCandidate) -> Bool {
        if end != other.end {
            guard let end else { return true }
            guard let otherEnd = other.end else { return false }
            return end > otherEnd
        }
        if info.startedDate != other.info.startedDate {
            guard let start = info.startedDate else { return false }
            guard let otherStart = other.info.startedDate else { return true }
            return start > otherStart
        }
        if kindRank != other.kindRank { return kindRank < other.kindRank }
        return storeIndex < other.storeIndex
    }

    /// A `nonConsumablePurchase` (its revocation, if any, already limited to <= T).
    static func purchase(_ indexed: Indexed<Transaction>, entitlement: ID) -> SourceCandidate {
        let purchase = indexed.record
        let revoked = purchase.revocationDate != nil
        let info = EntitlementInfo(
            id: entitlement, isActive: !revoked, state: revoked ? .revoked : .active,
            renewState: .nonRenewable, willRenew: false, periodType: .normal,
            source: EntitlementSource(purchase.source),
            grantType: GrantType(ownership: purchase.ownershipType,
                                 hasOfferCode: !revoked && purchase.offerCode.isPresent),
            productId: purchase.productId, startedDate: purchase.transactionDate,
            trialStartDate: nil, firstPurchaseDate: purchase.transactionDate,
            lastPurchaseDate: purchase.transactionDate, expirationDate: nil,
            gracePeriodExpirationDate: nil, billingIssueDetectedAt: nil, autoRenewDisableDate: nil,
            autoResumeDate: nil, renewalProductId: nil, renewsCount: 0,
            isSandbox: purchase.environment == .sandbox, lastActivatedOfferCode: purchase.offerCode.isPresent ? purchase.offerCode : nil,
            grantId: nil, transactions: [purchase], sourceKind: .purchase,
            revokedAt: purchase.revocationDate)
        return SourceCandidate(info: info, end: purchase.revocationDate, storeIndex: indexed.index)
    }

    /// A manual grant (its revocation, if any, already limited to <= T).
    static func grant(_ indexed: Indexed<Grant>, at t: Instant) -> SourceCandidate {
        let grant = indexed.record
        let state: EntitlementState
        if grant.revokedAt != nil {
            state = .revoked
        } else if let expiration = grant.expirationDate, t >= expiration {
            state = .expired
        } else {
            state = .active
        }
        let info = EntitlementInfo(
            id: grant.entitlement, isActive: state == .active, state: state,
            renewState: .nonRenewable, willRenew: false, periodType: .promotional,
            source: .manual, grantType: .manual, productId: nil, startedDate: grant.grantedAt,
            trialStartDate: nil, firstPurchaseDate: nil, lastPurchaseDate: grant.grantedAt,
            expirationDate: grant.expirationDate, gracePeriodExpirationDate: nil,
            billingIssueDetectedAt: nil, autoRenewDisableDate: nil, autoResumeDate: nil,
            renewalProductId: nil, renewsCount: 0, isSandbox: false, lastActivatedOfferCode: nil,
            grantId: grant.id, transactions: [], sourceKind: .grant,
            grantedBy: grant.grantedBy, grantReason: grant.reason, revokedAt: grant.revokedAt,
            revokedBy: grant.revokedBy, revokeReason: grant.revokeReason)
        return SourceCandidate(info: info, end: grant.revokedAt ?? grant.expirationDate,
                               storeIndex: indexed.index)
    }
}

extension EntitlementSource {
    init(_ source: PurchaseSource) {
        switch source {
        case .appstore: self = .appstore
        case .playstore: self = .playstore
        case .stripe: self = .stripe
        case .amazon: self = .amazon
        case .unknown: self = .unknown
        }
    }
}

extension GrantType {
    /// Family sharing first, then an offer code, else a plain purchase (SPEC section 3).
    init(ownership: OwnershipType, hasOfferCode: Bool) {
        if ownership == .familySharing {
            self = .familySharing
        } else {
            self = hasOfferCode ? .offerCode : .purchase
        }
    }
}

extension Optional where Wrapped == String {
    /// An offer code counts only when it says something: null and "" are both "no code".
    var isPresent: Bool { self.map { !$0.isEmpty } ?? false }
}
