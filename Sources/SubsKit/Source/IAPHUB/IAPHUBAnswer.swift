// The answer of IAPHUB's "get user" (`GET /v1/app/{appId}/user/{userId}`): the products subs maps
// to entitlements. A body that is not a user (not JSON, no `activeProducts` array, or not one
// readable product in it) is an IAPHUBAnswerError naming the JSON path (the CLI exits 76); one
// malformed product is left out and listed in `problems`, as IAPHUB's own SDKs skip an item they
// cannot parse, so it never hides the others. Wire facts: shared/reference/iaphub-api.md.

import SubsJSON

/// One entry of `activeProducts` (or `productsForSale`), the fields subs reads. Unknown fields
/// are ignored; absent or null booleans are false; dates are whole seconds (IAPHUB sends
/// milliseconds, subs prints whole seconds).
public struct IAPHUBProduct: Equatable, Sendable {
    /// IAPHUB's product id (`id`), which `subscriptionRenewalProduct` refers to.
    public var id: ID?
    /// The store's product id on the platform asked for (`platform`): absent for a product
    /// that has none there (bought on another platform) and for some promotional products.
    public var sku: ID?
    /// `consumable`, `non_consumable`, `subscription`, `renewable_subscription`, or what a newer
    /// API version sends.
    public var type: String
    public var platform: String?
    public var purchaseDate: Instant?
    public var expirationDate: Instant?
    public var autoResumeDate: Instant?
    public var group: ID?
    public var groupName: ID?
    public var isSubscriptionRenewable: Bool
    public var isFamilyShare: Bool
    public var isPromo: Bool
    public var promoCode: String?
    public var subscriptionState: String?
    public var subscriptionPeriodType: String?
    public var subscriptionRenewalProduct: ID?
    public var subscriptionRenewalProductSku: ID?
    /// The purchase it was bought with (`purchase`) and, for a subscription, its chain's first
    /// (`originalPurchase`): how `renew-count` finds its chain in the purchase listing.
    public var purchase: ID?
    public var originalPurchase: ID?

    public init(id: ID? = nil, sku: ID?, type: String, platform: String? = nil, purchaseDate: Instant? = nil,
                expirationDate: Instant? = nil, autoResumeDate: Instant? = nil, group: ID? = nil,
                groupName: ID? = nil, isSubscriptionRenewable: Bool = false, isFamilyShare: Bool = false,
                isPromo: Bool = false, promoCode: String? = nil, subscriptionState: String? = nil,
                subscriptionPeriodType: String? = nil, subscriptionRenewalProduct: ID? = nil,
                subscriptionRenewalProductSku: ID? = nil, purchase: ID? = nil, originalPurchase: ID? = nil) {
        self.id = id
        self.sku = sku
        self.type = type
        self.platform = platform
        self.purchaseDate = purchaseDate
        self.expirationDate = expirationDate
        self.autoResumeDate = autoResumeDate
        self.group = group
        self.groupName = groupName
        self.isSubscriptionRenewable = isSubscriptionRenewable
        self.isFamilyShare = isFamilyShare
        self.isPromo = isPromo
        self.promoCode = promoCode
        self.subscriptionState = subscriptionState
        self.subscriptionPeriodType = subscriptionPeriodType
        self.subscriptionRenewalProduct = subscriptionRenewalProduct
        self.subscriptionRenewalProductSku = subscriptionRenewalProductSku
        self.purchase = purchase
        self.originalPurchase = originalPurchase
    }

    /// The entitlement it becomes: IAPHUB has none, so the group's name, else the sku, else (a
    /// product without a sku on the platform asked for) its group's id, else its product id; nil
    /// when it has none of them (such a product is malformed).
    public var entitlementId: ID? {
        for key in [groupName, sku, group, id] {
            if let key, !key.isEmpty { return key }
        }
        return nil
    }
}

/// The user answer: what the user holds now, and the products on sale (to find which group a
/// pending renewal product belongs to).
public struct IAPHUBAnswer: Equatable, Sendable {
    public var activeProducts: [IAPHUBProduct]
    public var productsForSale: [IAPHUBProduct]
    /// Each malformed element of `activeProducts`, with its path: left out of the answer.
    public var problems: [IAPHUBAnswerError]

    public init(activeProducts: [IAPHUBProduct], productsForSale: [IAPHUBProduct] = [], problems: [IAPHUBAnswerError] = []) {
        self.activeProducts = activeProducts
        self.productsForSale = productsForSale
        self.problems = problems
    }

