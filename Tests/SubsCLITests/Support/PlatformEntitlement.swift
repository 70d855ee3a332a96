// The check document's entitlement as a platform provider maps it (SPEC section 6): every key,
// with the values a plain active, renewing App Store purchase has; tests override what differs.

import SubsJSON
import XCTest

enum PlatformEntitlement {
    /// The keys of an entitlement in the check document, in their documented order.
    static let keys = ["id", "isActive", "state", "renewState", "willRenew", "periodType", "source", "grantType",
                       "productId", "startedDate", "trialStartDate", "firstPurchaseDate", "lastPurchaseDate",
                       "expirationDate", "accessEndDate", "gracePeriodExpirationDate", "billingIssueDetectedAt",
                       "billingRetryEndDate", "autoRenewDisableDate", "autoResumeDate", "pauseEndedDate",
                       "renewalProductId", "renewsCount", "isSandbox", "lastActivatedOfferCode", "grantId",
                       "grantedBy", "grantReason", "refundedAt", "revokedAt", "revokedBy", "revokeReason",
                       "transactions", "otherActiveSources"]

    static let baseline: [String: JSONValue] = [
        "isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"), "willRenew": .bool(true),
        "periodType": .string("normal"), "source": .string("appstore"), "grantType": .string("purchase"),
        "productId": .null, "startedDate": .null, "trialStartDate": .null, "firstPurchaseDate": .null,
        "lastPurchaseDate": .null, "expirationDate": .null, "gracePeriodExpirationDate": .null,
        "billingIssueDetectedAt": .null, "autoRenewDisableDate": .null, "autoResumeDate": .null,
        "renewalProductId": .null, "renewsCount": .null, "isSandbox": .bool(false), "lastActivatedOfferCode": .null,
        "grantId": .null, "transactions": .array([]), "otherActiveSources": .array([]),
        "billingRetryEndDate": .null, "pauseEndedDate": .null, "grantedBy": .null, "grantReason": .null,
        "refundedAt": .null, "revokedAt": .null, "revokedBy": .null, "revokeReason": .null,
    ]
}

/// Entitlement `id` of a check document has exactly the baseline's keys, with `fields` overriding
/// its values.
func assertEntitlement(_ doc: JSONValue, _ id: String, _ fields: [String: JSONValue],
                       file: StaticString = #filePath, line: UInt = #line) {
    guard let e = doc["entitlements"]?[id]?.objectValue else { return XCTFail("no entitlement \(id)", file: file, line: line) }
    var expected = PlatformEntitlement.baseline.merging(fields) { $1 }
    expected["id"] = .string(id)
    // What the table's UNTIL shows: the expiration, unless a test says when access was taken back.
    if fields["accessEndDate"] == nil { expected["accessEndDate"] = expected["expirationDate"] }
    XCTAssertEqual(Set(e.keys), Set(expected.keys), file: file, line: line)
    for key in e.keys { XCTAssertEqual(e[key], expected[key], "\(id).\(key)", file: file, line: line) }
}
