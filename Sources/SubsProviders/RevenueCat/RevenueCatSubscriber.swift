// RevenueCat's REST API v1 subscriber answer (`GET /subscribers/{id}`, and what grant and revoke
// answer), decoded defensively: unknown stores, period and ownership types and extra fields are
// kept or ignored, never an error. A body that is not a subscriber at all (not JSON, no
// `request_date` or `subscriber`, `entitlements` not an object, or not one readable entitlement
// among several) is a `RevenueCatFormatError` naming the JSON path; one malformed entitlement,
// subscription or purchase is left out and listed in `problems`, so it never hides the rest.
// Wire facts: shared/reference/revenuecat-api-v1.yaml (components.schemas.Subscriber).

import SubsJSON
import SubsModel
import SubsSource

/// The answer is not the documented shape: where (a JSON path, "" for the whole body) and what.
public typealias RevenueCatFormatError = WireFormatError

/// `subscriber.entitlements[id]`: the purchase with the furthest-out expiration of it.
public struct RevenueCatEntitlement: Equatable, Sendable {
    public var id: ID
    public var expiresDate: Instant?
    public var gracePeriodExpiresDate: Instant?
    /// May be absent while RevenueCat cannot validate the purchase with the store.
    public var productIdentifier: ID?
    public var purchaseDate: Instant?
}

/// `subscriber.subscriptions[productId]`.
public struct RevenueCatSubscription: Equatable, Sendable {
    public var productId: ID
    public var autoResumeDate: Instant?
    public var billingIssuesDetectedAt: Instant?
    public var expiresDate: Instant?
    public var gracePeriodExpiresDate: Instant?
    public var isSandbox: Bool
    public var originalPurchaseDate: Instant?
    /// `PURCHASED`, `FAMILY_SHARED`, or whatever a newer API says.
    public var ownershipType: String?
    /// `normal`, `trial`, `intro`, `prepaid`, or whatever a newer API says.
    public var periodType: String?
    public var purchaseDate: Instant?
    public var refundedAt: Instant?
    /// `app_store`, `mac_app_store`, `play_store`, `amazon`, `stripe`, `promotional`, `roku`, `paddle`…
    public var store: String?
    public var storeTransactionId: String?
    public var unsubscribeDetectedAt: Instant?
    /// `price.amount` as the JSON literal RevenueCat sent (the latest period's), and `price.currency`.
    public var price: String? = nil
    public var currency: String? = nil

    public var isPromotional: Bool { store == "promotional" }
}

/// One element of `subscriber.non_subscriptions[productId]`.
public struct RevenueCatPurchase: Equatable, Sendable {
    public var productId: ID
    public var id: String?
    public var isSandbox: Bool
    /// The first purchase of this product, which a restore does not move (RevenueCat's SDKs read
    /// it as the entitlement's originalPurchaseDate); may be absent.
    public var originalPurchaseDate: Instant? = nil
    public var purchaseDate: Instant?
    public var store: String?
    public var storeTransactionId: String?
    /// `price.amount` as the JSON literal RevenueCat sent, and `price.currency`.
    public var price: String? = nil
    public var currency: String? = nil
}

public struct RevenueCatSubscriber: Equatable, Sendable {
    public var requestDate: Instant
    public var originalAppUserId: ID?
    public var firstSeen: Instant?
    /// `subscriber_attributes` as name → value (only answered to secret keys).
    public var attributes: JSONObject?
    /// In document order.
    public var entitlements: [RevenueCatEntitlement]
    public var subscriptions: [RevenueCatSubscription]
    /// Every purchase of every non-subscription product, in document order.
    public var purchases: [RevenueCatPurchase]
    /// What was left out of the answer because it was malformed, each with its JSON path.
    public var problems: [RevenueCatFormatError] = []

    /// Nothing bought, subscribed or granted, ever.
    public var isEmpty: Bool { entitlements.isEmpty && subscriptions.isEmpty && purchases.isEmpty }

    public func subscription(_ productId: ID) -> RevenueCatSubscription? {
        subscriptions.first { $0.productId == productId }
    }

    /// The purchase of a non-subscription product that describes its entitlements: the last of
    /// its `non_subscriptions` list, as RevenueCat's SDKs take it (RevenueCat lists a product's
    /// purchases oldest first, so it is the latest one).
    public func latestPurchase(_ productId: ID) -> RevenueCatPurchase? {
        purchases.last { $0.productId == productId }
    }
}

extension RevenueCatSubscriber {
    /// Decodes an answer body. Throws only `RevenueCatFormatError`.
    public static func decode(_ bytes: [UInt8]) throws(RevenueCatFormatError) -> RevenueCatSubscriber {
        try decode(WireFields.parse(bytes))
    }

