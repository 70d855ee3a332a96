// Provider `iaphub` (SPEC section 6): a user's active products from IAPHUB's server API, each
// mapped to one entitlement keyed by its group name (else its sku, else its group's id or its
// product id). `history` and `renew-count` read IAPHUB's purchase listing besides
// (IAPHUBSource+History.swift); IAPHUB offers no manual grants: those are "not offered" (exit 64).

import SubsJSON
import SubsModel
import SubsRemote
import SubsSource

public struct IAPHUBSource: CustomerSource {
    public let client: RemoteClient
    public let cachePolicy: CachePolicy
    /// The `environment` query value (`production` unless SUBS_IAPHUB_ENVIRONMENT says otherwise).
    public let environment: String
    /// The `platform` query value: which store's sku IAPHUB puts in each product (it does not
    /// filter them). `--iaphub-platform`, SUBS_IAPHUB_PLATFORM, config `iaphub-platform`.
    public let platform: String
    public let clock: any Clock

    /// The platforms IAPHUB's `platform` parameter takes, and the one asked when none is set.
    public static let platforms = ["ios", "android"]
    public static let defaultPlatform = "ios"

    /// IAPHUB answers 429 beyond 5 requests a second per endpoint.
    public static let requestsPerSecond = 5
    /// Said when `--provider iaphub` comes without `--remote` (IAPHUB has no URL without an app id).
    public static let remoteRequired = "provider iaphub needs --remote https://api.iaphub.com/v1/app/APP_ID (the URL names your IAPHUB app)"
    /// What the base URL looks like (said when a 404 shows it is not IAPHUB's API).
    static let expectedBaseURL = "name your app, as in https://api.iaphub.com/v1/app/APP_ID"

    /// IAPHUB's error answers are JSON objects naming the error: `{"error": "user_not_found"}`
    /// (a string, as IAPHUB's SDKs read it) or `{"code": …}`. A 404 with anything else (a page,
    /// an empty body, another API's JSON) did not come from IAPHUB's API.
    static func isOwnError(_ answer: RemoteAnswer) -> Bool {
        guard let body = answer.jsonObject else { return false }
        return body["error"]?.stringValue != nil || body["code"]?.stringValue != nil
    }

    public init(client: RemoteClient, cachePolicy: CachePolicy, environment: String?, platform: String? = nil,
                clock: any Clock) {
        self.client = client
        self.cachePolicy = cachePolicy
        self.environment = environment.flatMap { $0.isEmpty ? nil : $0 } ?? "production"
        self.platform = platform.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPlatform
        self.clock = clock
    }

    /// The transport IAPHUB's limit needs: at most 5 requests started in any second, so that a
    /// batch `check -` paces itself instead of meeting 429s.
    public static func pacedTransport(_ transport: HTTPTransport) -> HTTPTransport {
        // A little over a second: the server counts arrivals, which jitter by the network's latency.
        PacedTransport(transport, pacer: RequestPacer(limit: requestsPerSecond, interval: 1.1))
    }

