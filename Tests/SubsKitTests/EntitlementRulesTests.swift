// SPEC section 3, rule by rule: a small hand-written customer per rule, with its boundaries.

import XCTest
@testable import SubsKit

final class EntitlementRulesTests: XCTestCase {
    /// One pro_monthly period, 2026-01-01 → 2026-02-01 (16-day grace, 60-day retry).
    private let january = RecordBuilder()
        .subscription("t1", on: "2026-01-01", expires: "2026-02-01")

    // MARK: - Expiration: [start, end)

    func testActiveOneSecondBeforeExpiration() throws {
        let e = try january.entitlement(at: "2026-01-31T23:59:59Z")
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.state, .active)
        XCTAssertEqual(e.renewState, .willRenew)
        XCTAssertTrue(e.willRenew)
        XCTAssertEqual(e.expirationDate, at("2026-02-01"))
        XCTAssertEqual(e.sourceKind, .chain)
    }

    func testExpiredExactlyAtExpiration() throws {
        let e = try january.entitlement(at: "2026-02-01")
        XCTAssertFalse(e.isActive)
        XCTAssertEqual(e.state, .expired)
        XCTAssertEqual(e.renewState, .unknown)
        XCTAssertFalse(e.willRenew)
    }

    func testActiveExactlyAtStart() throws {
        XCTAssertEqual(try january.entitlement(at: "2026-01-01").state, .active)
        XCTAssertTrue(january.evaluate(at: "2025-12-31T23:59:59Z").isEmpty)
    }

    func testFractionalSecondsDecideTheBoundary() throws {
        let b = RecordBuilder().subscription("t1", on: "2026-01-01", expires: "2026-02-01T00:00:00.5Z")
        XCTAssertTrue(try b.entitlement(at: "2026-02-01T00:00:00.499999999Z").isActive)
        XCTAssertFalse(try b.entitlement(at: "2026-02-01T00:00:00.5Z").isActive)
    }

    // MARK: - Billing issue, grace period, billing retry

    private let billingIssue = RecordBuilder()
        .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
        .event(.billingIssue, on: "2026-02-01")

    func testGracePeriodActiveOneSecondBeforeGraceEnd() throws {
        let e = try billingIssue.entitlement(at: "2026-02-16T23:59:59Z")
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.state, .gracePeriod)
        XCTAssertEqual(e.renewState, .billingIssue)
        XCTAssertFalse(e.willRenew)
        XCTAssertEqual(e.gracePeriodExpirationDate, at("2026-02-17"))
        XCTAssertEqual(e.billingIssueDetectedAt, at("2026-02-01"))
        XCTAssertEqual(e.expirationDate, at("2026-02-01"))
    }

    func testBillingRetryExactlyAtGraceEnd() throws {
        let e = try billingIssue.entitlement(at: "2026-02-17")
        XCTAssertFalse(e.isActive)
        XCTAssertEqual(e.state, .billingRetry)
        XCTAssertEqual(e.renewState, .billingIssue)
        XCTAssertEqual(e.gracePeriodExpirationDate, at("2026-02-17"))
    }

    func testBillingRetryEndsExactlyAtRetryEnd() throws {
        // 2026-02-01 + P60D = 2026-04-02.
        XCTAssertEqual(try billingIssue.entitlement(at: "2026-04-01T23:59:59Z").state, .billingRetry)
        let e = try billingIssue.entitlement(at: "2026-04-02")
        XCTAssertEqual(e.state, .expired)
        XCTAssertFalse(e.isActive)
        // The issue is still open, so renewState still says so.
        XCTAssertEqual(e.renewState, .billingIssue)
    }

    func testNoGracePeriodConfiguredGoesStraightToBillingRetry() throws {
        let b = RecordBuilder()
            .subscription("t1", product: "basic_monthly", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-01-31")
        let atExpiry = try b.entitlement(at: "2026-02-01")
        XCTAssertEqual(atExpiry.state, .billingRetry)
        XCTAssertFalse(atExpiry.isActive)
        XCTAssertNil(atExpiry.gracePeriodExpirationDate)
        XCTAssertEqual(atExpiry.billingIssueDetectedAt, at("2026-01-31"))
        // basic_monthly retries for P30D: 2026-03-03.
        XCTAssertEqual(try b.entitlement(at: "2026-03-02T23:59:59Z").state, .billingRetry)
        XCTAssertEqual(try b.entitlement(at: "2026-03-03").state, .expired)
    }

    func testBillingIssueBeforeExpirationKeepsAccessButFlagsRenewal() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-01-25")
        let e = try b.entitlement(at: "2026-01-26")
        XCTAssertEqual(e.state, .active)
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.renewState, .billingIssue)
        XCTAssertEqual(e.gracePeriodExpirationDate, at("2026-02-17"))
    }

    func testBillingIssueExactlyAtPTransactionDateCounts() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-01-01")
        XCTAssertEqual(try b.entitlement(at: "2026-02-05").state, .gracePeriod)
    }

    func testRenewalAfterBillingIssueClosesIt() throws {
        let b = billingIssue
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-03", expires: "2026-03-03")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.state, .active)
        XCTAssertEqual(e.renewState, .willRenew)
        XCTAssertNil(e.billingIssueDetectedAt)
        XCTAssertNil(e.gracePeriodExpirationDate)
        // After the renewed period ends without a new issue: plain expiry, no grace.
        XCTAssertEqual(try b.entitlement(at: "2026-03-03").state, .expired)
    }

    func testBillingRecoveredClosesTheIssue() throws {
        let b = billingIssue.event(.billingRecovered, on: "2026-02-05")
        XCTAssertEqual(try b.entitlement(at: "2026-02-04").state, .gracePeriod)
        let e = try b.entitlement(at: "2026-02-05")
        XCTAssertEqual(e.state, .expired)
        XCTAssertEqual(e.renewState, .unknown)
        XCTAssertNil(e.billingIssueDetectedAt)
        XCTAssertNil(e.gracePeriodExpirationDate)
    }

    func testBillingRecoveredAtTheSameInstantClosesTheIssue() throws {
        let b = billingIssue.event(.billingRecovered, on: "2026-02-01")
        XCTAssertEqual(try b.entitlement(at: "2026-02-02").state, .expired)
    }

    func testBillingRecoveredBeforeTheIssueDoesNotCloseIt() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingRecovered, on: "2026-01-20")
            .event(.billingIssue, on: "2026-02-01")
        XCTAssertEqual(try b.entitlement(at: "2026-02-02").state, .gracePeriod)
    }

    func testLatestOpenBillingIssueIsReported() throws {
        let b = billingIssue.event(.billingIssue, on: "2026-02-04")
        XCTAssertEqual(try b.entitlement(at: "2026-02-05").billingIssueDetectedAt, at("2026-02-04"))
        // Until the second issue exists, the first is the one reported.
        XCTAssertEqual(try b.entitlement(at: "2026-02-03").billingIssueDetectedAt, at("2026-02-01"))
    }

    func testBillingIssueTakesPrecedenceOverPause() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .event(.pauseScheduled, on: "2026-01-10", autoResume: "2026-04-01")
            .event(.billingIssue, on: "2026-02-01")
        XCTAssertEqual(try b.entitlement(at: "2026-02-02").state, .gracePeriod)
    }

    // MARK: - Revocation

    func testRevocationDatedAfterTHasNotHappenedYet() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", revoked: "2026-01-20")
        let before = try b.entitlement(at: "2026-01-19T23:59:59Z")
        XCTAssertEqual(before.state, .active)
        XCTAssertNil(before.revokedAt)
        XCTAssertEqual(before.transactions.count, 1)
        XCTAssertNil(before.transactions[0].revocationDate)

        let after = try b.entitlement(at: "2026-01-20")
        XCTAssertEqual(after.state, .revoked)
        XCTAssertEqual(after.transactions[0].revocationDate, at("2026-01-20"))
    }

    func testChainWithEveryTransactionRevokedIsRevoked() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", revoked: "2026-01-15")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01",
                          offerCode: "SPRING", revoked: "2026-02-10")
        let e = try b.entitlement(at: "2026-02-20")
        XCTAssertEqual(e.state, .revoked)
        XCTAssertFalse(e.isActive)
        XCTAssertEqual(e.revokedAt, at("2026-02-10"))
        // P falls back to the latest transaction.
        XCTAssertEqual(e.lastPurchaseDate, at("2026-02-01"))
        XCTAssertEqual(e.expirationDate, at("2026-03-01"))
        XCTAssertEqual(e.startedDate, at("2026-01-01"))
        XCTAssertNil(e.firstPurchaseDate)
        XCTAssertEqual(e.renewsCount, 0)
        XCTAssertNil(e.lastActivatedOfferCode)
        XCTAssertEqual(e.grantType, .purchase)
        XCTAssertEqual(e.transactions.map(\.transactionId), ["t1", "t2"])
    }

    func testRevokedRenewalFallsBackToTheLatestLiveTransaction() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01",
                          revoked: "2026-02-05")
        let e = try b.entitlement(at: "2026-02-06")
        XCTAssertEqual(e.state, .expired)
        XCTAssertEqual(e.expirationDate, at("2026-02-01"))
        XCTAssertEqual(e.lastPurchaseDate, at("2026-01-01"))
        XCTAssertEqual(e.renewsCount, 0)
        XCTAssertNil(e.revokedAt)
        XCTAssertEqual(e.transactions.map(\.revocationDate), [nil, at("2026-02-05")])
    }

    func testRefundedPurchaseIsRevoked() throws {
        let b = RecordBuilder().purchase("p1", on: "2026-01-01", revoked: "2026-01-20")
        XCTAssertEqual(try b.entitlement(at: "2026-01-19").state, .active)
        let e = try b.entitlement(at: "2026-01-20")
        XCTAssertEqual(e.state, .revoked)
        XCTAssertFalse(e.isActive)
        XCTAssertEqual(e.renewState, .nonRenewable)
        XCTAssertEqual(e.revokedAt, at("2026-01-20"))
        XCTAssertEqual(e.sourceKind, .purchase)
        XCTAssertEqual(e.transactions.map(\.transactionId), ["p1"])
        XCTAssertEqual(e.transactions[0].revocationDate, at("2026-01-20"))
    }

    // MARK: - Auto-renew

    func testAutoRenewDisabledMeansCanceledButStillActive() throws {
        let b = january.event(.autoRenewDisabled, on: "2026-01-10")
        let e = try b.entitlement(at: "2026-01-20")
        XCTAssertEqual(e.state, .active)
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.renewState, .canceled)
        XCTAssertFalse(e.willRenew)
        XCTAssertEqual(e.autoRenewDisableDate, at("2026-01-10"))
        // Before the event exists, nothing is cancelled.
        XCTAssertEqual(try b.entitlement(at: "2026-01-09").renewState, .willRenew)
        // After expiry the cancellation is still what explains it.
        XCTAssertEqual(try b.entitlement(at: "2026-02-02").renewState, .canceled)
    }

    func testAutoRenewEnabledAfterDisabledRenewsAgain() throws {
        let b = january
            .event(.autoRenewDisabled, on: "2026-01-10")
            .event(.autoRenewEnabled, on: "2026-01-12")
        let e = try b.entitlement(at: "2026-01-20")
        XCTAssertEqual(e.renewState, .willRenew)
        XCTAssertNil(e.autoRenewDisableDate)
        XCTAssertEqual(try b.entitlement(at: "2026-01-11").renewState, .canceled)
    }

    func testAutoRenewDisabledAgainAfterEnabled() throws {
        let b = january
            .event(.autoRenewDisabled, on: "2026-01-10")
            .event(.autoRenewEnabled, on: "2026-01-12")
            .event(.autoRenewDisabled, on: "2026-01-14")
        XCTAssertEqual(try b.entitlement(at: "2026-01-20").autoRenewDisableDate, at("2026-01-14"))
    }

    func testAutoRenewDisabledAndEnabledAtTheSameInstantIsNotOff() throws {
        let b = january
            .event(.autoRenewDisabled, on: "2026-01-10")
            .event(.autoRenewEnabled, on: "2026-01-10")
        XCTAssertEqual(try b.entitlement(at: "2026-01-20").renewState, .willRenew)
    }

    func testAutoRenewDisabledBeforeTheLatestRenewalDoesNotCount() throws {
        let b = january
            .event(.autoRenewDisabled, on: "2026-01-10")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.renewState, .willRenew)
        XCTAssertNil(e.autoRenewDisableDate)
    }

    func testEventsOfAnotherChainDoNotApply() throws {
        let b = january.event(.autoRenewDisabled, on: "2026-01-10", chain: "other")
        XCTAssertEqual(try b.entitlement(at: "2026-01-20").renewState, .willRenew)
    }

    // MARK: - Pause

    private let pausing = RecordBuilder()
        .subscription("t1", on: "2026-01-01", expires: "2026-02-01", source: .playstore)
        .event(.pauseScheduled, on: "2026-01-15", autoResume: "2026-04-01")

    func testPauseScheduledShowsResumeDateWhileStillActive() throws {
        let e = try pausing.entitlement(at: "2026-01-20")
        XCTAssertEqual(e.state, .active)
        XCTAssertEqual(e.autoResumeDate, at("2026-04-01"))
    }

    func testPausedFromExpirationUntilAutoResumeDateThenExpired() throws {
        let paused = try pausing.entitlement(at: "2026-02-01")
        XCTAssertEqual(paused.state, .paused)
        XCTAssertFalse(paused.isActive)
        XCTAssertEqual(paused.renewState, .unknown)
        XCTAssertEqual(paused.autoResumeDate, at("2026-04-01"))
        XCTAssertEqual(try pausing.entitlement(at: "2026-03-31T23:59:59Z").state, .paused)
        XCTAssertEqual(try pausing.entitlement(at: "2026-04-01").state, .expired)
    }

    func testPauseScheduledThenCanceled() throws {
        let b = pausing.event(.pauseCanceled, on: "2026-01-20")
        XCTAssertEqual(try b.entitlement(at: "2026-01-19").autoResumeDate, at("2026-04-01"))
        let e = try b.entitlement(at: "2026-02-01")
        XCTAssertEqual(e.state, .expired)
        XCTAssertNil(e.autoResumeDate)
    }

    func testPauseScheduledBeforeTheCurrentPeriodDoesNotApply() throws {
        let b = pausing
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
        let e = try b.entitlement(at: "2026-03-01")
        XCTAssertEqual(e.state, .expired)
        XCTAssertNil(e.autoResumeDate)
    }

    func testPauseScheduledAtTheInstantOfTheRenewalDoesNotApply() throws {
        // "after P.transactionDate" is strict: a pause scheduled at that instant belongs to the
        // period before.
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
            .event(.pauseScheduled, on: "2026-02-01", autoResume: "2026-05-01")
        let e = try b.entitlement(at: "2026-03-01")
        XCTAssertEqual(e.state, .expired)
        XCTAssertNil(e.autoResumeDate)
    }

    func testPauseCanceledAtTheSameInstantWithdrawsIt() throws {
        let b = pausing.event(.pauseCanceled, on: "2026-01-15")
        XCTAssertEqual(try b.entitlement(at: "2026-02-01").state, .expired)
    }

    // MARK: - Renewal product

    func testRenewalProductChangedIsClearedByTheNextRenewal() throws {
        let b = january
            .event(.renewalProductChanged, on: "2026-01-20", productId: "basic_monthly")
            .subscription("t2", product: "basic_monthly", type: .subscriptionRenewed,
                          on: "2026-02-01", expires: "2026-03-01")
        XCTAssertNil(try b.entitlement(at: "2026-01-19").renewalProductId)
        XCTAssertEqual(try b.entitlement(at: "2026-01-25").renewalProductId, "basic_monthly")
        let renewed = try b.entitlement(at: "2026-02-02")
        XCTAssertNil(renewed.renewalProductId)
        XCTAssertEqual(renewed.productId, "basic_monthly")
    }

    func testProductChangeInsideAChainKeepsOnlyTheUnlockingTransactions() throws {
        let b = RecordBuilder()
            .subscription("t1", product: "cloud_monthly", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", product: "pro_yearly", type: .subscriptionRenewed, on: "2026-02-01", expires: "2027-02-01")
        let all = b.evaluate(at: "2026-03-01")
        XCTAssertEqual(all.map(\.id), ["cloud", "premium"])
        let cloud = all[0], premium = all[1]
        XCTAssertEqual(cloud.transactions.map(\.transactionId), ["t1", "t2"])
        XCTAssertEqual(cloud.renewsCount, 1)
        XCTAssertEqual(premium.transactions.map(\.transactionId), ["t2"])
        XCTAssertEqual(premium.startedDate, at("2026-02-01"))
        XCTAssertEqual(premium.renewsCount, 0)
        XCTAssertEqual(premium.productId, "pro_yearly")
    }

    // MARK: - Competing sources

    func testLifetimePurchaseBeatsActiveSubscription() throws {
        let b = january.purchase("p1", on: "2025-06-01")
        let e = try b.entitlement(at: "2026-01-10")
        XCTAssertEqual(e.sourceKind, .purchase)
        XCTAssertEqual(e.productId, "lifetime")
        XCTAssertNil(e.expirationDate)
        XCTAssertEqual(e.state, .active)
    }

    func testActiveGrantBeatsExpiredSubscription() throws {
        let b = january.grant("g1", on: "2026-01-15", until: "2026-02-15", by: "dana", reason: "goodwill")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.sourceKind, .grant)
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.grantId, "g1")
    }

    func testActiveSubscriptionWithLaterEndBeatsActiveGrant() throws {
        let b = january.grant("g1", on: "2026-01-02", until: "2026-01-25")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").sourceKind, .chain)
        // After the grant ends the subscription still describes it, of course.
        XCTAssertEqual(try b.entitlement(at: "2026-01-26").sourceKind, .chain)
    }

    func testActiveGrantWithLaterEndBeatsActiveSubscription() throws {
        let b = january.grant("g1", on: "2026-01-02", until: "2026-03-01")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").sourceKind, .grant)
    }

    func testGracePeriodExtendsTheChainsEnd() throws {
        // Grant ends 2026-02-10; the chain in grace ends 2026-02-17 and wins.
        let b = billingIssue.grant("g1", on: "2026-01-02", until: "2026-02-10")
        let e = try b.entitlement(at: "2026-02-05")
        XCTAssertEqual(e.sourceKind, .chain)
        XCTAssertEqual(e.state, .gracePeriod)
    }

    func testWithNoActiveSourceTheLatestEndDescribes() throws {
        let b = january
            .grant("g1", on: "2026-01-02", until: "2026-01-20")
            .grant("g2", on: "2026-01-03", until: "2026-01-10", revoked: "2026-01-05")
        let e = try b.entitlement(at: "2026-03-01")
        XCTAssertEqual(e.sourceKind, .chain)
        XCTAssertEqual(e.state, .expired)
    }

    func testActiveSourceBeatsRevokedPurchase() throws {
        let b = RecordBuilder()
            .purchase("p1", on: "2026-01-01", revoked: "2026-01-05")
            .grant("g1", on: "2026-01-02", until: "2026-01-10")
        XCTAssertEqual(try b.entitlement(at: "2026-01-06").sourceKind, .grant)
        // Once the grant has expired too, nothing is active and the grant's end (01-10) is later
        // than the refund (01-05).
        let inactive = try b.entitlement(at: "2026-01-11")
        XCTAssertEqual(inactive.sourceKind, .grant)
        XCTAssertEqual(inactive.state, .expired)
    }

    func testTieOnEndPrefersTheLaterStart() throws {
        let b = RecordBuilder()
            .grant("early", on: "2026-01-01", until: "2026-03-01")
            .grant("late", on: "2026-01-05", until: "2026-03-01")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").grantId, "late")
    }

    func testTieOnEndAndStartPrefersChainOverGrant() throws {
        let b = RecordBuilder()
            .grant("g1", on: "2026-01-01", until: "2026-02-01")
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").sourceKind, .chain)
    }

    func testTieOnEndAndStartPrefersPurchaseOverGrant() throws {
        let b = RecordBuilder()
            .grant("g1", on: "2026-01-01", until: nil)
            .purchase("p1", on: "2026-01-01")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").sourceKind, .purchase)
    }

    func testTieOnEverythingPrefersTheEarlierInTheStore() throws {
        let b = RecordBuilder()
            .purchase("p2", on: "2026-01-01")
            .purchase("p1", on: "2026-01-01")
            .grant("g2", "cloud", on: "2026-01-01", until: "2026-02-01")
            .grant("g1", "cloud", on: "2026-01-01", until: "2026-02-01")
        let all = b.evaluate(at: "2026-01-10")
        XCTAssertEqual(all.first { $0.id == "premium" }?.transactions.map(\.transactionId), ["p2"])
        XCTAssertEqual(all.first { $0.id == "cloud" }?.grantId, "g2")
    }

    func testTwoChainsOfTheSameEntitlementTieOnStoreOrder() throws {
        let b = RecordBuilder()
            .subscription("b1", chain: "b", on: "2026-01-01", expires: "2026-02-01")
            .subscription("a1", chain: "a", on: "2026-01-01", expires: "2026-02-01")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").transactions.map(\.transactionId), ["b1"])
    }

    func testPIsTheLaterInTheStoreAmongEqualTransactionDates() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", product: "basic_monthly", type: .subscriptionRenewed, on: "2026-01-01", expires: "2026-03-01")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.productId, "basic_monthly")
        XCTAssertEqual(e.state, .active)
    }

    // MARK: - Records after T

    func testRecordsDatedAfterTDoNotExist() throws {
        let b = january
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
            .event(.autoRenewDisabled, on: "2026-02-15")
            .grant("g1", "cloud", on: "2026-02-15", until: nil)
        let all = b.evaluate(at: "2026-01-31")
        XCTAssertEqual(all.map(\.id), ["premium"])
        XCTAssertEqual(all[0].transactions.map(\.transactionId), ["t1"])
        XCTAssertEqual(all[0].expirationDate, at("2026-02-01"))
        XCTAssertEqual(all[0].renewState, .willRenew)
        // Exactly at its date a record exists.
        let later = b.evaluate(at: "2026-02-15")
        XCTAssertEqual(later.map(\.id), ["cloud", "premium"])
        XCTAssertEqual(later[1].renewState, .canceled)
        XCTAssertEqual(later[1].renewsCount, 1)
    }

    func testNoSourceMeansNoEntitlement() {
        XCTAssertTrue(RecordBuilder().evaluate(at: "2026-01-01").isEmpty)
    }

    func testConsumablesUnlockNothing() {
        let b = RecordBuilder().purchase("c1", product: "coins_100", type: .consumablePurchase, on: "2026-01-01")
        XCTAssertTrue(b.evaluate(at: "2026-01-02").isEmpty)
    }

    func testResultIsSortedByEntitlementId() {
        let b = RecordBuilder()
            .grant("g1", "zeta", on: "2026-01-01", until: nil)
            .subscription("t1", product: "pro_yearly", on: "2026-01-01", expires: "2027-01-01")
            .grant("g2", "alpha", on: "2026-01-01", until: nil)
        XCTAssertEqual(b.evaluate(at: "2026-02-01").map(\.id), ["alpha", "cloud", "premium", "zeta"])
    }

    // MARK: - Fields

    func testPeriodTypeFollowsPsType() throws {
        let cases: [(TransactionType, PeriodType)] = [
            (.trialStarted, .trial), (.introStarted, .intro), (.introRenewed, .intro),
            (.subscriptionStarted, .normal), (.subscriptionRenewed, .normal),
        ]
        for (type, expected) in cases {
            let b = RecordBuilder().subscription("t1", type: type, on: "2026-01-01", expires: "2026-02-01")
            XCTAssertEqual(try b.entitlement(at: "2026-01-10").periodType, expected, "\(type)")
        }
        XCTAssertEqual(try RecordBuilder().purchase("p1", on: "2026-01-01").entitlement(at: "2026-01-10").periodType, .normal)
        XCTAssertEqual(try RecordBuilder().grant("g1", on: "2026-01-01", until: nil).entitlement(at: "2026-01-10").periodType, .promotional)
    }

    func testPeriodTypeChangesWhenTheTrialConverts() throws {
        let b = RecordBuilder().monthlyChain(from: "2026-01-01", types: [.trialStarted, .subscriptionStarted])
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").periodType, .trial)
        XCTAssertEqual(try b.entitlement(at: "2026-02-10").periodType, .normal)
    }

    func testGrantTypeFamilySharing() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", ownership: .familySharing, offerCode: "X")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").grantType, .familySharing)
        let purchase = RecordBuilder().purchase("p1", on: "2026-01-01", ownership: .familySharing)
        XCTAssertEqual(try purchase.entitlement(at: "2026-01-10").grantType, .familySharing)
    }

    func testGrantTypeOfferCodeFromAnyLiveTransactionOfTheChain() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", offerCode: "WELCOME")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.grantType, .offerCode)
        XCTAssertEqual(e.lastActivatedOfferCode, "WELCOME")
        let purchase = RecordBuilder().purchase("p1", on: "2026-01-01", offerCode: "LIFE")
        XCTAssertEqual(try purchase.entitlement(at: "2026-01-10").grantType, .offerCode)
        XCTAssertEqual(try purchase.entitlement(at: "2026-01-10").lastActivatedOfferCode, "LIFE")
    }

    func testGrantTypeIgnoresOfferCodesOfRevokedTransactions() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", offerCode: "WELCOME", revoked: "2026-01-03")
            .subscription("t2", chain: "c1", type: .subscriptionRenewed, on: "2026-01-05", expires: "2026-02-05")
        let e = try b.entitlement(at: "2026-01-10")
        XCTAssertEqual(e.grantType, .purchase)
        XCTAssertNil(e.lastActivatedOfferCode)
        // Before the revocation happened, the code counted.
        XCTAssertEqual(try b.entitlement(at: "2026-01-02").grantType, .offerCode)
    }

    func testGrantTypePurchaseAndManual() throws {
        XCTAssertEqual(try january.entitlement(at: "2026-01-10").grantType, .purchase)
        let grant = try RecordBuilder().grant("g1", on: "2026-01-01", until: nil).entitlement(at: "2026-01-10")
        XCTAssertEqual(grant.grantType, .manual)
        XCTAssertEqual(grant.source, .manual)
    }

    func testLastActivatedOfferCodeIsTheLatestOne() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", offerCode: "FIRST")
            .subscription("t3", type: .subscriptionRenewed, on: "2026-03-01", expires: "2026-04-01")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01", offerCode: "SECOND")
        XCTAssertEqual(try b.entitlement(at: "2026-03-10").lastActivatedOfferCode, "SECOND")
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").lastActivatedOfferCode, "FIRST")
    }

    func testSourceProductAndSandboxComeFromP() throws {
        let b = RecordBuilder()
            .subscription("t1", product: "basic_monthly", on: "2026-01-01", expires: "2026-02-01", source: .stripe)
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01",
                          source: .amazon, environment: .sandbox)
        let first = try b.entitlement(at: "2026-01-10")
        XCTAssertEqual(first.source, .stripe)
        XCTAssertEqual(first.productId, "basic_monthly")
        XCTAssertFalse(first.isSandbox)
        let second = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(second.source, .amazon)
        XCTAssertEqual(second.productId, "pro_monthly")
        XCTAssertTrue(second.isSandbox)
        XCTAssertEqual(second.lastPurchaseDate, at("2026-02-01"))
        let purchase = RecordBuilder().purchase("p1", on: "2026-01-01", source: .playstore, environment: .sandbox)
        XCTAssertTrue(try purchase.entitlement(at: "2026-01-10").isSandbox)
        XCTAssertEqual(try purchase.entitlement(at: "2026-01-10").source, .playstore)
    }

    func testTrialStartAndFirstPurchaseDates() throws {
        let b = RecordBuilder().monthlyChain(from: "2026-01-01", types: [.trialStarted, .subscriptionStarted, .subscriptionRenewed])
        let e = try b.entitlement(at: "2026-03-10")
        XCTAssertEqual(e.trialStartDate, at("2026-01-01"))
        XCTAssertEqual(e.firstPurchaseDate, at("2026-02-01"))
        XCTAssertEqual(e.startedDate, at("2026-01-01"))
        XCTAssertEqual(e.lastPurchaseDate, at("2026-03-01"))
        // During the trial nothing has been paid yet.
        let trial = try b.entitlement(at: "2026-01-10")
        XCTAssertNil(trial.firstPurchaseDate)
        XCTAssertEqual(trial.trialStartDate, at("2026-01-01"))

        let plain = try january.entitlement(at: "2026-01-10")
        XCTAssertNil(plain.trialStartDate)
        XCTAssertEqual(plain.firstPurchaseDate, at("2026-01-01"))
    }

    func testRevokedTrialIsNotATrialStart() throws {
        let b = RecordBuilder()
            .subscription("t1", type: .trialStarted, on: "2026-01-01", expires: "2026-01-08", revoked: "2026-01-02")
            .subscription("t2", type: .subscriptionStarted, on: "2026-01-08", expires: "2026-02-08")
        let e = try b.entitlement(at: "2026-01-10")
        XCTAssertNil(e.trialStartDate)
        XCTAssertEqual(e.startedDate, at("2026-01-08"))
    }

    func testRenewsCountSkipsTrialAndRevokedTransactions() throws {
        let b = RecordBuilder()
            .monthlyChain(from: "2026-01-01", types: [.trialStarted, .subscriptionStarted, .subscriptionRenewed,
                                                      .subscriptionRenewed])
            .subscription("x", type: .subscriptionRenewed, on: "2026-05-01", expires: "2026-06-01", revoked: "2026-05-02")
        XCTAssertEqual(try b.entitlement(at: "2026-05-10").renewsCount, 2)
        XCTAssertEqual(try b.entitlement(at: "2026-01-10").renewsCount, 0)
        XCTAssertEqual(try b.entitlement(at: "2026-02-10").renewsCount, 0)
        XCTAssertEqual(try b.entitlement(at: "2026-03-10").renewsCount, 1)
        // Before its revocation, the last renewal counted.
        XCTAssertEqual(try b.entitlement(at: "2026-05-01T12:00:00Z").renewsCount, 3)
    }

    func testQonversionTwentyTransactionChainRenewedEighteenTimes() throws {
        let types: [TransactionType] = [.trialStarted, .subscriptionStarted]
            + Array(repeating: .subscriptionRenewed, count: 18)
        let b = RecordBuilder().monthlyChain(from: "2024-01-01", types: types)
        let e = try b.entitlement(at: "2025-08-15")
        XCTAssertEqual(e.transactions.count, 20)
        XCTAssertEqual(e.renewsCount, 18)
        XCTAssertEqual(e.state, .active)
        XCTAssertEqual(e.expirationDate, at("2025-09-01"))
    }

    func testTransactionsAreOldestFirstWhateverTheStoreOrder() throws {
        let b = RecordBuilder()
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.transactions.map(\.transactionId), ["t1", "t2"])
        XCTAssertEqual(e.startedDate, at("2026-01-01"))
    }

    func testPurchaseFields() throws {
        let e = try RecordBuilder().purchase("p1", on: "2026-01-01", source: .appstore).entitlement(at: "2026-06-01")
        XCTAssertEqual(e.state, .active)
        XCTAssertEqual(e.renewState, .nonRenewable)
        XCTAssertFalse(e.willRenew)
        XCTAssertEqual(e.startedDate, at("2026-01-01"))
        XCTAssertEqual(e.firstPurchaseDate, at("2026-01-01"))
        XCTAssertEqual(e.lastPurchaseDate, at("2026-01-01"))
        XCTAssertNil(e.expirationDate)
        XCTAssertEqual(e.renewsCount, 0)
        XCTAssertNil(e.grantId)
        XCTAssertNil(e.revokedAt)
        XCTAssertEqual(e.transactions.map(\.transactionId), ["p1"])
    }

    // MARK: - Grants

    func testGrantActiveThenExpiredExactlyAtExpiration() throws {
        let b = RecordBuilder().grant("g1", on: "2026-01-01", until: "2026-02-01", by: "dana", reason: "goodwill")
        let active = try b.entitlement(at: "2026-01-31T23:59:59Z")
        XCTAssertEqual(active.state, .active)
        XCTAssertTrue(active.isActive)
        XCTAssertEqual(active.renewState, .nonRenewable)
        XCTAssertEqual(active.grantId, "g1")
        XCTAssertEqual(active.grantedBy, "dana")
        XCTAssertEqual(active.grantReason, "goodwill")
        XCTAssertEqual(active.startedDate, at("2026-01-01"))
        XCTAssertEqual(active.lastPurchaseDate, at("2026-01-01"))
        XCTAssertNil(active.firstPurchaseDate)
        XCTAssertNil(active.productId)
        XCTAssertEqual(active.expirationDate, at("2026-02-01"))
        XCTAssertEqual(active.transactions, [])
        XCTAssertFalse(active.isSandbox)
        let expired = try b.entitlement(at: "2026-02-01")
        XCTAssertEqual(expired.state, .expired)
        XCTAssertFalse(expired.isActive)
    }

    func testLifetimeGrantNeverExpires() throws {
        let e = try RecordBuilder().grant("g1", on: "2026-01-01", until: nil).entitlement(at: "2099-01-01")
        XCTAssertEqual(e.state, .active)
        XCTAssertNil(e.expirationDate)
    }

    func testGrantRevokedExactlyAtRevokedAt() throws {
        let b = RecordBuilder().grant("g1", on: "2026-01-01", until: nil, revoked: "2026-01-10",
                                      revokedBy: "sam", revokeReason: "abuse")
        let before = try b.entitlement(at: "2026-01-09T23:59:59Z")
        XCTAssertEqual(before.state, .active)
        XCTAssertNil(before.revokedAt)
        let revoked = try b.entitlement(at: "2026-01-10")
        XCTAssertEqual(revoked.state, .revoked)
        XCTAssertFalse(revoked.isActive)
        XCTAssertEqual(revoked.revokedAt, at("2026-01-10"))
    }

    func testGrantDatedAfterTDoesNotExist() {
        let b = RecordBuilder().grant("g1", on: "2026-01-10", until: nil)
        XCTAssertTrue(b.evaluate(at: "2026-01-09T23:59:59Z").isEmpty)
        XCTAssertEqual(b.evaluate(at: "2026-01-10").map(\.id), ["premium"])
    }

    // MARK: - Purity

    func testEvaluationIsAPureFunctionOfItsInputs() {
        let b = billingIssue.event(.autoRenewDisabled, on: "2026-01-20").grant("g1", "cloud", on: "2026-01-01", until: nil)
        XCTAssertEqual(b.evaluate(at: "2026-02-05"), b.evaluate(at: "2026-02-05"))
        let status = EntitlementRules.status(of: b.build(), catalog: TestCatalog.standard, at: at("2026-02-05"))
        XCTAssertEqual(status.requestDate, at("2026-02-05"))
        XCTAssertEqual(status.activeEntitlementIds, ["cloud", "premium"])
    }
}
