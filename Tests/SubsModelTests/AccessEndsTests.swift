// When access ended (the history timeline's milestone), derived with the rules of SPEC section 3:
// each end is a moment at which the rules say active just before and inactive from then on, and
// no other source carried access on. Checked against the rules themselves on random customers.

import XCTest
@testable import SubsModel

final class AccessEndsTests: XCTestCase {
    func ends(_ builder: RecordBuilder, until: String = "2030-01-01") -> [AccessEnd] {
        AccessEnds.of(builder.build(), catalog: TestCatalog.standard, until: at(until))
    }

    func testAPeriodThatRunsOutEndsAccessAtItsExpiration() {
        XCTAssertEqual(ends(RecordBuilder.january),
                       [AccessEnd(entitlement: "premium", date: at("2026-02-01"), cause: .expired(productId: "pro_monthly", autoRenewOff: false))])
        XCTAssertEqual(ends(RecordBuilder.january, until: "2026-01-31"), [], "not ended yet at the history's end")
        XCTAssertEqual(ends(RecordBuilder.january.event(.autoRenewDisabled, on: "2026-01-10")).first?.cause,
                       .expired(productId: "pro_monthly", autoRenewOff: true))
        // Auto-renew turned back on: not the reason.
        XCTAssertEqual(ends(RecordBuilder.january.event(.autoRenewDisabled, on: "2026-01-10")
                                .event(.autoRenewEnabled, on: "2026-01-11")).first?.cause,
                       .expired(productId: "pro_monthly", autoRenewOff: false))
    }

    func testRenewalsWithoutGapsAreOneStretchOfAccess() {
        let chain = RecordBuilder().monthlyChain(from: "2026-01-01", types: [.subscriptionStarted, .subscriptionRenewed, .subscriptionRenewed])
        XCTAssertEqual(ends(chain).map(\.date), [at("2026-04-01")])
        // A gap between two chains: two ends.
        let gap = RecordBuilder.january.subscription("t2", chain: "c2", on: "2026-03-01", expires: "2026-04-01")
        XCTAssertEqual(ends(gap).map(\.date), [at("2026-02-01"), at("2026-04-01")])
    }

