// What RevenueCat's APIs tell of the money (`totalSpent`): v1's one-time prices and each
// subscription's latest price (incomplete past its first period), v2's USD revenue (payments
// uncounted); a malformed price is a payment of unknown price and never hides the customer.

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsProviders

final class ProviderMoneyTests: XCTestCase {
    private func v1(_ subscriptions: String, _ nonSubscriptions: String = "{}") throws -> RevenueCatSubscriber {
        try RevenueCatSubscriber.decode(Array("""
        {"request_date": "2026-06-01T00:00:00Z", "subscriber": {"first_seen": "2025-01-01T00:00:00Z",
          "entitlements": {"premium": {"product_identifier": "monthly", "expires_date": "2026-07-01T00:00:00Z",
                                       "purchase_date": "2026-05-01T00:00:00Z"}},
          "subscriptions": \(subscriptions), "non_subscriptions": \(nonSubscriptions)}}
        """.utf8))
    }

    private func sub(_ price: String, first: String = "2026-05-01T00:00:00Z", extra: String = "") -> String {
        """
        {"purchase_date": "2026-05-01T00:00:00Z", "original_purchase_date": "\(first)", "expires_date": "2026-07-01T00:00:00Z",
         "store": "app_store", "is_sandbox": false, "period_type": "normal", "price": \(price)\(extra)}
        """
    }

    func testV1CountsOneTimePricesAndEachSubscriptionsLatestPrice() throws {
        let s = try v1(#"{"monthly": \#(sub(#"{"amount": 9.99, "currency": "USD"}"#))}"#,
                       #"{"coins": [{"id": "a", "purchase_date": "2026-02-01T00:00:00Z", "store": "play_store", "is_sandbox": false,"#
                        + #" "price": {"amount": 4.99, "currency": "EUR"}}, {"id": "b", "purchase_date": "2026-03-01T00:00:00Z","#
                        + #" "store": "play_store", "is_sandbox": false, "price": {"amount": "lots", "currency": "EUR"}}]}"#)
        let status = RevenueCatMapping.status(s, requestedId: ID("c"), at: s.requestDate)
        XCTAssertEqual(status.entitlements.map(\.id), [ID("premium")], "a malformed price hides nothing")
        let totals = try XCTUnwrap(status.spending).totals
        XCTAssertEqual(totals.map(\.currency), ["EUR", "USD", nil])
        XCTAssertEqual(totals[0].amount?.text(), "4.99")
        XCTAssertEqual(totals[0].incompleteReason, RevenueCatMapping.noPurchaseRefunds)
        XCTAssertEqual(totals[1].amount?.text(), "9.99")
        XCTAssertTrue(totals[1].complete, "a subscription in its first period: its latest price is all it paid")
        XCTAssertEqual(totals[2].payments, 1, "the malformed price is a payment of unknown price")
    }

    func testV1RenewedSubscriptionIsIncompleteAndARefundIsNotSummed() throws {
        let refunded = sub(#"{"amount": 9.99, "currency": "USD"}"#, first: "2026-01-01T00:00:00Z",
                           extra: #", "refunded_at": "2026-05-02T00:00:00Z""#)
        let s = try v1("{\"monthly\": \(refunded)}")
        let total = try XCTUnwrap(RevenueCatMapping.spending(s, at: s.requestDate).totals.first)
        XCTAssertEqual(total.currency, "USD")
        XCTAssertEqual(total.amount?.text(), "0")
        XCTAssertEqual(total.payments, 1)
        XCTAssertEqual(total.refunded, 1)
        XCTAssertEqual(total.incompleteReason, RevenueCatMapping.latestPriceOnly)
        // A free trial's zero price and a promotional grant are no payments.
        let trial = sub(#"{"amount": 0, "currency": "USD"}"#)
        let promo = sub("null").replacingOccurrences(of: #""store": "app_store""#, with: #""store": "promotional""#)
        let free = try v1("{\"monthly\": \(trial), \"rc_promo\": \(promo)}")
        XCTAssertEqual(RevenueCatMapping.spending(free, at: free.requestDate).totals, [])
    }

    func testV2GivesUSDRevenueWithoutCountingPayments() {
        let customer = RevenueCatV2Customer(id: ID("c"), firstSeenAt: nil, activeEntitlements: [], activeEntitlementsCursor: nil,
                                            attributes: nil, moreAttributes: false)
        var sub = RevenueCatV2Subscription(id: ID("sub1"), productId: ID("prod1"), startsAt: Instant(seconds: 1_000),
                                           currentPeriodStartsAt: Instant(seconds: 2_000), currentPeriodEndsAt: nil, endsAt: nil,
                                           givesAccess: true, autoRenewalStatus: nil, status: "active", entitlements: [],
                                           environment: "production", store: "app_store", storeSubscriptionIdentifier: nil,
                                           ownership: "purchased", pendingProductStoreIdentifier: nil)
        sub.totalRevenue = RevenueCatV2Money(currency: "USD", gross: "59.94")
        let refunded = RevenueCatV2Purchase(id: ID("p1"), productId: nil, purchasedAt: Instant(seconds: 1_500),
                                            revenue: RevenueCatV2Money(currency: "USD", gross: "19.99"), status: "refunded",
                                            entitlements: [], environment: "production", store: "app_store",
                                            storePurchaseIdentifier: nil, ownership: "purchased")
        var owned = refunded
        owned.status = "owned"
        owned.revenue = RevenueCatV2Money(currency: "USD", gross: "0.01")
        let record = RevenueCatV2Record(customer: customer, activeEntitlements: [], subscriptions: [sub], purchases: [refunded, owned],
                                        transactions: [:], requestDate: Instant(seconds: 3_000))
        let totals = RevenueCatV2Mapping.spending(record, at: Instant(seconds: 3_000)).totals
        XCTAssertEqual(totals.count, 1)
        XCTAssertEqual(totals[0].amount?.text(), "59.95")
        XCTAssertNil(totals[0].payments, "v2 does not count a subscription's payments")
        XCTAssertEqual(totals[0].incompleteReason, RevenueCatV2Mapping.revenueInUSD)
        // Projected before the subscription started: only the purchases made by then.
        XCTAssertEqual(RevenueCatV2Mapping.spending(record, at: Instant(seconds: 999)).totals, [])
    }
}