    public var capabilities: SourceCapabilities { [.history, .renewalCounts] }
    public var remoteBudget: RemoteBudget? { client.budget }

    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        switch capability {
        case .grants, .lifetimeGrants: return "IAPHUB offers no endpoint to grant or revoke access by hand; grant it in the store or in IAPHUB's dashboard"
        default: return "IAPHUB does not offer that"
        }
    }

    public func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        var remarks = Remarks()
        var lastDate: Instant?
        let batch = try BudgetedBatch.each(ids, budget: client.budget) { id -> CustomerStatus? in
            guard let user = try user(id, at: t, remarks: &remarks) else { return nil }
            lastDate = user.served
            return user.status
        }
        let requestDate = t ?? lastDate ?? clock.now()
        if let t, !ids.isEmpty { remarks.note(Self.projectionNote(t)) }
        return StatusAnswer(requestDate: requestDate, statuses: batch.answers.map { $0 ?? nil }, remarks: remarks,
                            unanswered: batch.unanswered)
    }

    static func projectionNote(_ t: Instant) -> String {
        "IAPHUB's user answer holds the products active now: the status at \(ISODate.format(t)) is that answer projected to that date"
    }

    /// One user's answer and status at T (nil: the server's date); nil for a user IAPHUB does not know.
    struct User {
        var answer: IAPHUBAnswer
        var status: CustomerStatus
        /// The server's Date header, or the local clock for a cached answer (SPEC section 6).
        var served: Instant
    }

    func user(_ id: ID, at t: Instant?, remarks: inout Remarks) throws -> User? {
        let path = "/user/" + RemoteURL.segment(id.string) + "?environment=" + RemoteURL.segment(environment)
            + "&platform=" + RemoteURL.segment(platform)
        let answer = try get(path, customer: id.string, remarks: &remarks)
        if answer.response.status == 404 { return nil }
        let user: IAPHUBAnswer
        do { user = try IAPHUBAnswer.decode(answer.response.body) } catch let error as IAPHUBAnswerError {
            throw RemoteError.protocolError(url: answer.url, reason: "\(error)")
        }
        remarks.leaveOut(user.problems, of: "IAPHUB user '\(id)'")
        // IAPHUB's body carries no clock: its Date header is the server's. A cached answer is
        // judged at the local clock instead (SPEC section 6).
        let fromCache = answer.cacheAge != nil
        let served = fromCache ? clock.now() : answer.response.header("Date").flatMap(HTTPDate.parse) ?? clock.now()
        var entitlements = IAPHUBSource.entitlements(user, environment: environment, projectedTo: t)
        if fromCache && t == nil { entitlements = entitlements.map { $0.judgedFromCache(at: served) } }
        let status = CustomerStatus(record: CustomerRecord(id: id), requestedId: id, requestDate: t ?? served, projected: t != nil,
                                    entitlements: entitlements)
        return User(answer: user, status: status, served: served)
    }

    /// A GET of IAPHUB's API, what the client said of it noted: a 200, or IAPHUB's own 404 (its
    /// error JSON) for the caller to read; a 404 with any other body is a base URL that is not
    /// IAPHUB's, any other status an error.
    func get(_ path: String, customer id: String, remarks: inout Remarks) throws -> RemoteAnswer {
        let answer = try client.get(path, customer: id, cachePolicy: cachePolicy)
        remarks.note(from: answer)
        switch answer.response.status {
        case 200: return answer
        case 404:
            guard Self.isOwnError(answer) else {
                throw WrongBaseURL(url: answer.url, why: "and a body that is not IAPHUB's error JSON", expected: Self.expectedBaseURL)
            }
            return answer
        default: throw answer.unexpectedStatusError()
        }
    }

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer {
        throw NotOffered(whyNotOffered(.grants))
    }

    public func customerIds() throws -> [ID] {
        throw NotOffered("IAPHUB does not list users")
    }

    public func entitlementIds() throws -> [ID] {
        throw NotOffered("IAPHUB has products, not entitlements")
    }
}

extension IAPHUBSource {
    /// The entitlements of a user answer, sorted by id. `projectedTo`: `--at`, re-evaluating
    /// isActive from the dates of today's answer.
    public static func entitlements(_ answer: IAPHUBAnswer, environment: String, projectedTo t: Instant? = nil) -> [EntitlementInfo] {
        chosenProducts(answer).sorted { $0.key < $1.key }.map { key, product in
            var info = entitlement(key, product, answer: answer, environment: environment)
            if let t { Projection.apply(&info, at: t) }
            return info
        }
    }

    /// The product that describes each entitlement key of the answer (consumables unlock none).
    public static func chosenProducts(_ answer: IAPHUBAnswer) -> [ID: IAPHUBProduct] {
        var chosen: [ID: IAPHUBProduct] = [:]
        for product in answer.activeProducts where product.type != "consumable" {
            // The decoder keeps only products with a key.
            guard let key = product.entitlementId else { continue }
            // Two products of one key: the later expiration (none = latest) describes it.
            if let held = chosen[key], !expiresLater(product, than: held) { continue }
            chosen[key] = product
        }
        return chosen
    }

