// Provider `revenuecat`, below the CLI: the decoder accepts every variant RevenueCat may send
// (unknown enum values, nulls, extra fields, ids as numbers, request_date_ms only) and the
// mapping of SPEC section 6 holds for every value of store, period and ownership type and at
// the boundaries (exactly at expiration, at the grace end, a refund after T).

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsProviders

final class RevenueCatMappingTests: XCTestCase {
    static let request = "2026-12-01T12:00:00Z"
    static let t = ISODate.parse(request)!

    /// A subscriber with one entitlement `premium` described by product `p` (a subscription
    /// unless `purchase`), the subscription's fields overridden by `sub`.
    private func subscriber(_ sub: [String: String] = [:], entitlement: [String: String] = [:], purchase: Bool = false,
                            extra: String = "") throws -> RevenueCatSubscriber {
        func members(_ fields: [String: String]) -> String {
            fields.sorted { $0.key < $1.key }.map { "\(JSON.quote($0.key)): \($0.value)" }.joined(separator: ", ")
        }
        let e = ["product_identifier": "\"p\"", "purchase_date": "\"2026-11-01T00:00:00Z\"",
                 "expires_date": "\"2026-12-31T00:00:00Z\""].merging(entitlement) { $1 }
        let s = ["store": "\"app_store\"", "purchase_date": "\"2026-11-01T00:00:00Z\"", "original_purchase_date": "\"2026-01-01T00:00:00Z\"",
                 "expires_date": "\"2026-12-31T00:00:00Z\""].merging(sub) { $1 }
        let products = purchase ? "\"non_subscriptions\": {\"p\": [{\(members(s))}]}" : "\"subscriptions\": {\"p\": {\(members(s))}}"
        let body = "{\"request_date\": \"\(Self.request)\", \"subscriber\": {\"entitlements\": {\"premium\": {\(members(e))}}, \(products)\(extra)}}"
        return try RevenueCatSubscriber.decode(Array(body.utf8))
    }

    private func premium(_ s: RevenueCatSubscriber, at t: Instant = RevenueCatMappingTests.t) -> EntitlementInfo {
        RevenueCatMapping.status(s, requestedId: "u", at: t).entitlements[0]
    }

    func testStoresMapToSources() throws {
        let expected: [String: EntitlementSource] = [
            "\"app_store\"": .appstore, "\"mac_app_store\"": .appstore, "\"play_store\"": .playstore, "\"stripe\"": .stripe,
            "\"amazon\"": .amazon, "\"promotional\"": .manual, "\"roku\"": .unknown, "\"paddle\"": .unknown,
            "\"rc_billing\"": .unknown, "\"APP_STORE\"": .unknown, "\"\"": .unknown, "null": .unknown,
        ]
        for (store, source) in expected {
            XCTAssertEqual(premium(try subscriber(["store": store])).source, source, store)
            XCTAssertEqual(premium(try subscriber(["store": store], purchase: true)).source, source, "purchase \(store)")
        }
    }

    func testPeriodTypes() throws {
        // A value this version does not know is unknown, never a guess; absent is a normal period.
        // RevenueCat's OpenAPI description shows `NORMAL` as the field's example beside a lower-case
        // enum; its SDKs read that example as normal, so a known value in another case is that value.
        let expected: [String: PeriodType] = ["\"normal\"": .normal, "\"trial\"": .trial, "\"intro\"": .intro,
                                              "\"prepaid\"": .prepaid, "\"NORMAL\"": .normal, "\"Trial\"": .trial,
                                              "\"bonus\"": .unknown, "\"NORMAL_\"": .unknown, "null": .normal]
        for (period, type) in expected {
            XCTAssertEqual(premium(try subscriber(["period_type": period])).periodType, type, period)
            XCTAssertEqual(premium(try subscriber(["period_type": period, "store": "\"promotional\""])).periodType, .promotional, period)
        }
        XCTAssertEqual(premium(try subscriber(["period_type": "\"trial\""], purchase: true)).periodType, .normal)
    }

