// SPEC section 3 as revised to agree with RevenueCat and Qonversion: one named test per change,
// with its boundaries (exactly at the grace end, a refund dated exactly T, a resume date exactly T).

import XCTest
@testable import SubsModel

final class EntitlementRulesRevisionTests: XCTestCase {
    private let billingIssue = RecordBuilder.januaryWithBillingIssue

    // MARK: - expirationDate is when access ends

    func testExpirationDateIsTheGraceEndWhileABillingIssueIsOpen() throws {
        // Every instant of the grace period: active, and requestDate < expirationDate.
        for t in ["2026-02-01", "2026-02-10", "2026-02-16T23:59:59Z"] {
            let e = try billingIssue.entitlement(at: t)
            XCTAssertTrue(e.isActive, t)
            XCTAssertEqual(e.expirationDate, at("2026-02-17"), t)
            XCTAssertLessThan(at(t), try XCTUnwrap(e.expirationDate), t)
        }
    }

    func testExactlyAtTheGraceEndAccessHasEnded() throws {
        let e = try billingIssue.entitlement(at: "2026-02-17")
        XCTAssertFalse(e.isActive)
        XCTAssertEqual(e.state, .billingRetry)
        // Access ended at the grace end, which is what expirationDate reports.
        XCTAssertEqual(e.expirationDate, at("2026-02-17"))
    }

    func testWithoutAGracePeriodExpirationDateIsThePeriodEnd() throws {
        let b = RecordBuilder()
            .subscription("t1", product: "basic_monthly", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-02-01")
        let e = try b.entitlement(at: "2026-02-02")
        XCTAssertEqual(e.state, .billingRetry)
        XCTAssertEqual(e.expirationDate, at("2026-02-01"))
        XCTAssertNil(e.gracePeriodExpirationDate)
    }

    func testRecoveredBillingIssueRestoresThePeriodEnd() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-01-25")
            .event(.billingRecovered, on: "2026-01-27")
        XCTAssertEqual(try b.entitlement(at: "2026-01-26").expirationDate, at("2026-02-17"))
        XCTAssertEqual(try b.entitlement(at: "2026-01-28").expirationDate, at("2026-02-01"))
    }

    func testActiveSourcesAlwaysEndAfterTheRequestDate() throws {
        let customers = [RecordBuilder.january, billingIssue,
                         RecordBuilder.january.event(.autoRenewDisabled, on: "2026-01-10")]
        for customer in customers {
            var t = at("2026-01-01")
            while t < at("2026-05-01") {
                for e in customer.evaluate(at: ISODate.format(t)) where e.isActive {
                    if let end = e.expirationDate { XCTAssertLessThan(t, end) }
                }
                t = t.adding(ISODuration(hours: 12))!
            }
        }
    }

    // MARK: - A refunded period in force revokes

    func testRefundDatedExactlyTRevokes() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01",
                          revoked: "2026-02-10")
        let before = try b.entitlement(at: "2026-02-09T23:59:59Z")
        XCTAssertEqual(before.state, .active)
        XCTAssertNil(before.revokedAt)
        let exactly = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(exactly.state, .revoked)
        XCTAssertFalse(exactly.isActive)
        XCTAssertEqual(exactly.revokedAt, at("2026-02-10"))
    }

    func testRefundOfAnEarlierPeriodDoesNotRevokeTheCurrentOne() throws {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", revoked: "2026-01-20")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01")
        let e = try b.entitlement(at: "2026-02-05")
        XCTAssertEqual(e.state, .active)
        XCTAssertNil(e.revokedAt)
        XCTAssertEqual(e.startedDate, at("2026-02-01"))
    }

    func testRevokedChainEndsAtThePeriodsRevocation() throws {
        // The revoked chain's end is P's revocation, not a later refund of an earlier period: a
        // grant that ran past P's refund describes the entitlement when nothing is active.
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", revoked: "2026-02-08")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01",
                          revoked: "2026-02-03")
            .grant("g1", on: "2026-01-01", until: "2026-02-05")
        let e = try b.entitlement(at: "2026-02-10")
        XCTAssertEqual(e.sourceKind, .grant)
        XCTAssertEqual(e.state, .expired)
    }

    // MARK: - willRenew: continues past this period

    func testScheduledPauseMeansNoRenewal() throws {
        let b = RecordBuilder.january.event(.pauseScheduled, on: "2026-01-15", autoResume: "2026-04-01")
        XCTAssertTrue(try b.entitlement(at: "2026-01-14").willRenew)
        let e = try b.entitlement(at: "2026-01-15")
        XCTAssertTrue(e.isActive)
        XCTAssertEqual(e.renewState, .willRenew, "renewState stays the store's auto-renew setting")
        XCTAssertFalse(e.willRenew)
        XCTAssertEqual(e.autoResumeDate, at("2026-04-01"))
    }

    func testPendingProductChangeThatDropsTheEntitlementMeansNoRenewal() throws {
        // pro_yearly unlocks premium and cloud; pro_monthly only premium.
        let b = RecordBuilder()
            .subscription("t1", product: "pro_yearly", on: "2026-01-01", expires: "2027-01-01")
            .event(.renewalProductChanged, on: "2026-06-01", productId: "pro_monthly")
        let before = b.evaluate(at: "2026-05-31T23:59:59Z")
        XCTAssertEqual(before.map(\.willRenew), [true, true])
        let after = b.evaluate(at: "2026-06-01")
        let cloud = try XCTUnwrap(after.first { $0.id == "cloud" })
        let premium = try XCTUnwrap(after.first { $0.id == "premium" })
        XCTAssertFalse(cloud.willRenew)
        XCTAssertEqual(cloud.renewState, .willRenew)
        XCTAssertEqual(cloud.renewalProductId, "pro_monthly")
        XCTAssertTrue(premium.willRenew)
    }

    func testChangeToAProductMissingFromTheCatalogMeansNoRenewal() throws {
        let b = RecordBuilder.january.event(.renewalProductChanged, on: "2026-01-10", productId: "gone")
        XCTAssertFalse(try b.entitlement(at: "2026-01-11").willRenew)
    }

    // MARK: - A pause is open until its autoResumeDate

    private let pausing = RecordBuilder()
        .subscription("t1", on: "2026-01-01", expires: "2026-02-01", source: .playstore)
        .event(.pauseScheduled, on: "2026-01-15", autoResume: "2026-04-01")

    func testResumeDateExactlyTClosesThePause() throws {
        let paused = try pausing.entitlement(at: "2026-03-31T23:59:59Z")
        XCTAssertEqual(paused.state, .paused)
        XCTAssertEqual(paused.autoResumeDate, at("2026-04-01"))
        let e = try pausing.entitlement(at: "2026-04-01")
        XCTAssertEqual(e.state, .expired)
        XCTAssertNil(e.autoResumeDate)
        XCTAssertEqual(e.lapsedPauseResumeDate, at("2026-04-01"))
    }

    func testRenewalAfterThePauseLeavesNoTraceOfIt() throws {
        let b = pausing.subscription("t2", type: .subscriptionRenewed, on: "2026-04-01", expires: "2026-05-01")
        let e = try b.entitlement(at: "2026-04-02")
        XCTAssertEqual(e.state, .active)
        XCTAssertNil(e.autoResumeDate)
        XCTAssertNil(e.lapsedPauseResumeDate)
        XCTAssertTrue(e.willRenew)
    }
}
