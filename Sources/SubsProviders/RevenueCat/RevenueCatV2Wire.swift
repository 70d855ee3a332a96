// RevenueCat's REST API v2 answers as subs reads them (Developer API 2.0.0, openapi-spec
// api-v2.yaml: components.schemas Customer, CustomerEntitlement, Subscription, Purchase,
// SubscriptionTransaction, MonetaryAmount, Error and the `list` objects). Dates are integers,
// milliseconds since 1970. Decoded defensively: unknown enum values and fields are kept or ignored;
// one malformed item of a list is left out and listed in `problems`, so it never hides the rest;
// a body that is not the object at all is a `WireFormatError` naming the JSON path.

import SubsJSON
import SubsModel
import SubsSource

/// `Customer` (GET /customers/{id}, and each item of a customer search).
public struct RevenueCatV2Customer: Equatable, Sendable {
    public var id: ID
    public var firstSeenAt: Instant?
    /// `active_entitlements.items`: entitlement id (RevenueCat's `entl…`, not the lookup key) → expires_at.
    public var activeEntitlements: [(id: ID, expiresAt: Instant?)]
    /// `active_entitlements.next_page`'s cursor, when the list goes on.
    public var activeEntitlementsCursor: String?
    /// `attributes.items` (asked with `expand=attributes`) as name → value.
    public var attributes: JSONObject?
    /// `attributes.next_page` was not null: more attributes than shown.
    public var moreAttributes: Bool
    public var problems: [WireFormatError] = []

    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.firstSeenAt == b.firstSeenAt && a.attributes == b.attributes
            && a.activeEntitlements.map(\.id) == b.activeEntitlements.map(\.id)
            && a.activeEntitlements.map(\.expiresAt) == b.activeEntitlements.map(\.expiresAt)
    }
}

/// An `Entitlement` inside a subscription's or purchase's `entitlements` list.
public struct RevenueCatV2EntitlementRef: Equatable, Sendable {
    public var id: ID
    public var lookupKey: ID?
}

/// `MonetaryAmount`: `gross` kept as the number's text, as RevenueCat sent it.
public struct RevenueCatV2Money: Equatable, Sendable {
    public var currency: String?
    public var gross: String?
}

/// `Subscription`.
public struct RevenueCatV2Subscription: Equatable, Sendable {
    public var id: ID
    /// RevenueCat's product id (`prod…`); null for promotional subscriptions.
    public var productId: ID?
    public var startsAt: Instant?
    public var currentPeriodStartsAt: Instant?
    public var currentPeriodEndsAt: Instant?
    public var endsAt: Instant?
    public var givesAccess: Bool
    /// will_renew, will_not_renew, will_change_product, will_pause, requires_price_increase_consent, has_already_renewed…
    public var autoRenewalStatus: String?
    /// trialing, active, expired, in_grace_period, in_billing_retry, paused, unknown, incomplete…
    public var status: String?
    public var entitlements: [RevenueCatV2EntitlementRef]
    public var environment: String?
    /// amazon, app_store, mac_app_store, play_store, promotional, stripe, rc_billing…
    public var store: String?
    public var storeSubscriptionIdentifier: String?
    /// purchased, family_shared.
    public var ownership: String?
    /// `pending_changes.product.store_identifier`.
    public var pendingProductStoreIdentifier: ID?
    /// `total_revenue_in_usd` (a `MonetaryAmount`): what the subscription brought in, converted
    /// to USD by RevenueCat; nil when absent or malformed (money never hides a subscription).
    public var totalRevenue: RevenueCatV2Money? = nil

    public var isPromotional: Bool { store == "promotional" }
    /// The stores whose subscriptions RevenueCat lists transactions of.
    public var hasStoreTransactions: Bool { store == "app_store" || store == "play_store" }
}

/// `Purchase` (one-time).
public struct RevenueCatV2Purchase: Equatable, Sendable {
    public var id: ID
    public var productId: ID?
    public var purchasedAt: Instant?
    public var revenue: RevenueCatV2Money?
    /// owned, refunded.
    public var status: String?
    public var entitlements: [RevenueCatV2EntitlementRef]
    public var environment: String?
    public var store: String?
    public var storePurchaseIdentifier: String?
    public var ownership: String?
}