    /// period_type prepaid (Google Play): never renews. An issue or a cancellation the store
    /// reported still says so (SPEC section 6's order); willRenew is false in every case.
    func testAPrepaidPeriodNeverRenews() throws {
        let prepaid = premium(try subscriber(["period_type": "\"prepaid\"", "store": "\"play_store\""]))
        XCTAssertEqual([prepaid.periodType.rawValue, prepaid.renewState.rawValue, "\(prepaid.willRenew)", "\(prepaid.isActive)"],
                       ["prepaid", "nonRenewable", "false", "true"])
        let issue = premium(try subscriber(["period_type": "\"prepaid\"", "billing_issues_detected_at": "\"2026-11-30T00:00:00Z\""]))
        XCTAssertEqual(issue.renewState, .billingIssue)
        XCTAssertFalse(issue.willRenew)
        let cancelled = premium(try subscriber(["period_type": "\"prepaid\"", "unsubscribe_detected_at": "\"2026-11-30T00:00:00Z\""]))
        XCTAssertEqual(cancelled.renewState, .canceled)
        // Expired: still a prepaid plan that does not renew.
        let over = premium(try subscriber(["period_type": "\"prepaid\""]), at: ISODate.parse("2027-01-01T00:00:00Z")!)
        XCTAssertEqual([over.state.rawValue, over.renewState.rawValue, "\(over.willRenew)"], ["expired", "nonRenewable", "false"])
    }

    func testOwnershipTypes() throws {
        let expected: [String: GrantType] = ["\"FAMILY_SHARED\"": .familySharing, "\"PURCHASED\"": .purchase,
                                             "\"GIFTED\"": .purchase, "null": .purchase]
        for (ownership, grant) in expected {
            XCTAssertEqual(premium(try subscriber(["ownership_type": ownership])).grantType, grant, ownership)
            XCTAssertEqual(premium(try subscriber(["ownership_type": ownership, "store": "\"promotional\""])).grantType, .manual)
        }
    }

    func testActiveExactlyUntilTheExpiration() throws {
        let s = try subscriber(entitlement: ["expires_date": "\"\(Self.request)\""])
        XCTAssertFalse(premium(s).isActive)
        XCTAssertEqual(premium(s).state, .expired)
        XCTAssertEqual(premium(s).renewState, .unknown)
        let justBefore = try subscriber(entitlement: ["expires_date": "\"2026-12-01T12:00:00.001Z\""])
        XCTAssertTrue(premium(justBefore).isActive)
        XCTAssertEqual(premium(justBefore).renewState, .willRenew)
        XCTAssertTrue(premium(justBefore).willRenew)
        // No expiration: active whatever T.
        let lifetime = try subscriber(entitlement: ["expires_date": "null"], purchase: true)
        XCTAssertTrue(premium(lifetime, at: ISODate.parse("9999-12-31T23:59:59Z")!).isActive)
        XCTAssertEqual(premium(lifetime).renewState, .nonRenewable)
    }

    func testGraceEndsAtItsDateAndBillingRetryFollows() throws {
        let s = try subscriber(["billing_issues_detected_at": "\"2026-11-28T00:00:00Z\"",
                                "grace_period_expires_date": "\"2026-12-10T00:00:00Z\""],
                               entitlement: ["expires_date": "\"2026-12-10T00:00:00Z\""])
        XCTAssertEqual(premium(s).state, .gracePeriod)
        XCTAssertEqual(premium(s, at: ISODate.parse("2026-12-09T23:59:59Z")!).state, .gracePeriod)
        XCTAssertEqual(premium(s, at: ISODate.parse("2026-12-10T00:00:00Z")!).state, .billingRetry)
        XCTAssertEqual(premium(s).renewState, .billingIssue)
        XCTAssertFalse(premium(s).willRenew)
        // A billing issue while the paid period still runs and no grace date: active, renewal at risk.
        let noGrace = try subscriber(["billing_issues_detected_at": "\"2026-11-28T00:00:00Z\""])
        XCTAssertEqual(premium(noGrace).state, .active)
        XCTAssertEqual(premium(noGrace).renewState, .billingIssue)
    }

    func testARefundRevokesFromItsDateOn() throws {
        let s = try subscriber(["refunded_at": "\"2026-11-20T00:00:00Z\""])
        XCTAssertEqual(premium(s).state, .revoked)
        XCTAssertFalse(premium(s).isActive, "a refund ends access even when expires_date is later")
        XCTAssertEqual(premium(s).revokedAt, ISODate.parse("2026-11-20T00:00:00Z"))
        XCTAssertEqual(premium(s, at: ISODate.parse("2026-11-19T23:59:59Z")!).state, .active)
        XCTAssertEqual(premium(s, at: ISODate.parse("2026-11-20T00:00:00Z")!).state, .revoked)
    }

