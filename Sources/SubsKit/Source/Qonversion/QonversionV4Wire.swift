// Qonversion's REST API v4 on the wire (SPEC section 6, "Provider qonversion, API v4"): the list
// envelope with cursor pagination, a user entitlement with v4's names (is_active, started_at,
// expires_at as RFC 3339), and a purchase. Decoded strictly from bytes; pure (fuzzed).

import SubsJSON

/// One page of a v4 list: `{"object": "list", "has_more", "next_cursor", "data": [...]}`.
public struct QonversionPage<Item: Equatable & Sendable>: Equatable, Sendable {
    public var items: [Item]
    /// Each malformed element of `data`, with its path: left out, never hiding the others.
    public var problems: [WireFormatError]
    public var hasMore: Bool
    public var nextCursor: String?
    /// The `id` of the last element of `data` (read even when that element is malformed
    /// otherwise): `starting_after` of the next page.
    public var lastId: String?
    /// How many elements `data` held (a page the server capped below the asked limit is normal).
    public var count: Int
}

/// One element of `GET /users/{user_id}/purchases` → `data`.
public struct QonversionPurchase: Equatable, Sendable {
    /// Qonversion's id of the purchase (the pagination cursor).
    public var id: String
    /// `platform`: app_store, play_store, stripe (anything else → unknown).
    public var platform: EntitlementSource
    /// `product_id`: Qonversion's product id; `{product_id}:{base_plan_id}` for a Play base plan.
    public var productId: String
    /// `price` as written (a decimal string), `currency` (ISO 4217).
    public var price: String?
    public var currency: String?
    public var purchasedAt: Instant
    /// nil for one-time purchases and consumables.
    public var expiresAt: Instant?
    public var isAutoRenewing: Bool?
    /// `store_data.transaction_id`, else `store_data.order_id`.
    public var storeTransactionId: String?
    /// The store's key of the subscription chain: `store_data.original_transaction_id`, else
    /// `store_data.purchase_token` (Play keeps one token across renewals), else
    /// `store_data.subscription_id` (Stripe); nil when the store data names none.
    public var chainId: String?

    public init(id: String, platform: EntitlementSource, productId: String, price: String? = nil, currency: String? = nil,
                purchasedAt: Instant, expiresAt: Instant? = nil, isAutoRenewing: Bool? = nil,
                storeTransactionId: String? = nil, chainId: String? = nil) {
        self.id = id
        self.platform = platform
        self.productId = productId
        self.price = price
        self.currency = currency
        self.purchasedAt = purchasedAt
        self.expiresAt = expiresAt
        self.isAutoRenewing = isAutoRenewing
        self.storeTransactionId = storeTransactionId
        self.chainId = chainId
    }
}

public enum QonversionV4Wire {
    /// A page of `GET /users/{user_id}/entitlements`.
    public static func entitlementsPage(_ bytes: [UInt8]) throws(WireFormatError) -> QonversionPage<QonversionEntitlement> {
        try page(bytes) { value, path throws(WireFormatError) in try entitlement(value, at: path) }
    }

    /// A page of `GET /users/{user_id}/purchases`.
    public static func purchasesPage(_ bytes: [UInt8]) throws(WireFormatError) -> QonversionPage<QonversionPurchase> {
        try page(bytes) { value, path throws(WireFormatError) in try purchase(value, at: path) }
    }

    /// The answer of a grant: one user entitlement.
    public static func entitlement(_ bytes: [UInt8]) throws(WireFormatError) -> QonversionEntitlement {
        try entitlement(parse(bytes), at: "")
    }

    // MARK: pieces

