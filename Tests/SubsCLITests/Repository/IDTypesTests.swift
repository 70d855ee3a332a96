// SPEC section 7, "Ids are bytes", across the layers: every id the model, the store, the seam's
// answers, the server's tables and the platforms' decoded answers hold is an `ID` (a field turned
// back into a String stops this file from compiling). IDTests (SubsModelTests) holds the type itself.

import XCTest
import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsSource
@testable import SubsProviders
@testable import SubsServer

final class IDTypesTests: XCTestCase {
    /// The compiler keeps ids in their type: every id the model, the answers and the changes
    /// hold is an `ID` (a field turned back into a String stops this file from compiling).
    func testEveryIdOfTheModelIsAnID() {
        func id<Root>(_ path: KeyPath<Root, ID>) -> AnyKeyPath { path }
        func maybe<Root>(_ path: KeyPath<Root, ID?>) -> AnyKeyPath { path }
        func ids<Root>(_ path: KeyPath<Root, [ID]>) -> AnyKeyPath { path }
        let paths: [AnyKeyPath] = [
            id(\CustomerRecord.id), ids(\CustomerRecord.aliases),
            id(\Transaction.transactionId), id(\Transaction.originalTransactionId), id(\Transaction.productId),
            id(\SubscriptionEvent.originalTransactionId), maybe(\SubscriptionEvent.productId),
            id(\Grant.id), id(\Grant.entitlement),
            id(\Product.id), ids(\Product.entitlements), ids(\Catalog.entitlementIds),
            id(\EntitlementInfo.id), maybe(\EntitlementInfo.productId), maybe(\EntitlementInfo.renewalProductId),
            maybe(\EntitlementInfo.grantId), maybe(\OtherActiveSource.productId),
            id(\CustomerStatus.requestedId), ids(\CustomerStatus.activeEntitlementIds),
            ids(\HistoryEntry.entitlements), id(\HistoryAnswer.customerId), id(\AccessEnd.entitlement),
            id(\CustomerChange.entitlement), id(\ChangeRequest.id), id(\StoredRecord.id),
            id(\FindMatch.customerId), ids(\FindMatch.activeEntitlements),
            id(\StoredCustomer.id), ids(\StoreVersion.ids), id(\CustomerSpan.id),
            id(\RequestFingerprint.customer), ids(\RequestFingerprint.action),
            maybe(\IdempotencyTable.Entry.canonical),
            id(\RevenueCatEntitlement.id), maybe(\RevenueCatEntitlement.productIdentifier),
            id(\RevenueCatSubscription.productId), id(\RevenueCatPurchase.productId),
            id(\RevenueCatV2Customer.id), id(\RevenueCatV2EntitlementRef.id), maybe(\RevenueCatV2EntitlementRef.lookupKey),
            id(\RevenueCatV2Subscription.id), maybe(\RevenueCatV2Subscription.productId),
            id(\QonversionEntitlement.id), maybe(\QonversionEntitlement.productId),
            id(\QonversionPurchase.productId), maybe(\QonversionPurchase.chainId),
            maybe(\IAPHUBProduct.entitlementId), maybe(\IAPHUBProduct.sku), id(\IAPHUBPurchase.chainId),
            maybe(\IAPHUBPurchase.entitlementId),
        ]
        XCTAssertEqual(Set(paths).count, paths.count)
        // Keys of the indexes and tables: their key type is ID (or bytes) by declaration.
        func keyedByID<Value>(_: [ID: Value].Type) {}
        keyedByID([ID: Int].self)
        let table = IdempotencyTable(budget: 1 << 20, exactLimit: 1 << 16, window: 60)
        guard case .run = table.claim(Array("caf\u{E9}".utf8), now: Instant(seconds: 0)) else { return XCTFail("a new key") }
        table.finish(Array("caf\u{E9}".utf8), RequestFingerprint(method: "POST", action: ["grants"], customer: "x", body: []),
                     canonical: "x", answer: HTTPResponse(status: 201), now: Instant(seconds: 0))
        guard case .run = table.claim(Array("cafe\u{301}".utf8), now: Instant(seconds: 0)) else {
            return XCTFail("an Idempotency-Key canonically equal to a stored one found its entry")
        }
    }
}
