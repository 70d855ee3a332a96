// Provider `qonversion` (SPEC section 6): subs against Qonversion's REST API v3. A USER is a
// Qonversion user id (`QON_…`, used as is) or an identity resolved with GET /identities/{USER};
// the user's entitlements map field by field (QonversionEntitlement.info). v3 has no
// transactions, renewal counts, lifetime grants or dry runs: those are "not offered" (69).

import SubsJSON
import SubsModel
import SubsRemote
import SubsSource

/// A USER resolved: its Qonversion user id, and the alias shown for it (that id, when USER was an identity).
/// `userId` only names the user in URLs; the alias is an id of the record.
typealias QonversionUser = (userId: String, alias: ID?)

public struct QonversionSource: CustomerSource {
    public static let defaultBaseURL = "https://api.qonversion.io/v3"

    public let client: RemoteClient
    public let cachePolicy: CachePolicy
    public let clock: any Clock

    public var capabilities: SourceCapabilities { [.grants] }
    public var remoteBudget: RemoteBudget? { client.budget }

    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        switch capability {
        case .history: return "Qonversion's API v3 exposes no transactions, so subs cannot show a history; " + Self.useV4
        case .renewalCounts: return "Qonversion's API v3 exposes no renewal counts; " + Self.useV4
        case .lifetimeGrants: return "Qonversion's API v3 needs an expiry for every grant: use {flag:--duration} or {flag:--until}"
        case .dryRun: return "Qonversion's API v3 has no dry run; nothing was sent"
        case .batchWrites: return "Qonversion's API v3 changes one user per request, so a batch could not be all or nothing; "
            + "name one USER per grant or revoke"
        default: return "Qonversion's API v3 does not offer that"
        }
    }

    /// Said when a write is asked with --offline (the command line refuses that before, for every provider).
    static let writeNeedsNetwork = "a grant or revoke must reach Qonversion; it cannot be made --offline"

    /// What a v3 refusal of history or renew-count says next: API v4 has them, and how to ask it.
    static let useV4 = "API v4 lists a user's purchases: select it with {flag:--remote https://api.qonversion.io/v4} "
        + "and the project's secret key (sk_…)"

    // MARK: reading

    public func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        try statuses(of: ids, at: t, projectionNote: Self.projectionNote) { user, remarks in
            try entitlements(of: user.userId, cachePolicy: cachePolicy, remarks: &remarks)
        }
    }

    /// `statuses` of API v3 and v4 alike, which differ only in how the entitlements are read:
    /// each USER resolved and read once, its status built by `status`, a note when projected.
    /// `spending` (API v4): what the user paid as of the status's T, read after its entitlements.
    func statuses(of ids: [ID], at t: Instant?, projectionNote: (Instant) -> String,
                  entitlements: (QonversionUser, inout Remarks) throws -> EntitlementsAnswer?,
                  spending: ((QonversionUser, Instant, inout Remarks) throws -> Spending?)? = nil) throws -> StatusAnswer {
        var remarks = Remarks()
        var firstDate: Instant?
        var seen: [ID: CustomerStatus?] = [:]
        // Its identity and entitlements share the command's budget with every other USER's.
        let batch = try BudgetedBatch.each(ids, budget: client.budget) { id -> CustomerStatus? in
            if let known = seen[id] { return known }
            var status: CustomerStatus?
            if let user = try resolve(id, cachePolicy: cachePolicy, remarks: &remarks), let answer = try entitlements(user, &remarks) {
                firstDate = firstDate ?? answer.requestDate
                status = Self.status(id, user, answer, at: t)
                if let spending, let at = status?.requestDate { status?.spending = try spending(user, at, &remarks) }
            }
            seen[id] = status
            return status
        }
        if let t, !ids.isEmpty { remarks.note(projectionNote(t)) }
        return StatusAnswer(requestDate: t ?? firstDate ?? clock.now(), statuses: batch.answers.map { $0 ?? nil }, remarks: remarks,
                            unanswered: batch.unanswered)
    }

    /// USER's status from its user's entitlements (v3 or v4), at T; a cached answer's `active` is
    /// as of its fetch, so it is judged again at the local clock.
    static func status(_ id: ID, _ user: QonversionUser, _ answer: EntitlementsAnswer, at t: Instant?) -> CustomerStatus {
        var described = describe(answer.list, projectedTo: t)
        if answer.fromCache && t == nil { described = described.map { $0.judgedFromCache(at: answer.requestDate) } }
        return CustomerStatus(record: CustomerRecord(id: id, aliases: user.alias.map { [$0] } ?? []),
                              requestedId: id, requestDate: t ?? answer.requestDate, projected: t != nil,
                              entitlements: described)
    }

    /// A user's entitlements as one answer gave them (v4: every page), nil for an unknown user.
    struct EntitlementsAnswer {
        var list: [QonversionEntitlement]
        var requestDate: Instant
        var fromCache: Bool
    }

    public func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        throw NotOffered(whyNotOffered(.history))
    }

    public func customerIds() throws -> [ID] {
        throw NotOffered("Qonversion's API v3 does not list users")
    }

    public func entitlementIds() throws -> [ID] {
        throw NotOffered("Qonversion's API v3 does not list a project's entitlements")
    }

    static func projectionNote(_ t: Instant) -> String {
        "Qonversion's API v3 answers the current record only; it was projected to \(ISODate.format(t)) "
            + "(active when started ≤ T < expires)"
    }

    /// One EntitlementInfo per id, sorted by id. Should v3 list an id twice, the active one
    /// describes it, then the one that ends last (no expiry: last of all).
    static func describe(_ list: [QonversionEntitlement], projectedTo t: Instant?) -> [EntitlementInfo] {
        var best: [ID: EntitlementInfo] = [:]
        for e in list {
            let info = e.info(projectedTo: t)
            if let held = best[e.id] {
                let rank = { (i: EntitlementInfo) in (i.isActive ? 1 : 0, i.expirationDate ?? Instant.latest) }
                if rank(info) > rank(held) { best[e.id] = info }
            } else {
                best[e.id] = info
            }
        }
        return best.keys.sorted().map { best[$0]! }
    }

    /// The Qonversion user id of USER, and the other id to show as an alias; nil when unknown.
    func resolve(_ id: ID, cachePolicy: CachePolicy, remarks: inout Remarks) throws -> QonversionUser? {
        if id.hasPrefix("QON_") { return (id.string, nil) }
        // An empty segment would ask for /identities/ itself.
        if id.isEmpty { return nil }
        let answer = try client.get("/identities/" + RemoteURL.segment(id.string), customer: id.string, cachePolicy: cachePolicy)
        remarks.note(from: answer)
        switch answer.response.status {
        case 200:
            let userId = try decoded(answer) { try QonversionWire.userId(fromIdentity: $0) }
            return (userId, ID(userId))
        case 404:
            try requireOwnNotFound(answer)
            return nil
        default: throw failure(answer)
        }
    }

    /// The user's entitlements and the server's clock (HTTP `Date`, else ours; the local clock
    /// for a cached answer); nil for an unknown user. Entitlements left out as malformed are warnings.
    func entitlements(of userId: String, cachePolicy: CachePolicy, remarks: inout Remarks) throws
        -> EntitlementsAnswer? {
        let answer = try client.get(entitlementsPath(userId), customer: userId, cachePolicy: cachePolicy)
        remarks.note(from: answer)
        switch answer.response.status {
        case 200:
            let decoded = try decoded(answer) { try QonversionWire.entitlements($0) }
            remarks.leaveOut(decoded.problems, of: "Qonversion user '\(userId)'")
            return EntitlementsAnswer(list: decoded.entitlements, requestDate: requestDate(answer), fromCache: answer.cacheAge != nil)
        case 404:
            try requireOwnNotFound(answer)
            return nil
        default: throw failure(answer)
        }
    }

    // MARK: writing

    /// The one user a grant or revoke (v3 or v4) is for, resolved over the network: checkWrite
    /// passed, so one user is named (once or more), with no dry run and an end in the future.
    func writeTarget(_ ids: [ID], remarks: inout Remarks) throws -> (id: ID, user: QonversionUser) {
        guard cachePolicy != .offline else { throw NotOffered(Self.writeNeedsNetwork) }
        guard let id = ids.first else { throw NotOffered("a grant or revoke names a user") }
        guard let user = try resolve(id, cachePolicy: .network, remarks: &remarks) else {
            throw QonversionError.userNotFound(id: String(id.string.prefix(80)))
        }
        return (id, user)
    }

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer {
        try QonversionWriter(source: self, api: .v3(self)).apply(change, to: ids, now: now, at: t)
    }

    /// A write: a 401/403 means the key cannot write — the project key only reads.
    func write(_ send: () throws -> RemoteAnswer) throws -> RemoteAnswer {
        do { return try send() } catch RemoteError.unauthorized(let url, let status) {
            throw QonversionError.writeNeedsSecretKey(url: url, status: status)
        }
    }

    // MARK: answers

    private func entitlementsPath(_ userId: String) -> String {
        "/users/" + RemoteURL.segment(userId) + "/entitlements"
    }

    func requestDate(_ answer: RemoteAnswer) -> Instant {
        // A cached answer's Date is when it was fetched; it is judged at the local clock.
        guard answer.cacheAge == nil else { return clock.now() }
        return answer.response.header("Date").flatMap(HTTPDate.parse) ?? clock.now()
    }

    /// What the base URL looks like (said when a 404 shows it is not Qonversion's API).
    static let expectedBaseURL = "end in /v3, as in \(defaultBaseURL)"

    /// A 404 is Qonversion's own "not found" only with its error JSON (`{"error": {…}}`);
    /// a page or an empty body comes from somewhere that is not Qonversion's API.
    func requireOwnNotFound(_ answer: RemoteAnswer) throws {
        guard answer.jsonObject?["error"]?.objectValue == nil else { return }
        throw wrongBaseURL(answer)
    }

    func wrongBaseURL(_ answer: RemoteAnswer) -> WrongBaseURL {
        // v4 reads through this source too: its URL should end in /v4.
        let expected = QonversionV4Source.isV4(client.endpoint.url) ? "end in /v4, as in https://api.qonversion.io/v4" : Self.expectedBaseURL
        return WrongBaseURL(url: answer.url, why: "and a body that is not Qonversion's error JSON", expected: expected)
    }

    func decoded<T>(_ answer: RemoteAnswer, _ decode: ([UInt8]) throws -> T) throws -> T {
        do { return try decode(answer.response.body) } catch {
            throw RemoteError.protocolError(url: answer.url, reason: "\(error)")
        }
    }

    /// A status the request did not expect: 400/422 are Qonversion's refusals (65, in its words);
    /// 404 is not found (3); anything else is not what v3 defines (76).
    func failure(_ answer: RemoteAnswer) -> Error {
        let status = answer.response.status
        let error = QonversionWire.error(answer.response.body)
        var words = error.message ?? error.code ?? error.type ?? "no reason given"
        if let code = error.code ?? error.type, error.message != nil { words += " (\(code))" }
        words = String(words.prefix(300))
        switch status {
        case 400, 422: return QonversionError.refused(url: answer.url, status: status, message: words)
        case 404:
            return answer.jsonObject?["error"]?.objectValue == nil ? wrongBaseURL(answer) : RemoteError.notFound(url: answer.url)
        default: return RemoteError.protocolError(url: answer.url, reason: "unexpected HTTP status \(status): \(words)")
        }
    }
}

// What its API can look a customer up by (SPEC section 6; README "find").
extension QonversionSource {
    public func whyNotSearchable(_ kind: SearchKinds) -> String {
        "Qonversion's API looks a user up by identity or QON_ user id only, not by "
            + (kind == .attributes ? "attribute" : kind == .emails ? "email" : "transaction or order id")
    }
}
