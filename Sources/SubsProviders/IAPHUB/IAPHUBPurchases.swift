// A page of IAPHUB's purchase listing (`GET /v1/app/{appId}/purchases?userId=…`, IAPHUB's "Get
// purchases": `{hasNextPage, list}`, each element one store transaction) and what subs makes of
// it: the user's history and renewal counts. Only what a purchase says is shown; nothing is
// invented. A body that is not a page (not JSON, no `list` array, `hasNextPage` not a boolean) is
// an error with a path (exit 76); one malformed purchase is left out with its path, never hiding
// the others. Pure (fuzzed: Fuzz/iaphub-purchases).

import SubsJSON
import SubsModel
import SubsSource

/// One element of `list`: the fields subs reads (README, "IAPHUB").
public struct IAPHUBPurchase: Equatable, Sendable {
    /// IAPHUB's purchase id (`id`), which `originalPurchase` of later purchases refers to.
    public var id: ID
    public var purchaseDate: Instant
    /// `consumable`, `non_consumable`, `subscription` (non-renewing), `renewable_subscription`.
    public var productType: String
    /// `productSku` (the store's product id), `product` (IAPHUB's product id), `productGroupName`.
    public var productSku: ID?
    public var product: ID?
    public var productGroupName: ID?
    public var platform: String?
    /// `price` as written (a JSON number's literal, never rounded), `currency` (ISO 4217).
    public var price: String?
    public var currency: String?
    public var isSandbox: Bool?
    public var promoCode: String?
    public var isRefunded: Bool
    public var refundDate: Instant?
    public var expirationDate: Instant?
    /// The first purchase of the subscription this one renews (IAPHUB's chain id); absent on
    /// products that are not subscriptions.
    public var originalPurchase: ID?
    /// `normal`, `trial`, `intro` (IAPHUB sends it for subscriptions).
    public var subscriptionPeriodType: String?
    /// The purchase this one follows in its subscription (`linkedPurchase`: the period it renews,
    /// or the subscription it replaces).
    public var linkedPurchase: ID?
    /// `subscriptionProrationMode`: IAPHUB sets it only on a transaction created by a subscription
    /// replace (immediate_with_time_proration, deferred…).
    public var subscriptionProrationMode: String?

    public init(id: ID, purchaseDate: Instant, productType: String, productSku: ID? = nil, product: ID? = nil,
                productGroupName: ID? = nil, platform: String? = nil, price: String? = nil, currency: String? = nil,
                isSandbox: Bool? = nil, promoCode: String? = nil, isRefunded: Bool = false, refundDate: Instant? = nil,
                expirationDate: Instant? = nil, originalPurchase: ID? = nil, subscriptionPeriodType: String? = nil,
                linkedPurchase: ID? = nil, subscriptionProrationMode: String? = nil) {
        self.id = id
        self.purchaseDate = purchaseDate
        self.productType = productType
        self.productSku = productSku
        self.product = product
        self.productGroupName = productGroupName
        self.platform = platform
        self.price = price
        self.currency = currency
        self.isSandbox = isSandbox
        self.promoCode = promoCode
        self.isRefunded = isRefunded
        self.refundDate = refundDate
        self.expirationDate = expirationDate
        self.originalPurchase = originalPurchase
        self.subscriptionPeriodType = subscriptionPeriodType
        self.linkedPurchase = linkedPurchase
        self.subscriptionProrationMode = subscriptionProrationMode
    }

    /// The product types subs knows; a purchase of another is left out with a warning.
    public static let productTypes = ["consumable", "non_consumable", "subscription", "renewable_subscription"]

    /// The entitlement key, as `check` keys IAPHUB's products: the group's name, else the sku,
    /// else IAPHUB's product id; none for a consumable (it unlocks nothing).
    public var entitlementId: ID? {
        guard productType != "consumable" else { return nil }
        for key in [productGroupName, productSku, product] {
            if let key, !key.isEmpty { return key }
        }
        return nil
    }

    /// The chain of an auto-renewable subscription: `originalPurchase`, else (none given) the
    /// purchase itself, as the first purchase of a chain is its own original.
    public var chainId: ID { originalPurchase.flatMap { $0.isEmpty ? nil : $0 } ?? id }

    /// A later purchase of an auto-renewable subscription: not its chain's first. It is a renewal
    /// unless it replaced the subscription with another product (IAPHUBPurchaseHistory.replacements).
    public var isRenewal: Bool { productType == "renewable_subscription" && !chainId.utf8.elementsEqual(id.utf8) }

    /// Paid: not a free trial and not a price of zero (an unknown price is taken as paid: IAPHUB
    /// lists store transactions, which are charges).
    public var isPaid: Bool {
        if subscriptionPeriodType == "trial" { return false }
        guard let price else { return true }
        let digits = price.prefix { $0 != "e" && $0 != "E" }.filter { $0.isNumber }
        return !(digits.allSatisfy { $0 == "0" } && !digits.isEmpty)
    }
}