/// `SubscriptionTransaction`: one billing period of an App Store or Play Store subscription.
public struct RevenueCatV2Transaction: Equatable, Sendable {
    /// The store's id (App Store transaction id, Google Play order id).
    public var id: ID
    public var purchasedAt: Instant
    public var productStoreIdentifier: ID?
    public var expirationDate: Instant?
    public var effectiveExpirationDate: Instant?
    /// `revenue_in_local_currency`, else `revenue_in_usd`.
    public var revenue: RevenueCatV2Money?
}

/// One page of a `list` object: its items as decoded, and the cursor of the next page (nil: last).
public struct RevenueCatV2Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?
    public var problems: [WireFormatError]
    /// The listing's budget could not keep the next item: `items` are those before it, the rest
    /// of the page was not read.
    public var stopped = false
}

public enum RevenueCatV2Wire {
    static func parse(_ bytes: [UInt8]) throws(WireFormatError) -> JSONObject {
        try WireFields(v2: WireFields.parse(bytes), path: "").object
    }

    public static func customer(_ bytes: [UInt8]) throws(WireFormatError) -> RevenueCatV2Customer {
        try customer(.object(parse(bytes)), path: "")
    }

    static func customer(_ value: JSONValue, path: String) throws(WireFormatError) -> RevenueCatV2Customer {
        let r = try WireFields(v2: value, path: path)
        guard let id = try r.id("id"), !id.isEmpty else { throw WireFormatError(path: JSONPath.member(path, "id"), message: "required") }
        var problems: [WireFormatError] = []
        var active: [(id: ID, expiresAt: Instant?)] = []
        var cursor: String?
        if let list = r.object["active_entitlements"], !list.isNull {
            // Without its active entitlements nothing of the customer's access can be told: fatal.
            let page = try Self.page(list, path: JSONPath.member(path, "active_entitlements")) { v, p throws(WireFormatError) in
                let e = try WireFields(v2: v, path: p)
                guard let id = try e.id("entitlement_id"), !id.isEmpty else {
                    throw WireFormatError(path: JSONPath.member(p, "entitlement_id"), message: "required")
                }
                return (id: id, expiresAt: try e.milliseconds("expires_at"))
            }
            if page.items.isEmpty, let first = page.problems.first { throw first }
            active = page.items
            cursor = page.nextCursor
            problems += page.problems
        }
        var attributes: JSONObject?
        var more = false
        do {
            if let list = r.object["attributes"], !list.isNull {
                let page = try Self.page(list, path: JSONPath.member(path, "attributes")) { v, p throws(WireFormatError) in
                    let a = try WireFields(v2: v, path: p)
                    guard let name = try a.string("name") else { throw WireFormatError(path: JSONPath.member(p, "name"), message: "required") }
                    return (name, a.object["value"] ?? .null)
                }
                attributes = JSONObject(page.items.map { ($0.0, $0.1) })
                more = page.nextCursor != nil
                problems += page.problems
            }
        } catch { problems.append(error) }
        var firstSeen: Instant?
        do { firstSeen = try r.milliseconds("first_seen_at") } catch { problems.append(error) }
        return RevenueCatV2Customer(id: id, firstSeenAt: firstSeen, activeEntitlements: active, activeEntitlementsCursor: cursor,
                                    attributes: attributes, moreAttributes: more, problems: problems)
    }

    /// A page of `customer.active_entitlement` items (GET /customers/{id}/active_entitlements).
    public static func activeEntitlements(_ bytes: [UInt8], keep: ((id: ID, expiresAt: Instant?)) -> Bool = { _ in true })
        throws(WireFormatError) -> RevenueCatV2Page<(id: ID, expiresAt: Instant?)> {
        try page(bytes, keep: keep) { v, p throws(WireFormatError) in
            let e = try WireFields(v2: v, path: p)
            guard let id = try e.id("entitlement_id"), !id.isEmpty else {
                throw WireFormatError(path: JSONPath.member(p, "entitlement_id"), message: "required")
            }
            return (id: id, expiresAt: try e.milliseconds("expires_at"))
        }
    }