    func testABillingIssueEndsAccessAtTheGraceEndAndNeverFlickers() {
        // Detected a minute after the period ended: the grace runs from the period's end.
        let late = RecordBuilder.january.event(.billingIssue, on: "2026-02-01T00:01:00Z")
        XCTAssertEqual(ends(late), [AccessEnd(entitlement: "premium", date: at("2026-02-17"), cause: .billingIssue(productId: "pro_monthly"))])
        // Recovered inside the grace with a renewal: no end at all until the renewal runs out.
        let recovered = late.event(.billingRecovered, on: "2026-02-05")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-05", expires: "2026-03-05")
        XCTAssertEqual(ends(recovered).map(\.date), [at("2026-03-05")])
        // Recovered inside the grace without a renewal: the rules end access at the recovery.
        XCTAssertEqual(ends(late.event(.billingRecovered, on: "2026-02-05")).map(\.date), [at("2026-02-05")])
        // No grace period (basic_monthly): access ends with the period, for the billing issue.
        let basic = RecordBuilder().subscription("b1", product: "basic_monthly", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-02-01")
        XCTAssertEqual(ends(basic), [AccessEnd(entitlement: "premium", date: at("2026-02-01"), cause: .billingIssue(productId: "basic_monthly"))])
    }

    func testRefundsPausesAndPlanChanges() {
        let refunded = RecordBuilder().subscription("t1", on: "2026-01-01", expires: "2026-02-01", revoked: "2026-01-05")
        XCTAssertEqual(ends(refunded), [AccessEnd(entitlement: "premium", date: at("2026-01-05"),
                                                  cause: .refunded(productId: "pro_monthly", familySharing: false))])
        XCTAssertEqual(ends(refunded, until: "2026-01-04"), [], "a refund after the history's end has not happened")
        let family = RecordBuilder().subscription("t1", on: "2026-01-01", expires: "2026-02-01", ownership: .familySharing,
                                                  revoked: "2026-01-05")
        XCTAssertEqual(ends(family).first?.cause, .refunded(productId: "pro_monthly", familySharing: true))
        let paused = RecordBuilder.january.event(.pauseScheduled, on: "2026-01-20", autoResume: "2026-03-01")
        XCTAssertEqual(ends(paused).first?.cause, .paused(productId: "pro_monthly", resumes: at("2026-03-01")))
        let withdrawn = RecordBuilder.january.event(.pauseScheduled, on: "2026-01-20", autoResume: "2026-03-01")
            .event(.pauseCanceled, on: "2026-01-21")
        XCTAssertEqual(ends(withdrawn).first?.cause, .expired(productId: "pro_monthly", autoRenewOff: false))
        // pro_yearly unlocks premium and cloud; a change to cloud_monthly drops premium only.
        let downgrade = RecordBuilder().subscription("y1", product: "pro_yearly", on: "2026-01-01", expires: "2027-01-01")
            .event(.renewalProductChanged, on: "2026-06-01", productId: "cloud_monthly")
            .subscription("y2", product: "cloud_monthly", type: .subscriptionRenewed, on: "2027-01-01", expires: "2027-02-01")
        XCTAssertEqual(ends(downgrade, until: "2027-01-15"),
                       [AccessEnd(entitlement: "premium", date: at("2027-01-01"), cause: .planChanged(from: "pro_yearly", to: "cloud_monthly"))])
    }

    func testAnotherSourceCarriesAccessOn() {
        // quentin: a lifetime purchase inside a subscription: the subscription's end ends nothing.
        let both = RecordBuilder.january.purchase("l1", on: "2026-01-15")
        XCTAssertEqual(ends(both), [])
        let refundedLater = RecordBuilder.january.purchase("l1", on: "2026-01-15", revoked: "2026-03-01")
        XCTAssertEqual(ends(refundedLater), [AccessEnd(entitlement: "premium", date: at("2026-03-01"),
                                                       cause: .refunded(productId: "lifetime", familySharing: false))])
        // Grants: expired, and revoked before their end.
        let grants = RecordBuilder().grant("g1", on: "2026-01-01", until: "2026-02-01")
            .grant("g2", on: "2026-03-01", until: nil, revoked: "2026-03-05", revokedBy: "dana")
        XCTAssertEqual(ends(grants), [
            AccessEnd(entitlement: "premium", date: at("2026-02-01"), cause: .grantExpired(grantId: "g1")),
            AccessEnd(entitlement: "premium", date: at("2026-03-05"), cause: .grantRevoked(grantId: "g2", revokedBy: "dana")),
        ])
    }

    /// On random customers: at each end the rules say active a second before and inactive at
    /// the end, for every source of the entitlement together.
    func testEveryEndAgreesWithTheRules() {
        var checked = 0
        for seed in UInt64(1)...400 {
            var g = SeededGenerator(seed: seed)
            let record = RandomCustomers.customer("c\(seed)", &g).record
            let until = at("2027-06-01")
            for end in AccessEnds.of(record, catalog: RandomCustomers.catalog, until: until) {
                func active(_ t: Instant) -> Bool {
                    EntitlementRules.evaluate(record, catalog: RandomCustomers.catalog, at: t)
                        .first { $0.id == end.entitlement }?.isActive ?? false
                }
                guard let before = end.date.adding(seconds: -1) else { continue }
                XCTAssertFalse(active(end.date), "\(record.id) \(end) active at its end")
                // A billing issue detected after the period ended is taken from the period's end
                // (hindsight); the rules may say inactive for that moment, so only other ends
                // must have been active just before.
                if case .billingIssue = end.cause { continue }
                XCTAssertTrue(active(before), "\(record.id) \(end) inactive just before its end")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// And no end is missed: every moment the rules turn an entitlement from active to inactive is
    /// an end (customers without billing issues, where hindsight and the rules say the same).
    func testNoEndIsMissed() {
        var compared = 0
        for seed in UInt64(1)...400 {
            var g = SeededGenerator(seed: seed)
            let record = RandomCustomers.customer("c\(seed)", &g).record
            guard !record.events.contains(where: { $0.type == .billingIssue }) else { continue }
            let until = at("2027-06-01")
            var moments = Set<Instant>()
            for t in record.transactions {
                moments.insert(t.transactionDate)
                if let exp = t.expirationDate { moments.insert(exp) }
                if let revoked = t.revocationDate { moments.insert(revoked) }
            }
            for e in record.events { moments.insert(e.date) }
            for grant in record.grants {
                moments.insert(grant.grantedAt)
                if let end = grant.expirationDate { moments.insert(end) }
                if let revoked = grant.revokedAt { moments.insert(revoked) }
            }
            let ends = Set(AccessEnds.of(record, catalog: RandomCustomers.catalog, until: until).map { "\($0.entitlement) \($0.date.seconds)" })
            var transitions = Set<String>()
            for moment in moments where moment <= until {
                for entitlement in RandomCustomers.entitlements {
                    func active(_ t: Instant) -> Bool {
                        EntitlementRules.evaluate(record, catalog: RandomCustomers.catalog, at: t)
                            .first { $0.id == entitlement }?.isActive ?? false
                    }
                    if active(moment.adding(seconds: -1)!) && !active(moment) { transitions.insert("\(entitlement) \(moment.seconds)") }
                }
            }
            XCTAssertEqual(ends, transitions, "c\(seed)")
            compared += transitions.count
        }
        XCTAssertGreaterThan(compared, 200, "ends compared")
    }
}