/// One page: its readable purchases, the others' problems, and whether another page follows.
public struct IAPHUBPurchasePage: Equatable, Sendable {
    public var hasNextPage: Bool
    public var purchases: [IAPHUBPurchase]
    public var problems: [WireFormatError]
    /// Elements in `list`, readable or not (an empty page that says more follows is a lie).
    public var count: Int
    /// The listing's budget could not keep the next purchase: `purchases` are those before it,
    /// the rest of the page was not read.
    public var stopped = false

    /// Reads the body of a 200 answer, element by element (WirePage: no tree of the whole page);
    /// `keep` is asked for each purchase read (false: stop there, the page `stopped`). Throws
    /// WireFormatError only.
    public static func decode(_ bytes: [UInt8], keep: (IAPHUBPurchase) -> Bool = { _ in true })
        throws(WireFormatError) -> IAPHUBPurchasePage {
        let wire: WirePage
        do { wire = try WirePage.read(bytes, list: "list") } catch {
            throw WireFormatError(path: "\(error.line):\(error.column)", message: "not JSON: \(error.message)")
        }
        let page = try IAPHUBWire.rooted(wire.root)
        let hasNextPage: Bool
        switch page["hasNextPage"] {
        case nil, .null?: hasNextPage = false
        case .bool(let b)?: hasNextPage = b
        case let other?: throw WireFormatError(path: "hasNextPage", message: "expected a boolean, found \(other.typeName)")
        }
        guard let listValue = page["list"] else {
            throw WireFormatError(path: "list", message: "missing (IAPHUB always sends it)")
        }
        guard let list = wire.elements else {
            throw WireFormatError(path: "list", message: "expected an array, found \(listValue.typeName)")
        }
        var out = IAPHUBPurchasePage(hasNextPage: hasNextPage, purchases: [], problems: [], count: list.count)
        for index in list.indices {
            do {
                let read = try purchase(wire.element(index), path: JSONPath.index("list", index))
                guard keep(read) else {
                    out.stopped = true
                    return out
                }
                out.purchases.append(read)
            } catch {
                out.problems.append(error)
            }
        }
        return out
    }

    private static func purchase(_ value: JSONValue, path: String) throws(WireFormatError) -> IAPHUBPurchase {
        let f = try WireFields(value, path: path, words: .iaphub)
        guard let id = try f.stringID("id"), !id.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "id"), message: "required (a non-empty string)")
        }
        guard let date = try f.wholeSeconds("purchaseDate") else {
            throw WireFormatError(path: JSONPath.member(path, "purchaseDate"), message: "required (an ISO 8601 date)")
        }
        guard let type = try f.string("productType"), !type.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "productType"), message: "required (a non-empty string)")
        }
        guard IAPHUBPurchase.productTypes.contains(type) else {
            throw WireFormatError(path: JSONPath.member(path, "productType"),
                                  message: "\(JSON.quote(String(type.prefix(40)))) is a product type this version of subs does not know")
        }
        let price: String?
        switch f["price"] {
        case nil, .null?: price = nil
        case .number(let text)?: price = text
        // A price of another shape is unknown: money never hides a purchase (SPEC section 6).
        case .some: price = nil
        }
        let purchase = IAPHUBPurchase(
            id: id, purchaseDate: date, productType: type, productSku: try f.stringID("productSku").flatMap { $0.isEmpty ? nil : $0 },
            product: try f.stringID("product"), productGroupName: try f.stringID("productGroupName"), platform: try f.string("platform"),
            price: price, currency: try f.string("currency"), isSandbox: try f.bool("isSandbox"),
            promoCode: try f.bool("isPromo") == true ? try f.string("promoCode") : nil,
            isRefunded: try f.bool("isRefunded") ?? false, refundDate: try f.wholeSeconds("refundDate"),
            expirationDate: try f.wholeSeconds("expirationDate"), originalPurchase: try f.stringID("originalPurchase"),
            subscriptionPeriodType: try f.string("subscriptionPeriodType"),
            linkedPurchase: try f.stringID("linkedPurchase").flatMap { $0.isEmpty ? nil : $0 },
            subscriptionProrationMode: try f.string("subscriptionProrationMode").flatMap { $0.isEmpty ? nil : $0 })
        if type != "consumable" && purchase.entitlementId == nil {
            throw WireFormatError(path: path, message: "no productGroupName, productSku or product to tell which entitlement it is")
        }
        return purchase
    }
}

extension IAPHUBPurchase {
    /// What the purchase costs kept, its history entry included (`Footprint`).
    public var footprint: Int {
        Footprint.item(Self.self, strings: [id.string, productType, productSku?.string, product?.string, productGroupName?.string,
                                            platform, price, currency, promoCode, originalPurchase?.string, subscriptionPeriodType,
                                            linkedPurchase?.string, subscriptionProrationMode],
                       entries: isRefunded ? 2 : 1)
    }
}