    public static func decode(_ body: JSONValue) throws(RevenueCatFormatError) -> RevenueCatSubscriber {
        guard let root = body.objectValue else {
            throw RevenueCatFormatError(path: "", message: "expected an object, found \(body.typeName)")
        }
        let r = WireFields(root, path: "", words: .revenueCat)
        let requestDate: Instant
        if let date = try r.date("request_date") {
            requestDate = date
        } else if let millis = try r.milliseconds("request_date_ms") {
            requestDate = millis
        } else {
            throw RevenueCatFormatError(path: "request_date", message: "required")
        }
        guard let subscriberValue = root["subscriber"], !subscriberValue.isNull else {
            throw RevenueCatFormatError(path: "subscriber", message: "required")
        }
        let reader = try WireFields(subscriberValue, path: "subscriber", words: .revenueCat)
        let s = reader.object
        var problems: [RevenueCatFormatError] = []
        /// A part of the subscriber read on its own: malformed, it is left out and listed.
        func part<T>(_ read: () throws(RevenueCatFormatError) -> T) -> T? {
            do { return try read() } catch {
                problems.append(error)
                return nil
            }
        }

        // Without the entitlements nothing of the customer's access can be told: that is fatal.
        var entitlements: [RevenueCatEntitlement] = []
        let entitlementMembers = try reader.members("entitlements")
        for (id, value, path) in entitlementMembers {
            let entitlement = part { () throws(RevenueCatFormatError) in
                let e = try WireFields(value, path: path, words: .revenueCat)
                return RevenueCatEntitlement(
                    id: ID(id), expiresDate: try e.date("expires_date"),
                    gracePeriodExpiresDate: try e.date("grace_period_expires_date"),
                    productIdentifier: try e.string("product_identifier").map { ID($0) }, purchaseDate: try e.date("purchase_date"))
            }
            if let entitlement { entitlements.append(entitlement) }
        }
        if entitlements.isEmpty, !entitlementMembers.isEmpty, let first = problems.first {
            throw first
        }

        var subscriptions: [RevenueCatSubscription] = []
        for (productId, value, path) in part({ () throws(RevenueCatFormatError) in try reader.members("subscriptions") }) ?? [] {
            let subscription = part { () throws(RevenueCatFormatError) in
                let x = try WireFields(value, path: path, words: .revenueCat)
                return RevenueCatSubscription(
                    productId: ID(productId), autoResumeDate: try x.date("auto_resume_date"),
                    billingIssuesDetectedAt: try x.date("billing_issues_detected_at"),
                    expiresDate: try x.date("expires_date"), gracePeriodExpiresDate: try x.date("grace_period_expires_date"),
                    isSandbox: try x.bool("is_sandbox") ?? false, originalPurchaseDate: try x.date("original_purchase_date"),
                    ownershipType: try x.string("ownership_type"), periodType: try x.string("period_type"),
                    purchaseDate: try x.date("purchase_date"), refundedAt: try x.date("refunded_at"),
                    store: try x.string("store"), storeTransactionId: try x.identifier("store_transaction_id"),
                    unsubscribeDetectedAt: try x.date("unsubscribe_detected_at"),
                    price: x.price().amount, currency: x.price().currency)
            }
            if let subscription { subscriptions.append(subscription) }
        }

        var purchases: [RevenueCatPurchase] = []
        for (productId, value, path) in part({ () throws(RevenueCatFormatError) in try reader.members("non_subscriptions") }) ?? [] {
            guard let list = value.arrayValue else {
                if !value.isNull {
                    problems.append(RevenueCatFormatError(path: path, message: "expected an array, found \(value.typeName)"))
                }
                continue
            }
            for (i, item) in list.enumerated() {
                let itemPath = JSONPath.index(path, i)
                let purchase = part { () throws(RevenueCatFormatError) in
                    let p = try WireFields(item, path: itemPath, words: .revenueCat)
                    return RevenueCatPurchase(
                        productId: ID(productId), id: try p.identifier("id"), isSandbox: try p.bool("is_sandbox") ?? false,
                        originalPurchaseDate: try p.date("original_purchase_date"),
                        purchaseDate: try p.date("purchase_date"), store: try p.string("store"),
                        storeTransactionId: try p.identifier("store_transaction_id"),
                        price: p.price().amount, currency: p.price().currency)
                }
                if let purchase { purchases.append(purchase) }
            }
        }

        var attributes: JSONObject?
        if let attributeMembers = part({ () throws(RevenueCatFormatError) in try reader.members("subscriber_attributes") }),
           s["subscriber_attributes"]?.objectValue != nil {
            // Shown as name → value; an entry without a `value` is shown as it came.
            attributes = JSONObject(attributeMembers.map { name, value, _ in (name, value["value"] ?? value) })
        }

        return RevenueCatSubscriber(
            requestDate: requestDate,
            originalAppUserId: (part { () throws(RevenueCatFormatError) in try reader.string("original_app_user_id") } ?? nil).map { ID($0) },
            firstSeen: part { () throws(RevenueCatFormatError) in try reader.date("first_seen") } ?? nil,
            attributes: attributes, entitlements: entitlements, subscriptions: subscriptions, purchases: purchases,
            problems: problems)
    }
}

extension WireWords {
    /// RevenueCat's decoders (API v1 and v2) name types with an article.
    static let revenueCat = WireWords(object: "an object", string: "a string", boolean: "true or false",
                                      date: "an ISO 8601 date-time in years 0001-9999", marksClippedDate: true)
}

extension WireFields {
    /// `price: {"amount": NUMBER, "currency": "USD"}`: the amount kept as its literal (no
    /// rounding through a float). Informational only, so a price of another shape is unknown
    /// (nil) rather than a reason to leave the whole subscription out.
    fileprivate func price() -> (amount: String?, currency: String?) {
        guard let price = present("price")?.objectValue else { return (nil, nil) }
        var amount: String?
        if case .number(let text)? = price["amount"] { amount = text }
        return (amount, price["currency"]?.stringValue)
    }
}
