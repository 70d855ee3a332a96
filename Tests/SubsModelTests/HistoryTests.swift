// SPEC section 4 `history` entries: kinds, fields in order, ordering, ties and the `until` cut.

import XCTest
@testable import SubsModel

final class HistoryTests: XCTestCase {
    private func entries(_ b: RecordBuilder, until: String) -> [HistoryEntry] {
        History.entries(of: b.build(), catalog: TestCatalog.standard, until: at(until))
    }

    private func keys(_ e: HistoryEntry) -> [String] { e.fields.map(\.key) }

    /// "kind/type" of each entry, to compare orders at a glance.
    private func summary(_ list: [HistoryEntry]) -> [String] { list.map { "\($0.kind.rawValue)/\($0.type)" } }

    func testEntriesAreOldestFirstAcrossKinds() {
        let b = RecordBuilder()
            .grant("g1", "cloud", on: "2026-01-05", until: "2026-02-05", revoked: "2026-01-07")
            .event(.autoRenewDisabled, on: "2026-01-10")
            .subscription("t2", type: .subscriptionRenewed, on: "2026-02-01", expires: "2026-03-01", revoked: "2026-02-03")
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01")
        let list = entries(b, until: "2026-12-31")
        XCTAssertEqual(list.map(\.date), [at("2026-01-01"), at("2026-01-05"), at("2026-01-07"), at("2026-01-10"),
                                          at("2026-02-01"), at("2026-02-03")])
        XCTAssertEqual(summary(list), ["transaction/subscriptionStarted", "grant/granted", "grant/revoked",
                                       "event/autoRenewDisabled", "transaction/subscriptionRenewed", "refund/revoked"])
    }

    func testEqualDatesKeepStoreOrder() {
        // Everything at the same instant: transactions (each followed by its refund), then
        // events, then grants (granted before revoked) — whatever order the arrays were built in.
        let same = "2026-01-01"
        let b = RecordBuilder()
            .grant("g1", on: same, until: nil, revoked: same)
            .grant("g2", "cloud", on: same, until: nil)
            .event(.billingIssue, on: same)
            .event(.autoRenewDisabled, on: same)
            .purchase("p1", on: same, revoked: same)
            .subscription("t1", on: same, expires: "2026-02-01")
        let list = entries(b, until: same)
        XCTAssertEqual(summary(list), ["transaction/nonConsumablePurchase", "refund/revoked",
                                       "transaction/subscriptionStarted", "event/billingIssue",
                                       "event/autoRenewDisabled", "grant/granted", "grant/revoked", "grant/granted"])
        XCTAssertEqual(list.map { $0.field("grantId") ?? $0.field("transactionId") },
                       [.string("p1"), .string("p1"), .string("t1"), nil, nil,
                        .string("g1"), .string("g1"), .string("g2")])
    }

    func testUntilKeepsEntriesDatedAtOrBeforeIt() {
        let b = RecordBuilder()
            .subscription("t1", on: "2026-01-01", expires: "2026-02-01", revoked: "2026-01-20T00:00:01Z")
            .event(.autoRenewDisabled, on: "2026-01-20")
            .grant("g1", on: "2026-01-10", until: nil, revoked: "2026-01-25")
            .grant("g2", on: "2026-01-21", until: nil)
        XCTAssertEqual(summary(entries(b, until: "2026-01-20")),
                       ["transaction/subscriptionStarted", "grant/granted", "event/autoRenewDisabled"])
        XCTAssertEqual(entries(b, until: "2026-01-20T00:00:01Z").count, 4)
        XCTAssertEqual(entries(b, until: "2026-12-31").count, 6)
        XCTAssertTrue(entries(b, until: "2025-12-31T23:59:59Z").isEmpty)
    }

    func testTransactionEntryFieldsInOrderWithDefaults() throws {
        let b = RecordBuilder()
            .subscription("t1", chain: "c9", product: "pro_yearly", type: .introStarted, on: "2026-01-01",
                          expires: "2027-01-01", source: .unknown)
        let e = try XCTUnwrap(entries(b, until: "2026-01-01").first)
        XCTAssertEqual(e.kind, .transaction)
        XCTAssertEqual(e.type, "introStarted")
        XCTAssertEqual(e.date, at("2026-01-01"))
        XCTAssertEqual(e.entitlements, ["cloud", "premium"])
        XCTAssertEqual(keys(e), ["transactionId", "originalTransactionId", "productId", "expirationDate",
                                 "source", "environment", "ownershipType", "offerCode", "price", "currency"])
        XCTAssertEqual(e.field("price"), .string(nil))
        XCTAssertEqual(e.field("currency"), .string(nil))
        XCTAssertEqual(e.field("transactionId"), .string("t1"))
        XCTAssertEqual(e.field("originalTransactionId"), .string("c9"))
        XCTAssertEqual(e.field("productId"), .string("pro_yearly"))
        XCTAssertEqual(e.field("expirationDate"), .date(at("2027-01-01")))
        XCTAssertEqual(e.field("source"), .string("unknown"))
        XCTAssertEqual(e.field("environment"), .string("production"))
        XCTAssertEqual(e.field("ownershipType"), .string("owner"))
        XCTAssertEqual(e.field("offerCode"), .string(nil))
    }