    public static func subscriptions(_ bytes: [UInt8], keep: (RevenueCatV2Subscription) -> Bool = { _ in true })
        throws(WireFormatError) -> RevenueCatV2Page<RevenueCatV2Subscription> {
        try page(bytes, keep: keep) { v, p throws(WireFormatError) in
            let s = try WireFields(v2: v, path: p)
            guard let id = try s.id("id"), !id.isEmpty else { throw WireFormatError(path: JSONPath.member(p, "id"), message: "required") }
            var pending: ID?
            if let changes = s.object["pending_changes"], !changes.isNull {
                let c = try WireFields(v2: changes, path: JSONPath.member(p, "pending_changes"))
                if let product = c.object["product"], !product.isNull {
                    pending = try WireFields(v2: product, path: JSONPath.member(c.path, "product")).stringID("store_identifier")
                }
            }
            return RevenueCatV2Subscription(
                id: id, productId: try s.id("product_id"), startsAt: try s.milliseconds("starts_at"),
                currentPeriodStartsAt: try s.milliseconds("current_period_starts_at"),
                currentPeriodEndsAt: try s.milliseconds("current_period_ends_at"), endsAt: try s.milliseconds("ends_at"),
                givesAccess: try s.bool("gives_access") ?? false, autoRenewalStatus: try s.string("auto_renewal_status"),
                status: try s.string("status"), entitlements: try entitlementRefs(s), environment: try s.string("environment"),
                store: try s.string("store"), storeSubscriptionIdentifier: try s.identifier("store_subscription_identifier"),
                ownership: try s.string("ownership"), pendingProductStoreIdentifier: pending,
                totalRevenue: (try? s.money("total_revenue_in_usd")) ?? nil)
        }
    }

    public static func purchases(_ bytes: [UInt8], keep: (RevenueCatV2Purchase) -> Bool = { _ in true })
        throws(WireFormatError) -> RevenueCatV2Page<RevenueCatV2Purchase> {
        try page(bytes, keep: keep) { v, p throws(WireFormatError) in
            let x = try WireFields(v2: v, path: p)
            guard let id = try x.id("id"), !id.isEmpty else { throw WireFormatError(path: JSONPath.member(p, "id"), message: "required") }
            return RevenueCatV2Purchase(
                id: id, productId: try x.id("product_id"), purchasedAt: try x.milliseconds("purchased_at"),
                revenue: (try? x.revenue()) ?? nil, status: try x.string("status"),
                entitlements: try entitlementRefs(x), environment: try x.string("environment"), store: try x.string("store"),
                storePurchaseIdentifier: try x.identifier("store_purchase_identifier"), ownership: try x.string("ownership"))
        }
    }

    public static func transactions(_ bytes: [UInt8], keep: (RevenueCatV2Transaction) -> Bool = { _ in true })
        throws(WireFormatError) -> RevenueCatV2Page<RevenueCatV2Transaction> {
        try page(bytes, keep: keep) { v, p throws(WireFormatError) in
            let t = try WireFields(v2: v, path: p)
            guard let id = try t.id("id"), !id.isEmpty else { throw WireFormatError(path: JSONPath.member(p, "id"), message: "required") }
            guard let purchased = try t.milliseconds("purchased_at") else {
                throw WireFormatError(path: JSONPath.member(p, "purchased_at"), message: "required")
            }
            return RevenueCatV2Transaction(
                id: id, purchasedAt: purchased, productStoreIdentifier: try t.stringID("product_store_identifier"),
                expirationDate: try t.milliseconds("expiration_date"), effectiveExpirationDate: try t.milliseconds("effective_expiration_date"),
                revenue: try t.revenue())
        }
    }

    /// A page of customers (GET /customers?search=TERM).
    public static func customers(_ bytes: [UInt8], keep: (RevenueCatV2Customer) -> Bool = { _ in true })
        throws(WireFormatError) -> RevenueCatV2Page<RevenueCatV2Customer> {
        try page(bytes, keep: keep) { v, p throws(WireFormatError) in try customer(v, path: p) }
    }

