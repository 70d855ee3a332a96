// SPEC section 3, status of a chain, rule by rule: a small hand-written customer per rule, with
// its boundaries. Source choice and the fields table are in EntitlementRulesTests+Sources.swift.

import XCTest
@testable import SubsModel

final class EntitlementRulesTests: XCTestCase {
    private let january = RecordBuilder.january

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

    private let billingIssue = RecordBuilder.januaryWithBillingIssue

    func testGracePeriodActiveOneSecondBeforeGraceEnd() throws {
        let e = try billingIssue.entitlement(at: "2026-02-16T23:59:59Z")
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.state, .gracePeriod)
        XCTAssertEqual(e.renewState, .billingIssue)
        XCTAssertFalse(e.willRenew)
        XCTAssertEqual(e.gracePeriodExpirationDate, at("2026-02-17"))
        XCTAssertEqual(e.billingIssueDetectedAt, at("2026-02-01"))
        // expirationDate is when access ends: the grace end (RevenueCat's and Qonversion's meaning).
        XCTAssertEqual(e.expirationDate, at("2026-02-17"))
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

    /// docs/decisions.md: a billing issue at the renewal instant means the renewal was not paid.
    /// A transaction is a payment taken, so a failed renewal charge is a billingIssue with no
    /// renewal transaction: the period that ended goes into grace. When a retry succeeds, the
    /// renewal transaction is recorded then (the demo's walter, a Stripe retry), closing the issue.
    func testBillingIssueAtTheRenewalInstantMeansTheRenewalWasNotPaid() throws {
        let failed = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-02-01")
        let inGrace = try failed.entitlement(at: "2026-02-03")
        XCTAssertEqual(inGrace.state, .gracePeriod)
        XCTAssertEqual(inGrace.renewState, .billingIssue)
        XCTAssertFalse(inGrace.willRenew)
        XCTAssertEqual(inGrace.lastPurchaseDate, at("2026-01-01"), "no renewal was paid")
        XCTAssertEqual(inGrace.accessEndDate, at("2026-02-17"))

        let recovered = failed
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-04T16:12:00Z", expires: "2026-03-01")
            .event(.billingRecovered, on: "2026-02-04T16:12:00Z")
        XCTAssertEqual(try recovered.entitlement(at: "2026-02-04T16:11:59Z").state, .gracePeriod)
        let renewed = try recovered.entitlement(at: "2026-02-05")
        XCTAssertEqual(renewed.state, .active)
        XCTAssertTrue(renewed.willRenew)
        XCTAssertNil(renewed.billingIssueDetectedAt)
        XCTAssertEqual(renewed.expirationDate, at("2026-03-01"))
        XCTAssertEqual(renewed.renewsCount, 1)

        // A renewal transaction at the same instant as the issue says that renewal was paid:
        // the rule (P.transactionDate <= date) then reads the issue as about the next charge —
        // active through the renewed period, renewal at risk. That is the story of a paid
        // renewal, which is why the demo store records a failed charge without one.
        let paidThenFailed = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
            .event(.billingIssue, on: "2026-02-01")
        let atRisk = try paidThenFailed.entitlement(at: "2026-02-03")
        XCTAssertEqual(atRisk.state, .active)
        XCTAssertEqual(atRisk.renewState, .billingIssue)
        XCTAssertEqual(atRisk.lastPurchaseDate, at("2026-02-01"))
        XCTAssertEqual(atRisk.expirationDate, at("2026-03-17"))
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

    func testRefundedPeriodInForceRevokesTheChain() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01",
                          revoked: "2026-02-05")
        let e = try b.entitlement(at: "2026-02-06")
        XCTAssertEqual(e.state, .revoked)
        XCTAssertFalse(e.isActive)
        XCTAssertEqual(e.revokedAt, at("2026-02-05"))
        // P is the refunded renewal; the chain still started with t1.
        XCTAssertEqual(e.lastPurchaseDate, at("2026-02-01"))
        XCTAssertEqual(e.startedDate, at("2026-01-01"))
        XCTAssertEqual(e.renewsCount, 0)
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
}