    /// Reads the body of a 200 answer. Throws IAPHUBAnswerError only.
    public static func decode(_ bytes: [UInt8]) throws -> IAPHUBAnswer {
        let user = try IAPHUBWire.root(bytes).object
        guard let active = user["activeProducts"] else {
            throw IAPHUBAnswerError(path: "activeProducts", message: "missing (IAPHUB always sends it for a user)")
        }
        let (activeProducts, problems) = try products(active, path: "activeProducts", required: true)
        // Not one product can be read: nothing of the user can be told.
        if activeProducts.isEmpty, let first = problems.first { throw first }
        // Only read to find a renewal product's group; a malformed entry there is skipped, not fatal.
        let forSale = (try? products(user["productsForSale"] ?? .null, path: "productsForSale", required: false))?.products ?? []
        return IAPHUBAnswer(activeProducts: activeProducts, productsForSale: forSale, problems: problems)
    }

    /// The readable products of a list, and the others' problems.
    private static func products(_ value: JSONValue, path: String,
                                 required: Bool) throws -> (products: [IAPHUBProduct], problems: [IAPHUBAnswerError]) {
        if case .null = value, !required { return ([], []) }
        guard let items = value.arrayValue else {
            throw IAPHUBAnswerError(path: path, message: "expected an array, found \(value.typeName)")
        }
        var read: [IAPHUBProduct] = []
        var problems: [IAPHUBAnswerError] = []
        for (index, item) in items.enumerated() {
            do { read.append(try product(item, path: "\(path)[\(index)]")) } catch let problem as IAPHUBAnswerError {
                problems.append(problem)
            }
        }
        return (read, problems)
    }

    private static func product(_ value: JSONValue, path: String) throws -> IAPHUBProduct {
        let fields = try WireFields(value, path: path, words: .iaphub)
        guard let type = try fields.string("type"), !type.isEmpty else {
            throw IAPHUBAnswerError(path: fields.at("type"), message: "required (a non-empty string)")
        }
        let product = IAPHUBProduct(
            id: try fields.stringID("id"), sku: try fields.stringID("sku").flatMap { $0.isEmpty ? nil : $0 }, type: type, platform: try fields.string("platform"),
            purchaseDate: try fields.wholeSeconds("purchaseDate"), expirationDate: try fields.wholeSeconds("expirationDate"),
            autoResumeDate: try fields.wholeSeconds("autoResumeDate"), group: try fields.stringID("group"),
            groupName: try fields.stringID("groupName"),
            isSubscriptionRenewable: try fields.bool("isSubscriptionRenewable") ?? false,
            isFamilyShare: try fields.bool("isFamilyShare") ?? false, isPromo: try fields.bool("isPromo") ?? false,
            promoCode: try fields.string("promoCode"), subscriptionState: try fields.string("subscriptionState"),
            subscriptionPeriodType: try fields.string("subscriptionPeriodType"),
            subscriptionRenewalProduct: try fields.stringID("subscriptionRenewalProduct"),
            subscriptionRenewalProductSku: try fields.stringID("subscriptionRenewalProductSku"),
            purchase: try fields.stringID("purchase"), originalPurchase: try fields.stringID("originalPurchase"))
        guard product.entitlementId != nil else {
            throw IAPHUBAnswerError(path: path, message: "no groupName, sku, group or id to tell which entitlement it is")
        }
        return product
    }
}

/// An IAPHUB answer that is not what the API defines: where, and what is wrong.
public typealias IAPHUBAnswerError = WireFormatError

/// What IAPHUB's two decoders (the user, the purchases) share.
enum IAPHUBWire {
    /// The body as a JSON object; not JSON at `line:column`, another type at `$`.
    static func root(_ bytes: [UInt8]) throws(WireFormatError) -> WireFields {
        let body: JSONValue
        do { body = try JSON.parse(bytes) } catch let error as JSONError {
            throw WireFormatError(path: "\(error.line):\(error.column)", message: "not JSON: \(error.message)")
        } catch {
            throw WireFormatError(path: "$", message: "not JSON")
        }
        return try rooted(body)
    }

    /// An answer's root as read (an object, else the error `root` gives).
    static func rooted(_ body: JSONValue) throws(WireFormatError) -> WireFields {
        try WireFields(body, path: "$", words: .iaphub).rooted()
    }
}

extension WireWords {
    /// IAPHUB's decoders: `expected a boolean`, dates as `an ISO 8601 date` (shown cut, unmarked).
    static let iaphub = WireWords(object: "an object", string: "a string", boolean: "a boolean",
                                  date: "an ISO 8601 date", marksClippedDate: false)
}

extension WireFields {
    /// The same object with paths from the root (`list`, not `$.list`).
    fileprivate func rooted() -> WireFields { WireFields(object, path: "", words: words) }

    /// ISO 8601 (IAPHUB: UTC with milliseconds); the fraction is dropped.
    func wholeSeconds(_ key: String) throws(WireFormatError) -> Instant? {
        try date(key).map { Instant(seconds: $0.seconds) }
    }
}
