// Qonversion's REST API v3 on the wire (SPEC section 6, provider `qonversion`): the answers subs
// reads — an identity, a user's entitlements, an error body — decoded strictly from bytes, and an
// entitlement mapped field by field to EntitlementInfo. Pure: no network, no clock (fuzzed).

import SubsJSON
import SubsModel
import SubsSource

/// An answer that is not what v3 defines, with where (`data[2].expires`).
public typealias QonversionDecodeError = WireFormatError

/// One element of `GET /users/{user_id}/entitlements` → `data`, or the answer of a grant.
public struct QonversionEntitlement: Equatable, Sendable {
    public var id: ID
    /// `active`: access now (as of the answer), not whether it renews.
    public var active: Bool
    /// `started` / `expires`, epoch seconds; absent, null or 0 → nil.
    public var started: Instant?
    public var expires: Instant?
    /// `source` mapped (appstore, playstore, stripe, manual; anything else → unknown).
    public var source: EntitlementSource
    public var productId: ID?
    /// `product.subscription`: present only for subscription products.
    public var subscription: Subscription?

    public struct Subscription: Equatable, Sendable {
        /// `current_period_type` (normal, trial, intro; absent → normal; else unknown).
        public var periodType: PeriodType
        /// `renew_state` (will_renew, canceled, billing_issue, non_renewable; anything else → unknown).
        public var renewState: RenewState
    }

    public init(id: ID, active: Bool, started: Instant? = nil, expires: Instant? = nil,
                source: EntitlementSource = .unknown, productId: ID? = nil, subscription: Subscription? = nil) {
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
            isActive = (started.map { $0.hasHappened(by: t) } ?? true) && (expires.map { t < $0 } ?? true)
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
        let body = try WireFields(WireFields.parse(bytes), path: "", words: .qonversion)
        guard let id = try body.string("user_id", required: true), !id.isEmpty else {
            throw QonversionDecodeError(path: "user_id", message: "empty user id")
        }
        return id
    }

    /// `GET /users/{user_id}/entitlements` → `{"data": [ENTITLEMENT, ...]}`. A malformed element
    /// is left out (and listed); the answer is an error when it is not that shape, or when not one
    /// of its elements can be read.
    public static func entitlements(_ bytes: [UInt8]) throws(QonversionDecodeError) -> QonversionEntitlementList {
        let body = try WireFields(WireFields.parse(bytes), path: "", words: .qonversion)
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
        try entitlement(WireFields.parse(bytes), at: "")
    }

    /// `{"error": {"type", "code", "message"}}`, each part optional; nils for anything else.
    public static func error(_ bytes: [UInt8]) -> (type: String?, code: String?, message: String?) {
        guard let body = try? JSON.parse(bytes), let error = body["error"]?.objectValue else { return (nil, nil, nil) }
        return (error["type"]?.stringValue, error["code"]?.stringValue, error["message"]?.stringValue)
    }

    // MARK: pieces

    /// v3's entitlement: `active`, and `started`/`expires` in epoch seconds.
    static func entitlement(_ value: JSONValue, at path: String) throws(QonversionDecodeError) -> QonversionEntitlement {
        try entitlement(value, at: path, active: "active", started: "started", expires: "expires") { f, key throws(WireFormatError) in
            try f.epoch(key)
        }
    }

    /// A user entitlement as v3 and v4 both send it, but for the names of its flag and dates and
    /// how a date is written (`date`): the id, the source, the product and its subscription.
    static func entitlement(_ value: JSONValue, at path: String, active activeKey: String, started: String, expires: String,
                            date: (WireFields, String) throws(WireFormatError) -> Instant?) throws(WireFormatError) -> QonversionEntitlement {
        let f = try WireFields(value, path: path, words: .qonversion)
        guard let id = try f.stringID("id", required: true), !id.isEmpty else {
            throw WireFormatError(path: f.at("id"), message: "empty entitlement id")
        }
        guard case .bool(let active)? = f[activeKey] else {
            throw WireFormatError(path: f.at(activeKey), message: f[activeKey].map { "expected boolean, found \($0.typeName)" } ?? "missing")
        }
        var e = QonversionEntitlement(id: id, active: active)
        e.started = try date(f, started)
        e.expires = try date(f, expires)
        switch try f.string("source") {
        case "appstore": e.source = .appstore
        case "playstore": e.source = .playstore
        case "stripe": e.source = .stripe
        case "manual": e.source = .manual
        default: e.source = .unknown
        }
        if let product = try f.fields("product") {
            e.productId = try product.stringID("product_id")
            if let subscription = try product.fields("subscription") {
                let period: PeriodType
                switch try subscription.string("current_period_type") {
                case nil, "normal": period = .normal
                case "trial": period = .trial
                case "intro": period = .intro
                default: period = .unknown
                }
                let renew: RenewState
                switch try subscription.string("renew_state") {
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

extension WireWords {
    /// Qonversion's decoders (API v3 and v4) name types bare: `expected string, found number`.
    static let qonversion = WireWords(object: "object", string: "string", boolean: "boolean",
                                      date: "an RFC 3339 date-time in years 0001–9999", marksClippedDate: true)
}

extension WireFields {
    /// v3's epoch seconds; absent, null or 0 → nil (v3's "none"). Fractions are cut to whole
    /// seconds; an instant outside years 0001–9999 (milliseconds sent as seconds, say) is an error.
    func epoch(_ key: String) throws(WireFormatError) -> Instant? {
        switch self[key] {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let seconds = QonversionWire.epochSeconds(text) else {
                throw WireFormatError(path: at(key), message: "\(text.prefix(40)) is not an epoch time in years 0001–9999")
            }
            return seconds == 0 ? nil : Instant(seconds: seconds)
        case let other?: throw WireFormatError(path: at(key), message: "expected epoch seconds, found \(other.typeName)")
        }
    }
}