    func testAScheduledPauseStopsWillRenewAndAPauseInForceIsPaused() throws {
        let scheduled = try subscriber(["auto_resume_date": "\"2027-02-01T00:00:00Z\""])
        XCTAssertEqual(premium(scheduled).state, .active)
        XCTAssertEqual(premium(scheduled).renewState, .willRenew)
        XCTAssertFalse(premium(scheduled).willRenew)
        let paused = try subscriber(["auto_resume_date": "\"2027-02-01T00:00:00Z\""], entitlement: ["expires_date": "\"2026-11-30T00:00:00Z\""])
        XCTAssertEqual(premium(paused).state, .paused)
        XCTAssertFalse(premium(paused).isActive)
    }

    func testAnEntitlementWithoutAKnownProductStillAnswers() throws {
        for entitlement in [["product_identifier": "null"], ["product_identifier": "\"gone\""]] {
            let e = premium(try subscriber(entitlement: entitlement))
            XCTAssertTrue(e.isActive)
            XCTAssertEqual(e.source, .unknown)
            XCTAssertEqual(e.renewState, .unknown)
            XCTAssertNil(e.startedDate)
        }
    }

    /// RevenueCat's SDKs describe a one-time product's entitlement by the last purchase of its
    /// `non_subscriptions` list (RevenueCat lists them oldest first), whatever the dates say.
    func testTheLastPurchaseOfANonSubscriptionDescribesIt() throws {
        let body = """
            {"request_date": "\(Self.request)", "subscriber": {"entitlements": {"premium": {"product_identifier": "life", "expires_date": null}},
             "non_subscriptions": {"life": [{"purchase_date": "2026-05-01T00:00:00Z", "store": "stripe", "is_sandbox": true},
                                            {"purchase_date": null, "store": "amazon"},
                                            {"purchase_date": "2026-02-01T00:00:00Z", "store": "play_store"}]}}}
            """
        let e = premium(try RevenueCatSubscriber.decode(Array(body.utf8)))
        XCTAssertEqual(e.source, .playstore)
        XCTAssertFalse(e.isSandbox)
        XCTAssertEqual(e.startedDate, ISODate.parse("2026-02-01T00:00:00Z"))
        XCTAssertEqual(e.sourceKind, .purchase)
    }

    func testLenientDecodingOfEverythingRevenueCatMayAdd() throws {
        let body = """
            {"request_date_ms": 1796126400123, "new_top": [1, {"a": null}], "subscriber": {
              "entitlements": {"premium": {"product_identifier": "p", "expires_date": null, "grace_period_expires_date": null,
                                           "purchase_date": "2026-11-01T00:00:00.5+02:00", "new": {"x": [true]}}},
              "subscriptions": {"p": {"store": "galaxy", "store_transaction_id": 1000000652379790, "ownership_type": null,
                                      "period_type": null, "is_sandbox": null, "price": {"amount": 0, "currency": "USD"},
                                      "refunded_at": null, "display_name": 7}},
              "non_subscriptions": {"q": [], "r": null},
              "other_purchases": {}, "management_url": null, "last_seen": 12, "subscriber_attributes": {"$email": {"value": "a@b.c"}, "weird": 3}
            }}
            """
        let s = try RevenueCatSubscriber.decode(Array(body.utf8))
        XCTAssertEqual(s.requestDate, Instant(seconds: 1_796_126_400, nanoseconds: 123_000_000))
        XCTAssertEqual(s.subscriptions.first?.storeTransactionId, "1000000652379790")
        XCTAssertEqual(s.entitlements.first?.purchaseDate, ISODate.parse("2026-10-31T22:00:00.5Z"))
        XCTAssertEqual(s.attributes, JSONObject([("$email", .string("a@b.c")), ("weird", .number("3"))]))
        XCTAssertNil(s.originalAppUserId)
        let status = RevenueCatMapping.status(s, requestedId: "asked", at: s.requestDate)
        XCTAssertEqual(status.record.id, "asked")
        XCTAssertEqual(status.record.aliases, [])
        XCTAssertEqual(status.entitlements.first?.source, .unknown)
    }

