// Qonversion's REST API v3 on the wire (SPEC section 6, provider `qonversion`): the answers subs
// reads — an identity, a user's entitlements, an error body — decoded strictly from bytes, and an
// entitlement mapped field by field to EntitlementInfo. Pure: no network, no clock (fuzzed).

import SubsJSON

/// An answer that is not what v3 defines, with where (`data[2].expires`).
public typealias QonversionDecodeError = WireFormatError

/// One element of `GET /users/{user_id}/entitlements` → `data`, or the answer of a grant.
public struct QonversionEntitlement: Equatable, Sendable {
    public var id: String
    /// `active`: access now (as of the answer), not whether it renews.
    public var active: Bool
    /// `started` / `expires`, epoch seconds; absent, null or 0 → nil.
    public var started: Instant?
    public var expires: Instant?
    /// `source` mapped (appstore, playstore, stripe, manual; anything else → unknown).
    public var source: EntitlementSource
    public var productId: String?
    /// `product.subscription`: present only for subscription products.
    public var subscription: Subscription?

    public struct Subscription: Equatable, Sendable {
        /// `current_period_type` (normal, trial, intro; absent → normal; else unknown).
        public var periodType: PeriodType
        /// `renew_state` (will_renew, canceled, billing_issue, non_renewable; anything else → unknown).
        public var renewState: RenewState
    }

    public init(id: String, active: Bool, started: Instant? = nil, expires: Instant? = nil,
                source: EntitlementSource = .unknown, productId: String? = nil, subscription: Subscription? = nil) {
        self.id = id
        self.active = active
        self.started = started
        self.expires = expires
        self.source = source
        self.productId = productId
        self.subscription = subscription
    }

    /// The entitlement as subs shows it. `projectedTo`: `--at` T, where v3 only knows the current
    /// record — isActive is then `started ≤ T < expires` (no expiry: from `started` on), and the
    /// rule every vendor's projection keeps (Projection) applies.
    public func info(projectedTo t: Instant? = nil) -> EntitlementInfo {
        let manual = source == .manual
        let renewState: RenewState = manual ? .nonRenewable : subscription?.renewState ?? .nonRenewable
        let isActive: Bool
        if let t {
            isActive = (started.map { $0 <= t } ?? true) && (expires.map { t < $0 } ?? true)
        } else {
            isActive = active
        }
        let state: EntitlementState = !isActive ? .expired : renewState == .billingIssue ? .gracePeriod : .active
        // A grant reads as a grant; anything that renews or ends as a subscription; the rest
        // (no subscription, no expiry) as a one-time purchase.
        let kind: SourceKind = manual ? .grant : (subscription != nil || expires != nil) ? .chain : .purchase
        var info = EntitlementInfo(
            id: id, isActive: isActive, state: state, renewState: renewState, willRenew: renewState == .willRenew,
            periodType: manual ? .promotional : subscription?.periodType ?? .normal, source: source,
            grantType: manual ? .manual : .purchase, productId: productId, startedDate: started,
            trialStartDate: nil, firstPurchaseDate: nil, lastPurchaseDate: nil, expirationDate: expires,
            gracePeriodExpirationDate: nil, billingIssueDetectedAt: nil, autoRenewDisableDate: nil,
            autoResumeDate: nil, renewalProductId: nil, renewsCount: nil, isSandbox: false,
            lastActivatedOfferCode: nil, grantId: nil, transactions: [], sourceKind: kind)
        if let t { Projection.apply(&info, at: t) }
        return info
    }
}

/// A user's entitlements as v3 answered them, and the elements left out as malformed.
public struct QonversionEntitlementList: Equatable, Sendable {
    public var entitlements: [QonversionEntitlement]
    /// Each malformed element of `data`, with its path (`data[2].expires`): left out, never
    /// hiding the others.
    public var problems: [QonversionDecodeError]
}

/// Decoders of v3's answers. Each throws only QonversionDecodeError.
public enum QonversionWire {
    /// `GET /identities/{id}` → `{"id": ..., "user_id": "QON_..."}`: the Qonversion user id.
    public static func userId(fromIdentity bytes: [UInt8]) throws(QonversionDecodeError) -> String {
        let body = try object(parse(bytes), at: "")
        guard let id = try string(body, "user_id", at: "", required: true), !id.isEmpty else {
            throw QonversionDecodeError(path: "user_id", message: "empty user id")
        }
        return id
    }