    private static func expiresLater(_ a: IAPHUBProduct, than b: IAPHUBProduct) -> Bool {
        switch (a.expirationDate, b.expirationDate) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case let (x?, y?): return x > y
        }
    }

    static func entitlement(_ id: ID, _ p: IAPHUBProduct, answer: IAPHUBAnswer, environment: String) -> EntitlementInfo {
        let state: EntitlementState
        let renewState: RenewState
        let kind: SourceKind
        switch p.type {
        case "renewable_subscription":
            kind = .chain
            switch p.subscriptionState {
            case "active": state = .active
            case "grace_period": state = .gracePeriod
            case "retry_period": state = .billingRetry
            case "paused": state = .paused
            // IAPHUB's purchases and webhooks name a lapsed subscription `expired`; the user answer
            // leaves it out of activeProducts, but should one come, it is no access and no unknown.
            case "expired": state = .expired
            default: state = .unknown
            }
            if state == .gracePeriod || state == .billingRetry { renewState = .billingIssue }
            else if !p.isSubscriptionRenewable { renewState = .canceled }
            else if state == .expired { renewState = .unknown }
            else { renewState = .willRenew }
        case "non_consumable":
            kind = .purchase
            state = .active
            renewState = .nonRenewable
        case "subscription":
            // Non-renewing: it has an expiration date, so it reads as a period, not a lifetime purchase.
            kind = .chain
            state = .active
            renewState = .nonRenewable
        default:
            // A product type this version of subs does not know: never counted as access.
            kind = .chain
            state = .unknown
            renewState = .unknown
        }
        // An unknown state is no promise that access continues.
        let willRenew = renewState == .willRenew && state != .paused && state != .unknown && state != .expired
            && p.subscriptionRenewalProductSku.map { renewalKey(of: p, sku: $0, answer: answer) == id } ?? true
        return EntitlementInfo(
            id: id, isActive: state == .active || state == .gracePeriod, state: state, renewState: renewState,
            willRenew: willRenew, periodType: periodType(p.subscriptionPeriodType), source: source(p.platform),
            grantType: p.isFamilyShare ? .familySharing : p.isPromo ? .offerCode : .purchase,
            productId: p.sku, startedDate: nil, trialStartDate: nil, firstPurchaseDate: nil,
            lastPurchaseDate: p.purchaseDate, expirationDate: p.expirationDate, gracePeriodExpirationDate: nil,
            billingIssueDetectedAt: nil, autoRenewDisableDate: nil, autoResumeDate: p.autoResumeDate,
            renewalProductId: p.subscriptionRenewalProductSku, renewsCount: nil,
            isSandbox: environment != "production", lastActivatedOfferCode: p.promoCode, grantId: nil,
            transactions: [], sourceKind: kind)
    }

    /// The entitlement the pending renewal product would give: its group's name when IAPHUB lists
    /// it, else — IAPHUB changes a subscription within its group — the current product's group,
    /// else its own sku.
    private static func renewalKey(of p: IAPHUBProduct, sku: ID, answer: IAPHUBAnswer) -> ID {
        let known = answer.productsForSale + answer.activeProducts
        let renewal = p.subscriptionRenewalProduct.flatMap { id in known.first { $0.id == id } }
            ?? known.first { $0.sku == sku }
        if let renewal, let key = renewal.entitlementId { return key }
        if let name = p.groupName, !name.isEmpty { return name }
        return sku
    }

    /// `subscriptionPeriodType`: normal, trial, intro; absent (IAPHUB sends it for subscriptions
    /// only) → normal; a value this version does not know → unknown, never a guess.
    static func periodType(_ value: String?) -> PeriodType {
        switch value {
        case nil, "normal": return .normal
        case "trial": return .trial
        case "intro": return .intro
        default: return .unknown
        }
    }

    private static func source(_ platform: String?) -> EntitlementSource {
        switch platform {
        case "ios": return .appstore
        case "android": return .playstore
        case "stripe": return .stripe
        default: return .unknown
        }
    }
}

// What its API can look a customer up by (SPEC section 6; README "find").
extension IAPHUBSource {
    public func whyNotSearchable(_ kind: SearchKinds) -> String {
        "IAPHUB's API looks a user up by user id only, not by "
            + (kind == .attributes ? "attribute" : kind == .emails ? "email" : "transaction or order id")
    }
}