    func testCreatedEmptyDetection() throws {
        func empty(_ firstSeen: String) throws -> RevenueCatSubscriber {
            try RevenueCatSubscriber.decode(Array("""
                {"request_date": "\(Self.request)", "subscriber": {"entitlements": {}, "subscriptions": {}, "non_subscriptions": {"x": []},
                 "first_seen": \(firstSeen)}}
                """.utf8))
        }
        XCTAssertTrue(RevenueCatMapping.isCreatedEmpty(try empty("\"2026-12-01T11:59:00Z\""), httpStatus: 200))
        XCTAssertTrue(RevenueCatMapping.isCreatedEmpty(try empty("\"2026-12-01T12:01:00Z\""), httpStatus: 200))
        XCTAssertFalse(RevenueCatMapping.isCreatedEmpty(try empty("\"2026-12-01T11:58:59Z\""), httpStatus: 200))
        XCTAssertFalse(RevenueCatMapping.isCreatedEmpty(try empty("null"), httpStatus: 200))
        XCTAssertTrue(RevenueCatMapping.isCreatedEmpty(try empty("\"2020-01-01T00:00:00Z\""), httpStatus: 201))
        XCTAssertFalse(RevenueCatMapping.isCreatedEmpty(try subscriber(), httpStatus: 201))
    }

    func testDecodeThrowsOnlyItsFormatErrorWithAPath() {
        for (body, path) in [("", ""), ("{\"request_date_ms\": 1.5, \"subscriber\": {}}", "request_date_ms"),
                             ("{\"request_date_ms\": \"1\", \"subscriber\": {}}", "request_date_ms"),
                             ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"entitlements\": 3}}",
                              "subscriber.entitlements"),
                             // Not one entitlement can be read: nothing of the customer's access can be told.
                             ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"entitlements\": {\"a b\": {\"expires_date\": 1}}}}",
                              "subscriber.entitlements[\"a b\"].expires_date")] {
            XCTAssertThrowsError(try RevenueCatSubscriber.decode(Array(body.utf8)), body) { error in
                XCTAssertEqual((error as? RevenueCatFormatError)?.path, path, body)
            }
        }
    }

    /// One malformed entitlement, subscription, purchase or subscriber field is left out with its
    /// path; everything else is read.
    func testAMalformedPartIsLeftOutAndListedWithItsPath() throws {
        let body = """
            {"request_date": "\(Self.request)", "subscriber": {
              "first_seen": 12, "original_app_user_id": ["x"], "subscriber_attributes": [],
              "entitlements": {"premium": {"product_identifier": "p", "expires_date": "2027-01-01T00:00:00Z"},
                               "broken": {"product_identifier": "q", "expires_date": "soon"},
                               "odd": 7},
              "subscriptions": {"p": {"store": "app_store", "original_purchase_date": "2026-01-01T00:00:00Z"},
                                "q": {"store": 1}},
              "non_subscriptions": {"life": [{"purchase_date": "2026-05-01T00:00:00Z"}, {"purchase_date": false}, 3],
                                    "gems": {"purchase_date": "2026-05-01T00:00:00Z"}}}}
            """
        let s = try RevenueCatSubscriber.decode(Array(body.utf8))
        XCTAssertEqual(s.entitlements.map(\.id), ["premium"])
        XCTAssertEqual(s.subscriptions.map(\.productId), ["p"])
        XCTAssertEqual(s.purchases.map(\.productId), ["life"])
        XCTAssertNil(s.firstSeen)
        XCTAssertNil(s.originalAppUserId)
        XCTAssertNil(s.attributes)
        XCTAssertEqual(Set(s.problems.map(\.path)), [
            "subscriber.entitlements.broken.expires_date", "subscriber.entitlements.odd", "subscriber.subscriptions.q.store",
            "subscriber.non_subscriptions.life[1].purchase_date", "subscriber.non_subscriptions.life[2]",
            "subscriber.non_subscriptions.gems", "subscriber.first_seen", "subscriber.original_app_user_id",
            "subscriber.subscriber_attributes",
        ])
        let premium = RevenueCatMapping.status(s, requestedId: "u", at: Self.t).entitlements
        XCTAssertEqual(premium.map(\.id), ["premium"])
        XCTAssertEqual(premium.first?.startedDate, ISODate.parse("2026-01-01T00:00:00Z"))
        // Something was there, so RevenueCat did not just create this subscriber.
        let onlyBroken = try RevenueCatSubscriber.decode(Array("""
            {"request_date": "\(Self.request)", "subscriber": {"first_seen": "\(Self.request)", "subscriptions": {"q": {"store": 1}}}}
            """.utf8))
        XCTAssertTrue(onlyBroken.isEmpty)
        XCTAssertFalse(RevenueCatMapping.isCreatedEmpty(onlyBroken, httpStatus: 200))
    }
}