    func testPurchaseEntryHasNullExpirationAndItsValues() throws {
        let b = RecordBuilder().purchase("p1", on: "2026-01-01", source: .stripe, environment: .sandbox,
                                         ownership: .familySharing, offerCode: "LIFE")
        let e = try XCTUnwrap(entries(b, until: "2026-01-01").first)
        XCTAssertEqual(e.field("expirationDate"), .date(nil))
        XCTAssertEqual(e.field("source"), .string("stripe"))
        XCTAssertEqual(e.field("environment"), .string("sandbox"))
        XCTAssertEqual(e.field("ownershipType"), .string("familySharing"))
        XCTAssertEqual(e.field("offerCode"), .string("LIFE"))
        XCTAssertEqual(e.entitlements, ["premium"])
    }

    func testRefundEntryFields() throws {
        let b = RecordBuilder().purchase("p1", on: "2026-01-01", revoked: "2026-01-20")
        let list = entries(b, until: "2026-02-01")
        XCTAssertEqual(list.count, 2)
        let refund = list[1]
        XCTAssertEqual(refund.kind, .refund)
        XCTAssertEqual(refund.type, "revoked")
        XCTAssertEqual(refund.date, at("2026-01-20"))
        XCTAssertEqual(refund.entitlements, ["premium"])
        XCTAssertEqual(keys(refund), ["transactionId", "productId"])
        XCTAssertEqual(refund.field("transactionId"), .string("p1"))
        XCTAssertEqual(refund.field("productId"), .string("lifetime"))
    }

    func testConsumableEntriesConcernNoEntitlement() throws {
        let b = RecordBuilder().purchase("c1", product: "coins_100", type: .consumablePurchase, on: "2026-01-01")
        XCTAssertEqual(try XCTUnwrap(entries(b, until: "2026-01-01").first).entitlements, [])
    }

    func testEventEntryFieldsPerType() {
        let b = RecordBuilder()
            .subscription("t1", product: "cloud_monthly", on: "2026-01-01", expires: "2026-02-01")
            .event(.billingIssue, on: "2026-01-02")
            .event(.renewalProductChanged, on: "2026-01-03", productId: "pro_monthly")
            .event(.pauseScheduled, on: "2026-01-04", autoResume: "2026-03-01")
            .event(.pauseCanceled, on: "2026-01-05", chain: "unknown-chain")
        let events = entries(b, until: "2026-01-31").filter { $0.kind == .event }
        XCTAssertEqual(events.map(\.type), ["billingIssue", "renewalProductChanged", "pauseScheduled", "pauseCanceled"])

        XCTAssertEqual(keys(events[0]), ["originalTransactionId"])
        XCTAssertEqual(events[0].field("originalTransactionId"), .string("c1"))
        XCTAssertEqual(events[0].entitlements, ["cloud"])

        XCTAssertEqual(keys(events[1]), ["originalTransactionId", "productId"])
        XCTAssertEqual(events[1].field("productId"), .string("pro_monthly"))
        // The chain's entitlements plus the new product's.
        XCTAssertEqual(events[1].entitlements, ["cloud", "premium"])

        XCTAssertEqual(keys(events[2]), ["originalTransactionId", "autoResumeDate"])
        XCTAssertEqual(events[2].field("autoResumeDate"), .date(at("2026-03-01")))
        XCTAssertEqual(events[2].entitlements, ["cloud"])

        XCTAssertEqual(events[3].field("originalTransactionId"), .string("unknown-chain"))
        XCTAssertEqual(events[3].entitlements, [])
    }

    func testGrantEntriesFields() {
        let b = RecordBuilder()
            .grant("g1", on: "2026-01-01", until: "2026-06-01", by: "dana", reason: "goodwill",
                   revoked: "2026-02-01", revokedBy: "sam", revokeReason: "abuse")
            .grant("g2", "cloud", on: "2026-01-02", until: nil)
        let list = entries(b, until: "2026-12-31")
        XCTAssertEqual(summary(list), ["grant/granted", "grant/granted", "grant/revoked"])

        let granted = list[0]
        XCTAssertEqual(granted.date, at("2026-01-01"))
        XCTAssertEqual(granted.entitlements, ["premium"])
        XCTAssertEqual(keys(granted), ["grantId", "expirationDate", "grantedBy", "reason"])
        XCTAssertEqual(granted.field("grantId"), .string("g1"))
        XCTAssertEqual(granted.field("expirationDate"), .date(at("2026-06-01")))
        XCTAssertEqual(granted.field("grantedBy"), .string("dana"))
        XCTAssertEqual(granted.field("reason"), .string("goodwill"))

        XCTAssertEqual(list[1].field("expirationDate"), .date(nil))
        XCTAssertEqual(list[1].field("grantedBy"), .string(nil))
        XCTAssertEqual(list[1].entitlements, ["cloud"])

        let revoked = list[2]
        XCTAssertEqual(revoked.date, at("2026-02-01"))
        XCTAssertEqual(revoked.type, "revoked")
        XCTAssertEqual(revoked.entitlements, ["premium"])
        XCTAssertEqual(keys(revoked), ["grantId", "revokedBy", "revokeReason"])
        XCTAssertEqual(revoked.field("revokedBy"), .string("sam"))
        XCTAssertEqual(revoked.field("revokeReason"), .string("abuse"))
    }

    func testEmptyCustomerHasNoHistory() {
        XCTAssertTrue(entries(RecordBuilder(), until: "2026-01-01").isEmpty)
    }
}
