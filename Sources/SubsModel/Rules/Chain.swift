// One subscription chain seen through one entitlement: its status at T and the fields it gives
// (SPEC section 3, "Status of a chain" and the chain column of the fields table).

struct Chain {
    let originalTransactionId: ID
    /// The chain's subscription transactions that unlock the entitlement and exist at T, in
    /// store order (never empty). A product change inside the chain keeps only these.
    let members: [Indexed<Transaction>]
    /// Events of this chain dated <= T, in store order.
    let events: [SubscriptionEvent]

    func candidate(entitlement: ID, catalog: Catalog, at t: Instant) -> SourceCandidate? {
        // P, the period in force, is the latest transaction as of T, refunded or not: a refund of
        // the period in force revokes the chain whatever earlier transactions say.
        guard let p = members.latest(by: { $0.record.transactionDate })?.record,
              let product = catalog[p.productId]
        else { return nil }
        let live = members.filter { $0.record.revocationDate == nil }
        let revokedAt = p.revocationDate
        // A subscription transaction without expirationDate is a data error the store rejects;
        // should one get here anyway, a zero-length period grants nothing rather than forever.
        let exp = p.expirationDate ?? p.transactionDate
        let since = p.transactionDate

        let billingIssue = openBillingIssue(since: since)
        // The store refuses a date plus a period past year 9999 (RecordDecoder); should one get
        // here anyway, the period lasts to the end of year 9999 rather than trapping.
        let graceEnd = billingIssue == nil ? nil : product.gracePeriod.map { exp.adding($0) ?? .latest }
        // The store retries from the end of the paid period, not from the grace end.
        let retryEnd = billingIssue == nil ? nil : exp.adding(product.billingRetryPeriod) ?? .latest
        let scheduledPause = scheduledPause(since: since)
        // A pause is open from its date until its autoResumeDate; afterwards it is history.
        let pause = scheduledPause.flatMap { pause in pause.autoResumeDate.map { t < $0 } ?? true ? pause : nil }
        let autoRenewOff = autoRenewDisabled(since: since)
        let renewalChange = events(.renewalProductChanged).filter { $0.date > since }.latest(by: \.date)

        let state: EntitlementState
        if revokedAt != nil {
            state = .revoked
        } else if t < exp {
            state = .active
        } else if billingIssue != nil {
            if let graceEnd, t < graceEnd {
                state = .gracePeriod
            } else if let retryEnd, t < retryEnd {
                state = .billingRetry
            } else {
                state = .expired
            }
        } else if let resume = pause?.autoResumeDate, t < resume {
            state = .paused
        } else {
            state = .expired
        }
        let isActive = state == .active || state == .gracePeriod

        let renewState: RenewState
        if billingIssue != nil {
            renewState = .billingIssue
        } else if autoRenewOff != nil {
            renewState = .canceled
        } else {
            renewState = isActive ? .willRenew : .unknown
        }
        // willRenew: E continues past this period — auto-renew on, no pause ahead, and the
        // product it renews as (after a pending change) still unlocks E.
        let renewsIntoE = renewalChange?.productId.map {
            catalog.entitlements(unlockedBy: $0).contains(entitlement)
        } ?? true

        let liveRecords = live.map(\.record)
        let periodType: PeriodType
        switch p.type {
        case .trialStarted: periodType = .trial
        case .introStarted, .introRenewed: periodType = .intro
        default: periodType = .normal
        }
        let paid = liveRecords.filter { $0.type != .trialStarted }

        let info = EntitlementInfo(
            id: entitlement, isActive: isActive, state: state, renewState: renewState,
            willRenew: renewState == .willRenew && pause == nil && renewsIntoE, periodType: periodType,
            source: EntitlementSource(p.source),
            grantType: GrantType(ownership: p.ownershipType,
                                 hasOfferCode: liveRecords.contains { $0.offerCode.isPresent }),
            productId: p.productId,
            // An all-revoked chain still started somewhere: its earliest transaction.
            startedDate: (live.isEmpty ? members.map(\.record) : liveRecords).map(\.transactionDate).min(),
            trialStartDate: liveRecords.filter { $0.type == .trialStarted }.map(\.transactionDate).min(),
            firstPurchaseDate: paid.map(\.transactionDate).min(),
            lastPurchaseDate: p.transactionDate,
            // When access ends: the grace end while a billing issue is open (as RevenueCat and
            // Qonversion report it), so `requestDate < expirationDate` agrees with isActive.
            expirationDate: graceEnd ?? exp,
            gracePeriodExpirationDate: graceEnd,
            billingIssueDetectedAt: billingIssue?.date,
            autoRenewDisableDate: autoRenewOff?.date,
            autoResumeDate: pause?.autoResumeDate,
            renewalProductId: renewalChange?.productId,
            renewsCount: max(paid.count - 1, 0),
            isSandbox: p.environment == .sandbox,
            lastActivatedOfferCode: liveRecords.filter { $0.offerCode.isPresent }
                .latest(by: \.transactionDate)?.offerCode,
            grantId: nil,
            transactions: oldestFirst(),
            sourceKind: .chain,
            revokedAt: revokedAt,
            // A pause that ran to its resume date with no renewal: the wording says so.
            lapsedPauseResumeDate: state == .expired && billingIssue == nil && pause == nil
                ? scheduledPause?.autoResumeDate : nil,
            billingRetryEndDate: retryEnd)

        return SourceCandidate(info: info, end: revokedAt ?? graceEnd ?? exp, storeIndex: members[0].index)
    }

    private func events(_ type: EventType) -> [SubscriptionEvent] { events.filter { $0.type == type } }

    /// The latest billingIssue since P began that no billingRecovered has closed. A recovery at
    /// the same instant as the issue closes it: the two arrive together when a retry succeeds
    /// at once, and the customer never lost the ability to pay. Because any recovery after the
    /// latest issue is also after every earlier one, looking at the latest issue is enough.
    private func openBillingIssue(since: Instant) -> SubscriptionEvent? {
        guard let issue = events(.billingIssue).filter({ $0.date >= since }).latest(by: \.date)
        else { return nil }
        return events(.billingRecovered).contains { $0.date >= issue.date } ? nil : issue
    }

    /// The latest pauseScheduled strictly after P began, unless a pauseCanceled at or after it
    /// withdrew it (same-instant rule as billing recovery). Open only until its autoResumeDate.
    private func scheduledPause(since: Instant) -> SubscriptionEvent? {
        guard let pause = events(.pauseScheduled).filter({ $0.date > since }).latest(by: \.date)
        else { return nil }
        return events(.pauseCanceled).contains { $0.date >= pause.date } ? nil : pause
    }

    /// The autoRenewDisabled event that leaves auto-renew off: the latest one, when it is later
    /// than both the latest autoRenewEnabled and P.transactionDate (a renewal after a
    /// cancellation means the user subscribed again).
    private func autoRenewDisabled(since: Instant) -> SubscriptionEvent? {
        guard let disabled = events(.autoRenewDisabled).latest(by: \.date), disabled.date > since
        else { return nil }
        if let enabled = events(.autoRenewEnabled).latest(by: \.date), enabled.date >= disabled.date {
            return nil
        }
        return disabled
    }

    /// Members by transactionDate, store order among equal dates.
    private func oldestFirst() -> [Transaction] {
        members.sorted { a, b in
            a.record.transactionDate != b.record.transactionDate
                ? a.record.transactionDate < b.record.transactionDate
                : a.index < b.index
        }.map(\.record)
    }
}
