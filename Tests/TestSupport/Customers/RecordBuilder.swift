// Hand-written customers for the rules and history tests: a small catalog and a builder whose
// dates are short strings ("2026-03-01", or a full date-time).

import XCTest
import SubsModel

/// A date from a test literal: a day (midnight UTC) or any date-time `ISODate.parse` accepts.
package func at(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Instant {
    guard let instant = ISODate.parseInput(text, now: Instant(seconds: 0)), text != "now" else {
        XCTFail("bad test date \(text)", file: file, line: line)
        return Instant(seconds: 0)
    }
    return instant
}

package enum TestCatalog {
    /// pro_monthly: premium, 16-day grace, 60-day retry. basic_monthly: premium, no grace, 30-day
    /// retry. pro_yearly: premium and cloud. cloud_monthly: cloud. lifetime: premium for ever.
    /// coins_100 lists an entitlement on purpose: consumables must still unlock nothing.
    package static let standard = Catalog([
        Product(id: "pro_monthly", type: .subscription, entitlements: ["premium"],
                gracePeriod: ISODuration(days: 16), billingRetryPeriod: ISODuration(days: 60)),
        Product(id: "basic_monthly", type: .subscription, entitlements: ["premium"],
                billingRetryPeriod: ISODuration(days: 30)),
        Product(id: "pro_yearly", type: .subscription, entitlements: ["premium", "cloud"]),
        Product(id: "cloud_monthly", type: .subscription, entitlements: ["cloud"]),
        Product(id: "lifetime", type: .nonConsumable, entitlements: ["premium"]),
        Product(id: "coins_100", type: .consumable, entitlements: ["coins"]),
    ])
}

/// Builds a CustomerRecord record by record, in store order.
package struct RecordBuilder {
    package private(set) var record: CustomerRecord

    package init(_ id: ID = "alice") { record = CustomerRecord(id: id) }

    package func build() -> CustomerRecord { record }

    /// A subscription transaction; `chain` defaults to "c1".
    package func subscription(_ id: ID, chain: ID = "c1", product: ID = "pro_monthly",
                      type: TransactionType = .subscriptionStarted, on date: String, expires: String,
                      source: PurchaseSource = .appstore, environment: PurchaseEnvironment = .production,
                      ownership: OwnershipType = .owner, offerCode: String? = nil,
                      revoked: String? = nil) -> RecordBuilder {
        var next = self
        next.record.transactions.append(Transaction(
            transactionId: id, originalTransactionId: chain, productId: product, type: type,
            transactionDate: at(date), expirationDate: at(expires), source: source,
            environment: environment, ownershipType: ownership, offerCode: offerCode,
            revocationDate: revoked.map { at($0) }))
        return next
    }

    /// A chain of monthly transactions starting on `start`: the given types, one month each.
    package func monthlyChain(_ chain: ID = "c1", product: ID = "pro_monthly", from start: String,
                      types: [TransactionType]) -> RecordBuilder {
        var next = self
        var date = at(start)
        for (n, type) in types.enumerated() {
            let expires = date.adding(ISODuration(months: 1))!
            next = next.subscription("\(chain)-\(n + 1)", chain: chain, product: product, type: type,
                                     on: ISODate.format(date), expires: ISODate.format(expires))
            date = expires
        }
        return next
    }

    /// A one-time purchase (nonConsumable by default).
    package func purchase(_ id: ID, product: ID = "lifetime", type: TransactionType = .nonConsumablePurchase,
                  on date: String, source: PurchaseSource = .playstore,
                  environment: PurchaseEnvironment = .production, ownership: OwnershipType = .owner,
                  offerCode: String? = nil, revoked: String? = nil) -> RecordBuilder {
        var next = self
        next.record.transactions.append(Transaction(
            transactionId: id, originalTransactionId: id, productId: product, type: type,
            transactionDate: at(date), source: source, environment: environment,
            ownershipType: ownership, offerCode: offerCode, revocationDate: revoked.map { at($0) }))
        return next
    }

    package func event(_ type: EventType, on date: String, chain: ID = "c1", productId: ID? = nil,
               autoResume: String? = nil) -> RecordBuilder {
        var next = self
        next.record.events.append(SubscriptionEvent(
            type: type, date: at(date), originalTransactionId: chain, productId: productId,
            autoResumeDate: autoResume.map { at($0) }))
        return next
    }

    /// A manual grant; `until` nil = lifetime.
    package func grant(_ id: ID, _ entitlement: ID = "premium", on date: String, until: String?,
               by grantedBy: String? = nil, reason: String? = nil, revoked: String? = nil,
               revokedBy: String? = nil, revokeReason: String? = nil) -> RecordBuilder {
        var next = self
        next.record.grants.append(Grant(
            id: id, entitlement: entitlement, grantedAt: at(date), expirationDate: until.map { at($0) },
            grantedBy: grantedBy, reason: reason, revokedAt: revoked.map { at($0) },
            revokedBy: revokedBy, revokeReason: revokeReason))
        return next
    }

    /// Every entitlement at T.
    package func evaluate(at t: String, catalog: Catalog = TestCatalog.standard) -> [EntitlementInfo] {
        EntitlementRules.evaluate(record, catalog: catalog, at: at(t))
    }

    /// One entitlement at T; fails the test when it is absent.
    package func entitlement(_ id: ID = "premium", at t: String, file: StaticString = #filePath,
                     line: UInt = #line) throws -> EntitlementInfo {
        try XCTUnwrap(evaluate(at: t).first { $0.id == id }, "no \(id) at \(t)", file: file, line: line)
    }
}

extension RecordBuilder {
    /// One pro_monthly period, 2026-01-01 → 2026-02-01 (16-day grace, 60-day retry).
    package static let january = RecordBuilder().subscription("t1", on: "2026-01-01", expires: "2026-02-01")

    /// `january` with a billingIssue at its expiration: grace until 2026-02-17, retry until 2026-04-02.
    package static let januaryWithBillingIssue = january.event(.billingIssue, on: "2026-02-01")
}
