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
    /// The listing's budget could not keep the next item: `items` are those before it, and the
    /// rest of the page was not read.
    public var stopped = false
}

/// One element of `GET /users/{user_id}/purchases` → `data`.
public struct QonversionPurchase: Equatable, Sendable {
    /// Qonversion's id of the purchase (the pagination cursor).
    public var id: String
    /// `platform`: app_store, play_store, stripe (anything else → unknown).
    public var platform: EntitlementSource
    /// `product_id`: Qonversion's product id; `{product_id}:{base_plan_id}` for a Play base plan.
    public var productId: ID
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
    public var chainId: ID?

    public init(id: String, platform: EntitlementSource, productId: ID, price: String? = nil, currency: String? = nil,
                purchasedAt: Instant, expiresAt: Instant? = nil, isAutoRenewing: Bool? = nil,
                storeTransactionId: String? = nil, chainId: ID? = nil) {
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

    /// A page of `GET /users/{user_id}/purchases`. `keep` is asked for each purchase read (false:
    /// stop there, the page `stopped`): the listing's byte budget.
    public static func purchasesPage(_ bytes: [UInt8], keep: (QonversionPurchase) -> Bool = { _ in true })
        throws(WireFormatError) -> QonversionPage<QonversionPurchase> {
        try page(bytes, keep: keep) { value, path throws(WireFormatError) in try purchase(value, at: path) }
    }

    public static func entitlementsPage(_ bytes: [UInt8], keep: (QonversionEntitlement) -> Bool)
        throws(WireFormatError) -> QonversionPage<QonversionEntitlement> {
        try page(bytes, keep: keep) { value, path throws(WireFormatError) in try entitlement(value, at: path) }
    }

    /// The answer of a grant: one user entitlement.
    public static func entitlement(_ bytes: [UInt8]) throws(WireFormatError) -> QonversionEntitlement {
        try entitlement(WireFields.parse(bytes), at: "")
    }

    // MARK: pieces

    /// A page read element by element (WirePage): no tree of the whole page is built, and `keep`
    /// may stop the reading after any element.
    static func page<Item>(_ bytes: [UInt8], keep: (Item) -> Bool = { _ in true },
                           _ decode: (JSONValue, String) throws(WireFormatError) -> Item)
        throws(WireFormatError) -> QonversionPage<Item> {
        let wire: WirePage
        do { wire = try WirePage.read(bytes, list: "data") } catch {
            throw WireFormatError(path: "", message: "the answer is not JSON: \(error)")
        }
        let body = try WireFields(wire.root, path: "", words: .qonversion)
        guard let list = wire.elements else {
            throw WireFormatError(path: "data", message: body["data"].map { "expected array, found \($0.typeName)" } ?? "missing")
        }
        let hasMore: Bool
        switch body["has_more"] {
        case nil, .null?: hasMore = false
        case .bool(let flag)?: hasMore = flag
        case let other?: throw WireFormatError(path: "has_more", message: "expected boolean, found \(other.typeName)")
        }
        var out = QonversionPage<Item>(items: [], problems: [], hasMore: hasMore,
                                       nextCursor: try body.string("next_cursor"), lastId: nil, count: list.count)
        for i in list.indices {
            do {
                let item = try decode(wire.element(i), JSONPath.index("data", i))
                guard keep(item) else {
                    out.stopped = true
                    return out
                }
                out.items.append(item)
            } catch { out.problems.append(error) }
        }
        if let last = list.indices.last.flatMap({ wire.element($0).objectValue }) { out.lastId = identifier(last["id"]) }
        if out.items.isEmpty, let first = out.problems.first { throw first }
        return out
    }

    /// v4's entitlement: `is_active`, and `started_at`/`expires_at` as RFC 3339.
    static func entitlement(_ value: JSONValue, at path: String) throws(WireFormatError) -> QonversionEntitlement {
        try QonversionWire.entitlement(value, at: path, active: "is_active", started: "started_at", expires: "expires_at") {
            f, key throws(WireFormatError) in try f.date(key)
        }
    }

    static func purchase(_ value: JSONValue, at path: String) throws(WireFormatError) -> QonversionPurchase {
        let fields = try WireFields(value, path: path, words: .qonversion)
        guard let id = identifier(fields["id"]), !id.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "id"), message: fields["id"] == nil ? "missing" : "expected a non-empty id")
        }
        guard let productId = try fields.stringID("product_id", required: true), !productId.isEmpty else {
            throw WireFormatError(path: JSONPath.member(path, "product_id"), message: "empty product id")
        }
        guard let purchasedAt = try fields.date("purchased_at") else {
            throw WireFormatError(path: JSONPath.member(path, "purchased_at"), message: "missing")
        }
        let platform: EntitlementSource
        switch try fields.string("platform") {
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
                                   currency: try fields.string("currency"), purchasedAt: purchasedAt,
                                   expiresAt: try fields.date("expires_at"), isAutoRenewing: isAutoRenewing)
        // store_data's shape depends on the platform: only the keys named here are read.
        if let store = try fields.fields("store_data") {
            p.storeTransactionId = identifier(store["transaction_id"]) ?? identifier(store["order_id"])
            p.chainId = (identifier(store["original_transaction_id"]) ?? identifier(store["purchase_token"])
                ?? identifier(store["subscription_id"])).map { ID($0) }
        }
        return p
    }

    /// An id the API documents as a string but that may come as a number; nil for anything else.
    private static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: return s.isEmpty ? nil : s
        case .number(let n)?: return n
        default: return nil
        }
    }
}

extension QonversionPurchase {
    /// What the purchase costs kept, its history entry included (`Footprint`).
    public var footprint: Int {
        Footprint.item(Self.self, strings: [id, productId.string, price, currency, storeTransactionId, chainId?.string])
    }
}

extension QonversionEntitlement {
    public var footprint: Int { Footprint.item(Self.self, strings: [id.string, productId?.string]) }
}
