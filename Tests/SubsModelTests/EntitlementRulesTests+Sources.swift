// SPEC section 3, which source describes an entitlement and the fields table, rule by rule.

import XCTest
@testable import SubsModel

final class EntitlementSourcesTests: XCTestCase {
    private let january = RecordBuilder.january
    private let billingIssue = RecordBuilder.januaryWithBillingIssue

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