    /// `GET /users/{user_id}/entitlements` → `{"data": [ENTITLEMENT, ...]}`. A malformed element
    /// is left out (and listed); the answer is an error when it is not that shape, or when not one
    /// of its elements can be read.
    public static func entitlements(_ bytes: [UInt8]) throws(QonversionDecodeError) -> QonversionEntitlementList {
        let body = try object(parse(bytes), at: "")
        guard case .array(let list)? = body["data"] else {
            throw QonversionDecodeError(path: "data", message: body["data"].map { "expected array, found \($0.typeName)" } ?? "missing")
        }
        var out = QonversionEntitlementList(entitlements: [], problems: [])
        out.entitlements.reserveCapacity(list.count)
        for (i, element) in list.enumerated() {
            do {
                out.entitlements.append(try entitlement(element, at: JSONPath.index("data", i)))
            } catch {
                out.problems.append(error)
            }
        }
        if out.entitlements.isEmpty, let first = out.problems.first { throw first }
        return out
    }

    /// The answer of a grant: one entitlement object.
    public static func entitlement(_ bytes: [UInt8]) throws(QonversionDecodeError) -> QonversionEntitlement {
        try entitlement(parse(bytes), at: "")
    }

    /// `{"error": {"type", "code", "message"}}`, each part optional; nils for anything else.
    public static func error(_ bytes: [UInt8]) -> (type: String?, code: String?, message: String?) {
        guard let body = try? JSON.parse(bytes), let error = body["error"]?.objectValue else { return (nil, nil, nil) }
        return (error["type"]?.stringValue, error["code"]?.stringValue, error["message"]?.stringValue)
    }

    // MARK: pieces

    static func entitlement(_ value: JSONValue, at path: String) throws(QonversionDecodeError) -> QonversionEntitlement {
        let fields = try object(value, at: path)
        guard let id = try string(fields, "id", at: path, required: true), !id.isEmpty else {
            throw QonversionDecodeError(path: JSONPath.member(path, "id"), message: "empty entitlement id")
        }
        guard case .bool(let active)? = fields["active"] else {
            throw QonversionDecodeError(path: JSONPath.member(path, "active"),
                                        message: fields["active"].map { "expected boolean, found \($0.typeName)" } ?? "missing")
        }
        var e = QonversionEntitlement(id: id, active: active)
        e.started = try epoch(fields, "started", at: path)
        e.expires = try epoch(fields, "expires", at: path)
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

    private static func parse(_ bytes: [UInt8]) throws(QonversionDecodeError) -> JSONValue {
        do { return try JSON.parse(bytes) } catch let error as JSONError {
            throw QonversionDecodeError(path: "", message: "the answer is not JSON: \(error)")
        } catch {
            throw QonversionDecodeError(path: "", message: "the answer is not JSON")
        }
    }

    private static func object(_ value: JSONValue, at path: String) throws(QonversionDecodeError) -> JSONObject {
        guard case .object(let o) = value else {
            throw QonversionDecodeError(path: path, message: "expected object, found \(value.typeName)")
        }
        return o
    }

    private static func optionalObject(_ o: JSONObject, _ key: String, at path: String) throws(QonversionDecodeError) -> JSONObject? {
        switch o[key] {
        case nil, .null?: return nil
        case .object(let inner)?: return inner
        case let other?: throw QonversionDecodeError(path: JSONPath.member(path, key), message: "expected object, found \(other.typeName)")
        }
    }

    /// A string member; nil when absent or null (an error then when `required`).
    private static func string(_ o: JSONObject, _ key: String, at path: String,
                               required: Bool = false) throws(QonversionDecodeError) -> String? {
        switch o[key] {
        case .string(let s)?: return s
        case nil, .null?:
            if required { throw QonversionDecodeError(path: JSONPath.member(path, key), message: "missing") }
            return nil
        case let other?: throw QonversionDecodeError(path: JSONPath.member(path, key), message: "expected string, found \(other.typeName)")
        }
    }

    /// Epoch seconds; absent, null or 0 → nil (v3's "none"). Fractions are cut to whole seconds;
    /// an instant outside years 0001–9999 (milliseconds sent as seconds, say) is an error.
    private static func epoch(_ o: JSONObject, _ key: String, at path: String) throws(QonversionDecodeError) -> Instant? {
        let where_ = JSONPath.member(path, key)
        switch o[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let seconds = epochSeconds(text) else {
                throw QonversionDecodeError(path: where_, message: "\(text.prefix(40)) is not an epoch time in years 0001–9999")
            }
            return seconds == 0 ? nil : Instant(seconds: seconds)
        case let other?: throw QonversionDecodeError(path: where_, message: "expected epoch seconds, found \(other.typeName)")
        }
    }

    /// Whole seconds of a JSON number literal, nil outside years 0001–9999.
    static func epochSeconds(_ text: String) -> Int64? {
        let seconds: Int64
        if text.utf8.count <= 19, let whole = Int64(text) {
            seconds = whole
        } else {
            guard let d = Double(text), d.isFinite, abs(d) < 1e15 else { return nil }
            seconds = Int64(d.rounded(.down))
        }
        guard seconds >= Instant.earliest.seconds, seconds <= Instant.latest.seconds else { return nil }
        return seconds
    }
}
