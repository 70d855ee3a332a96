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
    public var id: String?
    /// The store's product id on the platform asked for (`platform`): absent for a product
    /// that has none there (bought on another platform) and for some promotional products.
    public var sku: String?
    /// `consumable`, `non_consumable`, `subscription`, `renewable_subscription`, or what a newer
    /// API version sends.
    public var type: String
    public var platform: String?
    public var purchaseDate: Instant?
    public var expirationDate: Instant?
    public var autoResumeDate: Instant?
    public var group: String?
    public var groupName: String?
    public var isSubscriptionRenewable: Bool
    public var isFamilyShare: Bool
    public var isPromo: Bool
    public var promoCode: String?
    public var subscriptionState: String?
    public var subscriptionPeriodType: String?
    public var subscriptionRenewalProduct: String?
    public var subscriptionRenewalProductSku: String?
    /// The purchase it was bought with (`purchase`) and, for a subscription, its chain's first
    /// (`originalPurchase`): how `renew-count` finds its chain in the purchase listing.
    public var purchase: String?
    public var originalPurchase: String?

    public init(id: String? = nil, sku: String?, type: String, platform: String? = nil, purchaseDate: Instant? = nil,
                expirationDate: Instant? = nil, autoResumeDate: Instant? = nil, group: String? = nil,
                groupName: String? = nil, isSubscriptionRenewable: Bool = false, isFamilyShare: Bool = false,
                isPromo: Bool = false, promoCode: String? = nil, subscriptionState: String? = nil,
                subscriptionPeriodType: String? = nil, subscriptionRenewalProduct: String? = nil,
                subscriptionRenewalProductSku: String? = nil, purchase: String? = nil, originalPurchase: String? = nil) {
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
    public var entitlementId: String? {
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
        let body: JSONValue
        do { body = try JSON.parse(bytes) } catch let error as JSONError {
            throw IAPHUBAnswerError(path: "\(error.line):\(error.column)", message: "not JSON: \(error.message)")
        } catch {
            throw IAPHUBAnswerError(path: "$", message: "not JSON")
        }
        guard let user = body.objectValue else {
            throw IAPHUBAnswerError(path: "$", message: "expected an object, found \(body.typeName)")
        }
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
        guard let object = value.objectValue else {
            throw IAPHUBAnswerError(path: path, message: "expected an object, found \(value.typeName)")
        }
        let fields = Fields(object: object, path: path)
        guard let type = try fields.string("type"), !type.isEmpty else {
            throw IAPHUBAnswerError(path: path + ".type", message: "required (a non-empty string)")
        }
        let product = IAPHUBProduct(
            id: try fields.string("id"), sku: try fields.string("sku").flatMap { $0.isEmpty ? nil : $0 }, type: type, platform: try fields.string("platform"),
            purchaseDate: try fields.date("purchaseDate"), expirationDate: try fields.date("expirationDate"),
            autoResumeDate: try fields.date("autoResumeDate"), group: try fields.string("group"),
            groupName: try fields.string("groupName"),
            isSubscriptionRenewable: try fields.bool("isSubscriptionRenewable"),
            isFamilyShare: try fields.bool("isFamilyShare"), isPromo: try fields.bool("isPromo"),
            promoCode: try fields.string("promoCode"), subscriptionState: try fields.string("subscriptionState"),
            subscriptionPeriodType: try fields.string("subscriptionPeriodType"),
            subscriptionRenewalProduct: try fields.string("subscriptionRenewalProduct"),
            subscriptionRenewalProductSku: try fields.string("subscriptionRenewalProductSku"),
            purchase: try fields.string("purchase"), originalPurchase: try fields.string("originalPurchase"))
        guard product.entitlementId != nil else {
            throw IAPHUBAnswerError(path: path, message: "no groupName, sku, group or id to tell which entitlement it is")
        }
        return product
    }

    /// Typed reads of optional fields: absent or null is nil (false), any other type an error.
    private struct Fields {
        var object: JSONObject
        var path: String

        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let other?: throw IAPHUBAnswerError(path: "\(path).\(key)", message: "expected a string, found \(other.typeName)")
            }
        }

        func bool(_ key: String) throws -> Bool {
            switch object[key] {
            case nil, .null?: return false
            case .bool(let b)?: return b
            case let other?: throw IAPHUBAnswerError(path: "\(path).\(key)", message: "expected a boolean, found \(other.typeName)")
            }
        }

        /// ISO 8601 (IAPHUB: UTC with milliseconds); the fraction is dropped.
        func date(_ key: String) throws -> Instant? {
            guard let text = try string(key) else { return nil }
            guard let instant = ISODate.parse(text) else {
                throw IAPHUBAnswerError(path: "\(path).\(key)", message: "expected an ISO 8601 date, found \(JSON.quote(String(text.prefix(40))))")
            }
            return Instant(seconds: instant.seconds)
        }
    }
}

/// An IAPHUB answer that is not what the API defines: where, and what is wrong.
public typealias IAPHUBAnswerError = WireFormatError
