// The store that `subs store init --demo` writes: byte for byte the content of examples/store.json.
// Data, not code (hence its length); DemoStoreTests fails when the two drift apart.

public enum DemoStore {
    /// The demo store document (UTF-8, ends with a newline). Its customers are described in
    /// README.md ("Demo customers"), evaluated at 2026-12-01T12:00:00Z.
    public static let json: String = #"""
{
  "schemaVersion": 1,
  "description": "subs demo store: every state of SPEC section 3 at 2026-12-01T12:00:00Z (see 'Demo customers' in README.md)",
  "products": {
    "pro_monthly": {
      "type": "subscription",
      "entitlements": [
        "premium"
      ],
      "gracePeriod": "P16D",
      "billingRetryPeriod": "P60D",
      "displayName": "Pro (monthly, App Store)"
    },
    "pro_yearly": {
      "type": "subscription",
      "entitlements": [
        "premium"
      ],
      "gracePeriod": "P7D",
      "displayName": "Pro (yearly, App Store)"
    },
    "pro_monthly_android": {
      "type": "subscription",
      "entitlements": [
        "premium"
      ],
      "gracePeriod": "P7D",
      "billingRetryPeriod": "P30D",
      "displayName": "Pro (monthly, Google Play)"
    },
    "pro_yearly_web": {
      "type": "subscription",
      "entitlements": [
        "premium"
      ],
      "gracePeriod": "P30D",
      "displayName": "Pro (yearly, web checkout)"
    },
    "pro_plus_monthly": {
      "type": "subscription",
      "entitlements": [
        "premium",
        "pro_plus"
      ],
      "gracePeriod": "P16D",
      "displayName": "Pro Plus (monthly, App Store)"
    },
    "family_plan": {
      "type": "subscription",
      "entitlements": [
        "premium",
        "family"
      ],
      "gracePeriod": "P16D",
      "displayName": "Family (yearly, App Store)"
    },
    "lifetime": {
      "type": "nonConsumable",
      "entitlements": [
        "premium"
      ],
      "displayName": "Pro (lifetime)"
    },
    "early_access_pass": {
      "type": "nonConsumable",
      "entitlements": [
        "early_access"
      ],
      "displayName": "Early access pass"
    },
    "coins_100": {
      "type": "consumable",
      "entitlements": [],
      "displayName": "100 coins"
    },
    "coins_500": {
      "type": "consumable",
      "entitlements": [],
      "displayName": "500 coins"
    }
  },
  "customers": {
    "alice": {
      "aliases": [
        "alice-android",
        "$anon:8d1f"
      ],
      "firstSeen": "2025-03-28T19:42:11Z",
      "attributes": {
        "email": "alice@example.com",
        "country": "US",
        "displayName": "Alice Martin"
      },
      "transactions": [
        {
          "transactionId": "GPA.3312-8841-0923-55170",
          "originalTransactionId": "GPA.3312-8841-0923-55170",
          "productId": "pro_monthly_android",
          "type": "subscriptionStarted",
          "transactionDate": "2025-04-02T08:15:00Z",
          "expirationDate": "2025-05-02T08:15:00Z",
          "source": "playstore"
        },
        {
          "transactionId": "GPA.3312-8841-0923-55170..0",
          "originalTransactionId": "GPA.3312-8841-0923-55170",
          "productId": "pro_monthly_android",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-05-02T08:15:00Z",
          "expirationDate": "2025-06-02T08:15:00Z",
          "source": "playstore"
        },
        {
          "transactionId": "2000000700041200",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "trialStarted",
          "transactionDate": "2025-05-03T10:20:00Z",
          "expirationDate": "2025-05-10T10:20:00Z",
          "source": "appstore",
          "environment": "production",
          "storefront": "USA"
        },
        {
          "transactionId": "2000000700041201",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2025-05-10T10:20:00Z",
          "expirationDate": "2025-06-10T10:20:00Z",
          "source": "appstore",
          "priceMicros": 9990000,
          "currency": "USD"
        },
        {
          "transactionId": "2000000700041202",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-06-10T10:20:00Z",
          "expirationDate": "2025-07-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041203",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-07-10T10:20:00Z",
          "expirationDate": "2025-08-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041204",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-08-10T10:20:00Z",
          "expirationDate": "2025-09-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041205",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-09-10T10:20:00Z",
          "expirationDate": "2025-10-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041206",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-10-10T10:20:00Z",
          "expirationDate": "2025-11-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041207",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-11-10T10:20:00Z",
          "expirationDate": "2025-12-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041208",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-12-10T10:20:00Z",
          "expirationDate": "2026-01-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041209",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-01-10T10:20:00Z",
          "expirationDate": "2026-02-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041210",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-02-10T10:20:00Z",
          "expirationDate": "2026-03-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041211",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-03-10T10:20:00Z",
          "expirationDate": "2026-04-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041212",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-04-10T10:20:00Z",
          "expirationDate": "2026-05-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041213",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-05-10T10:20:00Z",
          "expirationDate": "2026-06-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041214",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-06-10T10:20:00Z",
          "expirationDate": "2026-07-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041215",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-07-10T10:20:00Z",
          "expirationDate": "2026-08-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041216",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-08-10T10:20:00Z",
          "expirationDate": "2026-09-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041217",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-09-10T10:20:00Z",
          "expirationDate": "2026-10-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041218",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-10-10T10:20:00Z",
          "expirationDate": "2026-11-10T10:20:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000700041219",
          "originalTransactionId": "2000000700041200",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-11-10T10:20:00Z",
          "expirationDate": "2026-12-10T10:20:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "autoRenewDisabled",
          "date": "2025-05-03T10:25:00Z",
          "originalTransactionId": "GPA.3312-8841-0923-55170"
        }
      ],
      "grants": [],
      "crm": {
        "hubspotId": "51023",
        "tags": [
          "early-adopter",
          "ios"
        ]
      }
    },
    "bob": {
      "firstSeen": "2026-11-11T21:03:44Z",
      "attributes": {
        "email": "bob@example.org",
        "country": "DE"
      },
      "transactions": [
        {
          "transactionId": "2000000798310422",
          "originalTransactionId": "2000000798310422",
          "productId": "pro_yearly",
          "type": "trialStarted",
          "transactionDate": "2026-11-11T21:05:09Z",
          "expirationDate": "2026-12-11T21:05:09Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "autoRenewDisabled",
          "date": "2026-11-13T07:30:00Z",
          "originalTransactionId": "2000000798310422"
        },
        {
          "type": "autoRenewEnabled",
          "date": "2026-11-16T19:12:00Z",
          "originalTransactionId": "2000000798310422"
        }
      ]
    },
    "carol": {
      "firstSeen": "2026-09-14T15:51:30Z",
      "attributes": {
        "email": "carol@example.net",
        "country": "GB"
      },
      "transactions": [
        {
          "transactionId": "2000000741150093",
          "originalTransactionId": "2000000741150093",
          "productId": "pro_monthly",
          "type": "introStarted",
          "transactionDate": "2026-09-14T16:00:00Z",
          "expirationDate": "2026-10-14T16:00:00Z",
          "source": "appstore",
          "offerCode": null
        },
        {
          "transactionId": "2000000759920118",
          "originalTransactionId": "2000000741150093",
          "productId": "pro_monthly",
          "type": "introRenewed",
          "transactionDate": "2026-10-14T16:00:00Z",
          "expirationDate": "2026-11-14T16:00:00Z",
          "source": "appstore",
          "offerCode": null
        },
        {
          "transactionId": "2000000781034467",
          "originalTransactionId": "2000000741150093",
          "productId": "pro_monthly",
          "type": "introRenewed",
          "transactionDate": "2026-11-14T16:00:00Z",
          "expirationDate": "2026-12-14T16:00:00Z",
          "source": "appstore",
          "offerCode": null
        }
      ]
    },
    "dave": {
      "firstSeen": "2024-11-12T14:22:09Z",
      "attributes": {
        "email": "dave@example.com",
        "country": "CA"
      },
      "transactions": [
        {
          "transactionId": "in_1QKv2ZLkdIwHu7ixB8c0Fh3T",
          "originalTransactionId": "in_1QKv2ZLkdIwHu7ixB8c0Fh3T",
          "productId": "pro_yearly_web",
          "type": "subscriptionStarted",
          "transactionDate": "2024-11-12T14:30:00Z",
          "expirationDate": "2025-11-12T14:30:00Z",
          "source": "stripe"
        },
        {
          "transactionId": "in_1SSd81LkdIwHu7ixUq2mJ9aR",
          "originalTransactionId": "in_1QKv2ZLkdIwHu7ixB8c0Fh3T",
          "productId": "pro_yearly_web",
          "type": "subscriptionRenewed",
          "transactionDate": "2025-11-12T14:30:00Z",
          "expirationDate": "2026-11-12T14:30:00Z",
          "source": "stripe"
        }
      ],
      "events": [
        {
          "type": "billingIssue",
          "date": "2026-11-12T14:31:07Z",
          "originalTransactionId": "in_1QKv2ZLkdIwHu7ixB8c0Fh3T"
        }
      ]
    },
    "erin": {
      "firstSeen": "2026-07-21T08:02:57Z",
      "attributes": {
        "email": "erin@example.com",
        "country": "FR"
      },
      "transactions": [
        {
          "transactionId": "2000000688023311",
          "originalTransactionId": "2000000688023311",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-07-21T08:15:00Z",
          "expirationDate": "2026-08-21T08:15:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000702230947",
          "originalTransactionId": "2000000688023311",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-08-21T08:15:00Z",
          "expirationDate": "2026-09-21T08:15:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000719948860",
          "originalTransactionId": "2000000688023311",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-09-21T08:15:00Z",
          "expirationDate": "2026-10-21T08:15:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "billingIssue",
          "date": "2026-10-21T08:16:30Z",
          "originalTransactionId": "2000000688023311"
        }
      ]
    },
    "frank": {
      "firstSeen": "2026-06-09T11:48:20Z",
      "attributes": {
        "email": "frank@example.com",
        "country": "BR"
      },
      "transactions": [
        {
          "transactionId": "GPA.3381-2207-6410-90322",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "productId": "pro_monthly_android",
          "type": "subscriptionStarted",
          "transactionDate": "2026-06-09T12:00:00Z",
          "expirationDate": "2026-07-09T12:00:00Z",
          "source": "playstore"
        },
        {
          "transactionId": "GPA.3381-2207-6410-90322..0",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "productId": "pro_monthly_android",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-07-09T12:00:00Z",
          "expirationDate": "2026-08-09T12:00:00Z",
          "source": "playstore"
        },
        {
          "transactionId": "GPA.3381-2207-6410-90322..1",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "productId": "pro_monthly_android",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-08-09T12:00:00Z",
          "expirationDate": "2026-09-09T12:00:00Z",
          "source": "playstore"
        },
        {
          "transactionId": "GPA.3381-2207-6410-90322..2",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "productId": "pro_monthly_android",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-09-09T12:00:00Z",
          "expirationDate": "2026-10-09T12:00:00Z",
          "source": "playstore"
        },
        {
          "transactionId": "GPA.3381-2207-6410-90322..3",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "productId": "pro_monthly_android",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-10-09T12:00:00Z",
          "expirationDate": "2026-11-09T12:00:00Z",
          "source": "playstore"
        }
      ],
      "events": [
        {
          "type": "pauseScheduled",
          "date": "2026-07-20T09:00:00Z",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "autoResumeDate": "2026-09-09T12:00:00Z"
        },
        {
          "type": "pauseCanceled",
          "date": "2026-07-25T17:45:00Z",
          "originalTransactionId": "GPA.3381-2207-6410-90322"
        },
        {
          "type": "pauseScheduled",
          "date": "2026-10-25T18:40:00Z",
          "originalTransactionId": "GPA.3381-2207-6410-90322",
          "autoResumeDate": "2027-01-09T12:00:00Z"
        }
      ]
    },
    "gwen": {
      "firstSeen": "2025-03-15T09:40:12Z",
      "attributes": {
        "email": "gwen@example.com",
        "country": "AU"
      },
      "transactions": [
        {
          "transactionId": "2000000587710025",
          "originalTransactionId": "2000000587710025",
          "productId": "pro_yearly",
          "type": "subscriptionStarted",
          "transactionDate": "2025-03-15T09:45:00Z",
          "expirationDate": "2026-03-15T09:45:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000615583019",
          "originalTransactionId": "2000000587710025",
          "productId": "pro_yearly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-03-15T09:45:00Z",
          "expirationDate": "2027-03-15T09:45:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "autoRenewDisabled",
          "date": "2026-09-02T22:10:00Z",
          "originalTransactionId": "2000000587710025"
        }
      ]
    },
    "heidi": {
      "firstSeen": "2026-05-04T10:51:03Z",
      "attributes": {
        "email": "heidi@example.com",
        "country": "NL"
      },
      "transactions": [
        {
          "transactionId": "2000000649980214",
          "originalTransactionId": "2000000649980214",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-05-04T11:00:00Z",
          "expirationDate": "2026-06-04T11:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000661127730",
          "originalTransactionId": "2000000649980214",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-06-04T11:00:00Z",
          "expirationDate": "2026-07-04T11:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000673305581",
          "originalTransactionId": "2000000649980214",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-07-04T11:00:00Z",
          "expirationDate": "2026-08-04T11:00:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "autoRenewDisabled",
          "date": "2026-07-29T13:22:00Z",
          "originalTransactionId": "2000000649980214"
        }
      ]
    },
    "ivan": {
      "firstSeen": "2026-10-03T15:12:40Z",
      "attributes": {
        "email": "ivan@example.com",
        "country": "PL"
      },
      "transactions": [
        {
          "transactionId": "2000000766412205",
          "originalTransactionId": "2000000766412205",
          "productId": "pro_yearly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-10-03T15:20:00Z",
          "expirationDate": "2027-10-03T15:20:00Z",
          "source": "appstore",
          "transactionRevocationDate": "2026-10-06T09:00:00Z"
        }
      ]
    },
    "judy": {
      "firstSeen": "2025-12-24T09:00:00+01:00",
      "attributes": {
        "email": "judy@example.com",
        "country": "IT"
      },
      "transactions": [
        {
          "transactionId": "amzn1.txn.7f3c19d2-lifetime",
          "originalTransactionId": "amzn1.txn.7f3c19d2-lifetime",
          "productId": "lifetime",
          "type": "nonConsumablePurchase",
          "transactionDate": "2025-12-24T08:10:00Z",
          "source": "amazon"
        },
        {
          "transactionId": "amzn1.txn.a04be6f1-coins",
          "originalTransactionId": "amzn1.txn.a04be6f1-coins",
          "productId": "coins_100",
          "type": "consumablePurchase",
          "transactionDate": "2026-01-02T18:30:00Z",
          "expirationDate": null,
          "source": "amazon"
        }
      ]
    },
    "kim": {
      "firstSeen": "2026-08-19T20:02:33Z",
      "attributes": {
        "email": "kim@example.com",
        "country": "KR"
      },
      "transactions": [
        {
          "transactionId": "GPA.3347-1190-5512-60418",
          "originalTransactionId": "GPA.3347-1190-5512-60418",
          "productId": "lifetime",
          "type": "nonConsumablePurchase",
          "transactionDate": "2026-08-19T20:11:00Z",
          "source": "playstore",
          "transactionRevocationDate": "2026-08-27T10:00:00Z"
        },
        {
          "transactionId": "GPA.3347-1190-5512-77301",
          "originalTransactionId": "GPA.3347-1190-5512-77301",
          "productId": "coins_500",
          "type": "consumablePurchase",
          "transactionDate": "2026-08-19T20:15:00Z",
          "source": "playstore"
        }
      ]
    },
    "liam": {
      "firstSeen": "2026-08-28T09:47:18Z",
      "attributes": {
        "email": "liam@example.com",
        "country": "IE"
      },
      "transactions": [
        {
          "transactionId": "2000000731900452",
          "originalTransactionId": "2000000731900452",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-08-28T10:00:00Z",
          "expirationDate": "2026-09-28T10:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000748811607",
          "originalTransactionId": "2000000731900452",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-09-28T10:00:00Z",
          "expirationDate": "2026-10-28T10:00:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "autoRenewDisabled",
          "date": "2026-10-20T12:03:00Z",
          "originalTransactionId": "2000000731900452"
        }
      ],
      "grants": [
        {
          "id": "grant-1",
          "entitlement": "premium",
          "grantedAt": "2026-11-02T15:45:00Z",
          "expirationDate": "2027-01-15T00:00:00Z",
          "grantedBy": "dana",
          "reason": "goodwill: double charge in October",
          "ticket": "SUP-4821"
        },
        {
          "id": "grant-2",
          "entitlement": "early_access",
          "grantedAt": "2026-11-02T15:47:00Z",
          "expirationDate": null,
          "grantedBy": "dana",
          "reason": "beta program"
        }
      ]
    },
    "mia": {
      "firstSeen": "2026-03-30T12:00:00Z",
      "attributes": {
        "email": "mia@example.com",
        "country": "SE"
      },
      "grants": [
        {
          "id": "grant-1",
          "entitlement": "early_access",
          "grantedAt": "2026-04-01T09:00:00Z",
          "expirationDate": "2026-07-01T00:00:00Z",
          "grantedBy": "sam",
          "reason": "beta tester"
        },
        {
          "id": "grant-2",
          "entitlement": "premium",
          "grantedAt": "2026-09-01T09:00:00Z",
          "expirationDate": "2027-03-01T00:00:00Z",
          "grantedBy": "sam",
          "reason": "influencer campaign",
          "revokedAt": "2026-10-02T16:30:00Z",
          "revokedBy": "dana",
          "revokeReason": "campaign cancelled"
        }
      ]
    },
    "nina": {
      "firstSeen": "2026-02-20T17:58:31Z",
      "attributes": {
        "email": "nina@example.com",
        "country": "US"
      },
      "transactions": [
        {
          "transactionId": "2000000611902388",
          "originalTransactionId": "2000000611902388",
          "productId": "family_plan",
          "type": "subscriptionStarted",
          "transactionDate": "2026-02-20T18:00:00Z",
          "expirationDate": "2027-02-20T18:00:00Z",
          "source": "appstore",
          "ownershipType": "familySharing"
        }
      ]
    },
    "oscar": {
      "firstSeen": "2025-02-20T17:40:05Z",
      "attributes": {
        "email": "oscar@example.com",
        "country": "US",
        "familyId": "fam_3921"
      },
      "transactions": [
        {
          "transactionId": "2000000566310764",
          "originalTransactionId": "2000000566310764",
          "productId": "family_plan",
          "type": "subscriptionStarted",
          "transactionDate": "2025-02-20T17:55:00Z",
          "expirationDate": "2026-02-20T17:55:00Z",
          "source": "appstore",
          "ownershipType": "owner"
        },
        {
          "transactionId": "2000000611880152",
          "originalTransactionId": "2000000566310764",
          "productId": "family_plan",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-02-20T17:55:00Z",
          "expirationDate": "2027-02-20T17:55:00Z",
          "source": "appstore",
          "ownershipType": "owner"
        }
      ]
    },
    "olivia": {
      "firstSeen": "2025-06-11T07:14:52Z",
      "attributes": {
        "email": "olivia@example.com",
        "country": "ES"
      },
      "transactions": [
        {
          "transactionId": "2000000727345510",
          "originalTransactionId": "2000000727345510",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-09-08T12:30:00Z",
          "expirationDate": "2026-10-08T12:30:00Z",
          "source": "appstore",
          "offerCode": "WINBACK50"
        },
        {
          "transactionId": "2000000743391876",
          "originalTransactionId": "2000000727345510",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-10-08T12:30:00Z",
          "expirationDate": "2026-11-08T12:30:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000760017723",
          "originalTransactionId": "2000000727345510",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-11-08T12:30:00Z",
          "expirationDate": "2026-12-08T12:30:00Z",
          "source": "appstore"
        }
      ]
    },
    "peggy": {
      "firstSeen": "2026-10-30T09:55:00Z",
      "attributes": {
        "email": "peggy+qa@example.com",
        "country": "US",
        "team": "qa"
      },
      "transactions": [
        {
          "transactionId": "in_1SNq0tLkdIwHu7ixTESTm0de",
          "originalTransactionId": "in_1SNq0tLkdIwHu7ixTESTm0de",
          "productId": "pro_yearly_web",
          "type": "subscriptionStarted",
          "transactionDate": "2026-10-30T10:00:00Z",
          "expirationDate": "2027-10-30T10:00:00Z",
          "source": "stripe",
          "environment": "sandbox"
        }
      ]
    },
    "quentin": {
      "firstSeen": "2026-01-10T19:20:44Z",
      "attributes": {
        "email": "quentin@example.com",
        "country": "FR"
      },
      "transactions": [
        {
          "transactionId": "2000000598804471",
          "originalTransactionId": "2000000598804471",
          "productId": "pro_yearly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-01-10T19:25:00Z",
          "expirationDate": "2027-01-10T19:25:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000605561190",
          "originalTransactionId": "2000000605561190",
          "productId": "lifetime",
          "type": "nonConsumablePurchase",
          "transactionDate": "2026-02-14T11:02:00Z",
          "source": "appstore"
        }
      ]
    },
    "sybil": {
      "firstSeen": "2026-06-18T13:52:09Z",
      "attributes": {
        "email": "sybil@example.com",
        "country": "JP"
      },
      "transactions": [
        {
          "transactionId": "2000000671920035",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-06-18T14:00:00Z",
          "expirationDate": "2026-07-18T14:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000683452219",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-07-18T14:00:00Z",
          "expirationDate": "2026-08-18T14:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000695510846",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-08-18T14:00:00Z",
          "expirationDate": "2026-09-18T14:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000708870391",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-09-18T14:00:00Z",
          "expirationDate": "2026-10-18T14:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000722014458",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_plus_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-10-18T14:00:00Z",
          "expirationDate": "2026-11-18T14:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000737795602",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_plus_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-11-18T14:00:00Z",
          "expirationDate": "2026-12-18T14:00:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "renewalProductChanged",
          "date": "2026-09-30T08:00:00Z",
          "originalTransactionId": "2000000671920035",
          "productId": "pro_plus_monthly"
        }
      ]
    },
    "trent": {
      "firstSeen": "2026-09-29T16:40:00Z",
      "attributes": {
        "email": "trent@example.com",
        "country": "US"
      },
      "transactions": [
        {
          "transactionId": "txn_c100_0001",
          "originalTransactionId": "txn_c100_0001",
          "productId": "coins_100",
          "type": "consumablePurchase",
          "transactionDate": "2026-10-01T17:00:00Z"
        },
        {
          "transactionId": "txn_c100_0002",
          "originalTransactionId": "txn_c100_0002",
          "productId": "coins_100",
          "type": "consumablePurchase",
          "transactionDate": "2026-10-15T17:30:00Z"
        },
        {
          "transactionId": "txn_c500_0003",
          "originalTransactionId": "txn_c500_0003",
          "productId": "coins_500",
          "type": "consumablePurchase",
          "transactionDate": "2026-11-02T18:05:00Z"
        }
      ]
    },
    "victor": {
      "firstSeen": "2026-05-12T06:55:10Z",
      "attributes": {
        "email": "victor@example.com",
        "country": "CH"
      },
      "transactions": [
        {
          "transactionId": "2000000652118840",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionStarted",
          "transactionDate": "2026-05-12T07:00:00Z",
          "expirationDate": "2026-06-12T07:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000664409127",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-06-12T07:00:00Z",
          "expirationDate": "2026-07-12T07:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000676633085",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-07-12T07:00:00Z",
          "expirationDate": "2026-08-12T07:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000689015472",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-08-12T07:00:00Z",
          "expirationDate": "2026-09-12T07:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000701288930",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-09-12T07:00:00Z",
          "expirationDate": "2026-10-12T07:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000714502216",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-10-12T07:00:00Z",
          "expirationDate": "2026-11-12T07:00:00Z",
          "source": "appstore"
        },
        {
          "transactionId": "2000000729943057",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_monthly",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-11-12T07:00:00Z",
          "expirationDate": "2026-12-12T07:00:00Z",
          "source": "appstore"
        }
      ],
      "events": [
        {
          "type": "renewalProductChanged",
          "date": "2026-11-16T20:00:00Z",
          "originalTransactionId": "2000000652118840",
          "productId": "pro_yearly"
        }
      ]
    },
    "walter": {
      "firstSeen": "2025-11-02T23:41:17Z",
      "attributes": {
        "email": "walter@example.com",
        "country": "US"
      },
      "transactions": [
        {
          "transactionId": "in_1SOy3aLkdIwHu7ixQ0wM4kLp",
          "originalTransactionId": "in_1SOy3aLkdIwHu7ixQ0wM4kLp",
          "productId": "pro_yearly_web",
          "type": "subscriptionStarted",
          "transactionDate": "2025-11-03T00:00:00Z",
          "expirationDate": "2026-11-03T00:00:00Z",
          "source": "stripe"
        },
        {
          "transactionId": "in_1SPm7cLkdIwHu7ixZr5tN2Wd",
          "originalTransactionId": "in_1SOy3aLkdIwHu7ixQ0wM4kLp",
          "productId": "pro_yearly_web",
          "type": "subscriptionRenewed",
          "transactionDate": "2026-11-03T00:00:00Z",
          "expirationDate": "2027-11-03T00:00:00Z",
          "source": "stripe"
        }
      ],
      "events": [
        {
          "type": "billingIssue",
          "date": "2026-11-03T00:00:41.250Z",
          "originalTransactionId": "in_1SOy3aLkdIwHu7ixQ0wM4kLp"
        },
        {
          "type": "billingRecovered",
          "date": "2026-11-05T16:12:00Z",
          "originalTransactionId": "in_1SOy3aLkdIwHu7ixQ0wM4kLp"
        }
      ]
    }
  }
}

"""#
}
