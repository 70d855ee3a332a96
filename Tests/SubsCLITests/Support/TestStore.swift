// A small hand-written store for CLI tests; states are described as of `testNow` (2026-12-01T12:00Z).

enum TestStore {
    /// alice: active, renewing (alias alice-android) · bob: grace period · carol: cancelled then
    /// expired · dave: manual grant · frank: consumables only · "evil\u{1b}[31m": control characters.
    static let json = #"""
    {
      "schemaVersion": 1,
      "products": {
        "pro_monthly": { "type": "subscription", "entitlements": ["premium"], "gracePeriod": "P16D" },
        "lifetime": { "type": "nonConsumable", "entitlements": ["premium"] },
        "coins": { "type": "consumable", "entitlements": [] }
      },
      "customers": {
        "alice": {
          "aliases": ["alice-android"],
          "firstSeen": "2026-10-15T09:00:00Z",
          "attributes": { "email": "alice@example.com" },
          "transactions": [
            { "transactionId": "a1", "originalTransactionId": "a1", "productId": "pro_monthly", "type": "subscriptionStarted",
              "transactionDate": "2026-10-15T09:00:00Z", "expirationDate": "2026-11-15T09:00:00Z", "source": "appstore" },
            { "transactionId": "a2", "originalTransactionId": "a1", "productId": "pro_monthly", "type": "subscriptionRenewed",
              "transactionDate": "2026-11-15T09:00:00Z", "expirationDate": "2026-12-15T09:00:00Z", "source": "appstore" }
          ]
        },
        "bob": {
          "transactions": [
            { "transactionId": "b1", "originalTransactionId": "b1", "productId": "pro_monthly", "type": "subscriptionStarted",
              "transactionDate": "2026-10-25T00:00:00Z", "expirationDate": "2026-11-25T00:00:00Z", "source": "playstore" }
          ],
          "events": [ { "type": "billingIssue", "date": "2026-11-25T00:00:00Z", "originalTransactionId": "b1" } ]
        },
        "carol": {
          "transactions": [
            { "transactionId": "c1", "originalTransactionId": "c1", "productId": "pro_monthly", "type": "subscriptionStarted",
              "transactionDate": "2026-09-01T00:00:00Z", "expirationDate": "2026-10-01T00:00:00Z" }
          ],
          "events": [ { "type": "autoRenewDisabled", "date": "2026-09-10T00:00:00Z", "originalTransactionId": "c1" } ]
        },
        "dave": {
          "grants": [ { "id": "g1", "entitlement": "premium", "grantedAt": "2026-11-01T00:00:00Z",
                        "expirationDate": "2027-01-01T00:00:00Z", "grantedBy": "dana", "reason": "goodwill" } ]
        },
        "frank": {
          "transactions": [
            { "transactionId": "f1", "originalTransactionId": "f1", "productId": "coins", "type": "consumablePurchase",
              "transactionDate": "2026-11-01T00:00:00Z" }
          ]
        },
        "evil\u001b[31m": {
          "attributes": { "note": "bell\u0007 csi\u009b tab\t" },
          "grants": [ { "id": "g1", "entitlement": "premium", "grantedAt": "2026-11-01T00:00:00Z", "expirationDate": null,
                        "grantedBy": "x\u001b[2J" } ]
        }
      }
    }
    """#
}