    /// RevenueCat's error JSON (`Error`: `object: "error"`, `type`, `message`, `param`), or nil
    /// when the body is something else (a page, an empty body: not RevenueCat's API).
    public static func error(_ bytes: [UInt8]) -> (type: String?, message: String?, param: String?)? {
        guard let body = (try? JSON.parse(bytes))?.objectValue else { return nil }
        let type = body["type"]?.stringValue, message = body["message"]?.stringValue
        guard body["object"]?.stringValue == "error" || (type != nil && message != nil) else { return nil }
        let clip = { (s: String?) in s.map { $0.count > 200 ? String($0.prefix(200)) + "…" : $0 } }
        return (clip(type), clip(message), clip(body["param"]?.stringValue))
    }

    // MARK: pieces

    static func entitlementRefs(_ r: WireFields) throws(WireFormatError) -> [RevenueCatV2EntitlementRef] {
        guard let list = r.object["entitlements"], !list.isNull else { return [] }
        let page = try page(list, path: JSONPath.member(r.path, "entitlements")) { v, p throws(WireFormatError) in
            let e = try WireFields(v2: v, path: p)
            guard let id = try e.id("id"), !id.isEmpty else { throw WireFormatError(path: JSONPath.member(p, "id"), message: "required") }
            return RevenueCatV2EntitlementRef(id: id, lookupKey: try e.stringID("lookup_key"))
        }
        // An entitlement of a subscription that cannot be read would make it unlock nothing.
        if let first = page.problems.first { throw first }
        return page.items
    }

    /// A `list` object: `items` each read by `item` (a malformed one left out and listed), and the
    /// `starting_after` cursor of `next_page` (null or absent: the last page).
    static func page<Item>(_ value: JSONValue, path: String,
                           _ item: (JSONValue, String) throws(WireFormatError) -> Item) throws(WireFormatError) -> RevenueCatV2Page<Item> {
        let r = try WireFields(v2: value, path: path)
        guard let itemsValue = r.object["items"], let items = itemsValue.arrayValue else {
            throw WireFormatError(path: JSONPath.member(path, "items"),
                                  message: r.object["items"].map { "expected an array, found \($0.typeName)" } ?? "required")
        }
        var decoded: [Item] = []
        var problems: [WireFormatError] = []
        for (i, element) in items.enumerated() {
            do { decoded.append(try item(element, JSONPath.index(JSONPath.member(path, "items"), i))) } catch { problems.append(error) }
        }
        var cursor: String?
        if let next = try r.string("next_page") {
            guard let after = Self.cursor(next) else {
                throw WireFormatError(path: JSONPath.member(path, "next_page"), message: "expected a URL with starting_after, found \(JSON.quote(String(next.prefix(80))))")
            }
            cursor = after
        }
        return RevenueCatV2Page(items: decoded, nextCursor: cursor, problems: problems)
    }

    /// A whole answer that is a `list` object, read element by element (WirePage: no tree of the
    /// whole page); `keep` may stop the reading after any item (the page is then `stopped`).
    static func page<Item>(_ bytes: [UInt8], keep: (Item) -> Bool,
                           _ item: (JSONValue, String) throws(WireFormatError) -> Item) throws(WireFormatError) -> RevenueCatV2Page<Item> {
        let wire: WirePage
        do { wire = try WirePage.read(bytes, list: "items") } catch {
            throw WireFormatError(path: "", message: "the answer is not JSON: \(error)")
        }
        let r = try WireFields(v2: wire.root, path: "")
        guard let elements = wire.elements else {
            throw WireFormatError(path: "items", message: r.object["items"].map { "expected an array, found \($0.typeName)" } ?? "required")
        }
        var cursor: String?
        if let next = try r.string("next_page") {
            guard let after = Self.cursor(next) else {
                throw WireFormatError(path: "next_page", message: "expected a URL with starting_after, found \(JSON.quote(String(next.prefix(80))))")
            }
            cursor = after
        }
        var out = RevenueCatV2Page<Item>(items: [], nextCursor: cursor, problems: [])
        for i in elements.indices {
            do {
                let decoded = try item(wire.element(i), JSONPath.index("items", i))
                guard keep(decoded) else {
                    out.stopped = true
                    return out
                }
                out.items.append(decoded)
            } catch { out.problems.append(error) }
        }
        return out
    }

