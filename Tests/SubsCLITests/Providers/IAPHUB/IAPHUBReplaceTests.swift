// IAPHUB's subscription replace (a new product replacing the subscription) is not a renewal, as
// IAPHUB's webhooks and sample server (iaphub/webhook-example) tell it; replayed from listings
// written after those samples (Tests/Fixtures/iaphub/*replace*).

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI

final class IAPHUBReplaceTests: IAPHUBTestCase {
    private func types(_ user: String) throws -> [String] {
        let result = iaphub(["history", user, "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        return try JSON.parse(result.stdout)["entries"]?.arrayValue?.map {
            "\($0["type"]?.stringValue ?? "?") \($0["productId"]?.stringValue ?? "?")"
        } ?? []
    }

    /// IAPHUB's `subscription_replace` (a new product replacing the subscription, same
    /// `originalPurchase`, `linkedPurchase` to the replaced one) is not a renewal: the
    /// subscription renewed once before and once after it. Its `product` id stays the same, as in
    /// IAPHUB's own examples; the sku tells the replace.
    func testAReplaceIsNotARenewal() throws {
        XCTAssertEqual(iaphub(["renew-count", "replace", "membership"]).stdout, "2\n")
        XCTAssertEqual(try types("replace"), ["subscriptionStarted membership_1", "subscriptionRenewed membership_1",
                                              "subscriptionStarted membership_2", "subscriptionRenewed membership_2"])
    }

    /// As IAPHUB's sample server plays it: the replace carries the replaced purchase's very
    /// purchaseDate, and the listing happens to give it first.
    func testAReplaceDatedWithItsPredecessorIsNotARenewal() throws {
        XCTAssertEqual(iaphub(["renew-count", "replace-same-date", "membership"]).stdout, "0\n")
        XCTAssertEqual(try types("replace-same-date").sorted(), ["subscriptionStarted membership_1", "subscriptionStarted membership_2"])
    }

    /// The replaced purchase is not listed and the sku stays: `subscriptionProrationMode`, which
    /// IAPHUB sets only on a transaction a replace created, tells it.
    func testAReplaceIsToldByItsProrationMode() throws {
        XCTAssertEqual(iaphub(["renew-count", "replace-proration", "membership"]).stdout, "2\n")
        XCTAssertEqual(try types("replace-proration"), ["subscriptionRenewed membership_1", "subscriptionStarted membership_1",
                                                        "subscriptionRenewed membership_1"])
    }
}