    static func page<Item>(_ bytes: [UInt8], _ decode: (JSONValue, String) throws(WireFormatError) -> Item)
        throws(WireFormatError) -> QonversionPage<Item> {
        let body = try object(parse(bytes), at: "")
        guard case .array(let list)? = body["data"] else {
            throw WireFormatError(path: "data", message: body["data"].map { "expected array, found \($0.typeName)" } ?? "missing")
        }
        let hasMore: Bool
        switch body["has_more"] {
        case nil, .null?: hasMore = false
        case .bool(let flag)?: hasMore = flag
        case let other?: throw WireFormatError(path: "has_more", message: "expected boolean, found \(other.typeName)")
        }
        var out = QonversionPage<Item>(items: [], problems: [], hasMore: hasMore,
                                       nextCursor: try string(body, "next_cursor", at: ""), lastId: nil, count: list.count)
        out.items.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            do { out.items.append(try decode(element, JSONPath.index("data", i))) } catch { out.problems.append(error) }
        }
        if let last = list.last?.objectValue { out.lastId = identifier(last["id"]) }
        if out.items.isEmpty, let first = out.problems.first { throw first }
        return out
    }

    static func entitlement(_ value: JSONValue, at path: String) throws(WireFormatError) -> QonversionEntitlement {
        let fields = try object(value, at: path)
        guard let id = try string(fields, "id", at: path, required: true), !id.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "id"), message: "empty entitlement id")
        }
        guard case .bool(let active)? = fields["is_active"] else {
            throw WireFormatError(path: JSONPath.member(path, "is_active"),
                                  message: fields["is_active"].map { "expected boolean, found \($0.typeName)" } ?? "missing")
        }
        var e = QonversionEntitlement(id: id, active: active)
        e.started = try date(fields, "started_at", at: path)
        e.expires = try date(fields, "expires_at", at: path)
        switch try string(fields, "source", at: path) {
        case "appstore": e.source = .appstore
        case "playstore": e.source = .playstore
        case "stripe": e.source = .stripe
        case "manual": e.source = .manual
        default: e.source = .unknown
        }
        let productPath = JSONPath.member(path, "product")
        if let product = try optionalObject(fields, "product", at: path) {
            e.productId = try string(product, "product_id", at: productPath)
            let subscriptionPath = JSONPath.member(productPath, "subscription")
            if let subscription = try optionalObject(product, "subscription", at: productPath) {
                let period: PeriodType
                switch try string(subscription, "current_period_type", at: subscriptionPath) {
                case nil, "normal": period = .normal
                case "trial": period = .trial
                case "intro": period = .intro
                default: period = .unknown
                }
                let renew: RenewState
                switch try string(subscription, "renew_state", at: subscriptionPath) {
                case "will_renew": renew = .willRenew
                case "canceled": renew = .canceled
                case "billing_issue": renew = .billingIssue
                case "non_renewable": renew = .nonRenewable
                default: renew = .unknown
                }
                e.subscription = .init(periodType: period, renewState: renew)
            }
        }
        return e
    }

    static func purchase(_ value: JSONValue, at path: String) throws(WireFormatError) -> QonversionPurchase {
        let fields = try object(value, at: path)
        guard let id = identifier(fields["id"]), !id.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "id"), message: fields["id"] == nil ? "missing" : "expected a non-empty id")
        }
        guard let productId = try string(fields, "product_id", at: path, required: true), !productId.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "product_id"), message: "empty product id")
        }
        guard let purchasedAt = try date(fields, "purchased_at", at: path) else {
            throw WireFormatError(path: JSONPath.member(path, "purchased_at"), message: "missing")
        }
        let platform: EntitlementSource
        switch try string(fields, "platform", at: path) {
        case "app_store": platform = .appstore
        case "play_store": platform = .playstore
        case "stripe": platform = .stripe
        default: platform = .unknown
        }
        // A price is a decimal string; a number is kept as its literal, never rounded.
        let price: String?
        switch fields["price"] {
        case nil, .null?: price = nil
        case .string(let text)?: price = text
        case .number(let text)?: price = text
        case let other?: throw WireFormatError(path: JSONPath.member(path, "price"), message: "expected a decimal string, found \(other.typeName)")
        }
        var isAutoRenewing: Bool?
        switch fields["is_auto_renewing"] {
        case nil, .null?: break
        case .bool(let flag)?: isAutoRenewing = flag
        case let other?: throw WireFormatError(path: JSONPath.member(path, "is_auto_renewing"), message: "expected boolean, found \(other.typeName)")
        }
        var p = QonversionPurchase(id: id, platform: platform, productId: productId, price: price,
                                   currency: try string(fields, "currency", at: path), purchasedAt: purchasedAt,
                                   expiresAt: try date(fields, "expires_at", at: path), isAutoRenewing: isAutoRenewing)
        // store_data's shape depends on the platform: only the keys named here are read.
        if let store = try optionalObject(fields, "store_data", at: path) {
            p.storeTransactionId = identifier(store["transaction_id"]) ?? identifier(store["order_id"])
            p.chainId = identifier(store["original_transaction_id"]) ?? identifier(store["purchase_token"])
                ?? identifier(store["subscription_id"])
        }
        return p
    }

    private static func parse(_ bytes: [UInt8]) throws(WireFormatError) -> JSONValue {
        do { return try JSON.parse(bytes) } catch let error as JSONError {
            throw WireFormatError(path: "", message: "the answer is not JSON: \(error)")
        } catch {
            throw WireFormatError(path: "", message: "the answer is not JSON")
        }
    }

    private static func object(_ value: JSONValue, at path: String) throws(WireFormatError) -> JSONObject {
        guard case .object(let o) = value else {
            throw WireFormatError(path: path, message: "expected object, found \(value.typeName)")
        }
        return o
    }

    private static func optionalObject(_ o: JSONObject, _ key: String, at path: String) throws(WireFormatError) -> JSONObject? {
        switch o[key] {
        case nil, .null?: return nil
        case .object(let inner)?: return inner
        case let other?: throw WireFormatError(path: JSONPath.member(path, key), message: "expected object, found \(other.typeName)")
        }
    }

    private static func string(_ o: JSONObject, _ key: String, at path: String,
                               required: Bool = false) throws(WireFormatError) -> String? {
        switch o[key] {
        case .string(let s)?: return s
        case nil, .null?:
            if required { throw WireFormatError(path: JSONPath.member(path, key), message: "missing") }
            return nil
        case let other?: throw WireFormatError(path: JSONPath.member(path, key), message: "expected string, found \(other.typeName)")
        }
    }

    /// An id the API documents as a string but that may come as a number; nil for anything else.
    private static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: return s.isEmpty ? nil : s
        case .number(let n)?: return n
        default: return nil
        }
    }

    /// An RFC 3339 date-time (null or absent → nil), whole seconds, years 0001–9999.
    private static func date(_ o: JSONObject, _ key: String, at path: String) throws(WireFormatError) -> Instant? {
        guard let text = try string(o, key, at: path) else { return nil }
        guard let instant = ISODate.parse(text) else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw WireFormatError(path: JSONPath.member(path, key), message: "expected an RFC 3339 date-time in years 0001–9999, found \(JSON.quote(shown))")
        }
        return instant
    }
}