    /// The `starting_after` value of a `next_page` URL (`/v2/projects/p/…?starting_after=X`),
    /// percent-decoded. Only the cursor is taken: subs asks its own base URL for the next page,
    /// never a URL an answer names.
    static func cursor(_ next: String) -> String? {
        guard let q = next.firstIndex(of: "?") else { return nil }
        for pair in next[next.index(after: q)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "starting_after" else { continue }
            let value = String(parts[1]).replacingOccurrences(of: "+", with: " ")
            guard let decoded = value.removingPercentEncodingSafely, !decoded.isEmpty else { return nil }
            return decoded
        }
        return nil
    }
}

extension String {
    /// Percent-decoding without Foundation: nil on a malformed escape or invalid UTF-8.
    var removingPercentEncodingSafely: String? {
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let b = utf8.popFirst() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard utf8.count >= 2, let hi = hexValue(utf8.popFirst()!), let lo = hexValue(utf8.popFirst()!) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }
}

extension WireFields {
    /// API v2's objects, read with RevenueCat's words.
    init(v2 value: JSONValue, path: String) throws(WireFormatError) {
        try self.init(value, path: path, words: .revenueCat)
    }

    /// `revenue_in_local_currency` (what the customer paid), else `revenue_in_usd`.
    func revenue() throws(WireFormatError) -> RevenueCatV2Money? {
        if let local = try money("revenue_in_local_currency") { return local }
        return try money("revenue_in_usd")
    }

    /// A `MonetaryAmount`: `currency` and `gross` (a number, kept as its text).
    func money(_ key: String) throws(WireFormatError) -> RevenueCatV2Money? {
        guard let m = try fields(key) else { return nil }
        var gross: String?
        if let g = m.present("gross") {
            guard case .number(let text) = g else { throw m.wrongType("gross", expected: "a number", g) }
            gross = text
        }
        return RevenueCatV2Money(currency: try m.string("currency"), gross: gross)
    }
}

// What each item costs kept (`Footprint`), its history entries included.
extension RevenueCatV2EntitlementRef {
    /// Each reference, and the entry's list of entitlement ids made of it.
    static func footprint(_ refs: [RevenueCatV2EntitlementRef]) -> Int {
        refs.isEmpty ? 0 : 2 * refs.reduce(48) { total, ref in
            total + MemoryLayout<RevenueCatV2EntitlementRef>.stride + Footprint.string(ref.id.string) + Footprint.string(ref.lookupKey?.string)
        }
    }
}

extension RevenueCatV2Subscription {
    /// A subscription without store transactions is told as its start and its current period.
    public var footprint: Int {
        Footprint.item(Self.self, strings: [id.string, productId?.string, autoRenewalStatus, status, environment, store,
                                            storeSubscriptionIdentifier, ownership, pendingProductStoreIdentifier?.string],
                       entries: 2) + RevenueCatV2EntitlementRef.footprint(entitlements)
    }
}

extension RevenueCatV2Purchase {
    public var footprint: Int {
        Footprint.item(Self.self, strings: [id.string, productId?.string, revenue?.currency, revenue?.gross, status, environment,
                                            store, storePurchaseIdentifier, ownership]) + RevenueCatV2EntitlementRef.footprint(entitlements)
    }
}

extension RevenueCatV2Transaction {
    public var footprint: Int {
        Footprint.item(Self.self, strings: [id.string, productStoreIdentifier?.string, revenue?.currency, revenue?.gross])
    }
}

extension RevenueCatV2Customer {
    /// A customer of a search: its attributes are kept as sent (a JSON tree), counted at four
    /// times their text.
    public var footprint: Int {
        Footprint.item(Self.self, strings: [id.string], entries: 0) + 64 * activeEntitlements.count
            + (attributes.map { 4 * JSONWriter.compact(.object($0)).utf8.count } ?? 0)
    }
}
