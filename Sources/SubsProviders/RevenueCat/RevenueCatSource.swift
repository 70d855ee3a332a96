// Provider `revenuecat`: RevenueCat's REST API v1 behind the answer-level seam (SPEC section 6).
// check = GET /subscribers/{id}; grant = POST …/entitlements/{E}/promotional; revoke = POST
// …/entitlements/{E}/revoke_promotionals; history = what the subscriber answer tells. v1 has no
// renewal counts and no transaction list, and answers today's record only (--at projects it).

import SubsJSON
import SubsModel
import SubsRemote
import SubsSource

/// What RevenueCat answered that is not a subscriber: `customerNotFound`/`notFound` are
/// `.notFound` (exit 3), `rejected` is `.refused` (exit 65).
public enum RevenueCatError: ProviderError, Equatable, Sendable {
    /// No such customer: RevenueCat created an empty subscriber for the id on this request.
    case customerNotFound(id: String, detail: String)
    /// HTTP 404, with RevenueCat's error code and message when it sent them.
    case notFound(url: String, code: String?, message: String?)
    /// Another 4xx (400, 409, 422…): RevenueCat refused what was sent.
    case rejected(url: String, status: Int, code: String?, message: String?)

    public var category: ProviderErrorCategory {
        switch self {
        case .customerNotFound, .notFound: return .notFound
        case .rejected: return .refused
        }
    }

    public var description: String {
        switch self {
        case .customerNotFound(let id, let detail):
            return "customer '\(id)' not found: \(detail)"
        case .notFound(let url, let code, let message):
            return "\(url): not found (HTTP 404\(code.map { ", code \($0)" } ?? ""))\(message.map { ": \($0)" } ?? "")"
        case .rejected(let url, let status, let code, let message):
            return "\(url): RevenueCat refused the request (HTTP \(status)\(code.map { ", code \($0)" } ?? ""))\(message.map { ": \($0)" } ?? "")"
        }
    }
}

public struct RevenueCatSource: CustomerSource {
    public static let defaultBaseURL = "https://api.revenuecat.com/v1"

    public let client: RemoteClient
    public let cachePolicy: CachePolicy
    public let clock: any Clock

    public var capabilities: SourceCapabilities { [.history, .grants, .lifetimeGrants] }
    public var remoteBudget: RemoteBudget? { client.budget }

    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        switch capability {
        case .renewalCounts:
            return "RevenueCat's API v1 has no renewal counts: its subscriber answer carries no transaction list; a subs store ({flag:--store}, or {flag:--remote} to subs serve) counts renewals"
        case .dryRun: return "RevenueCat's API v1 has no dry run; nothing was sent"
        case .batchWrites: return "RevenueCat's API v1 changes one customer per request (a batch could not be all or nothing)"
        default: return "RevenueCat's API v1 does not offer that"
        }
    }

    /// Why a v1 history is incomplete (the document's `incompleteReason`, said on stderr).
    public static let historyNote = "RevenueCat's API v1 has no full transaction list: history shows each subscription's first "
        + "and latest purchase, cancellation, billing issue and refund, and each one-time purchase"

    static func projectionNote(_ s: RevenueCatSubscriber, to t: Instant) -> String {
        "RevenueCat's API v1 answers the current record only: the record of \(ISODate.format(s.requestDate)) "
            + "was projected to \(ISODate.format(t)), not replayed from history"
    }

    static func createdNote(_ id: ID, _ s: RevenueCatSubscriber) -> String {
        "RevenueCat created an empty subscriber for '\(id)' on this request"
            + (s.firstSeen.map { " (first seen \(ISODate.format($0)))" } ?? "") + ": there was no such customer"
    }

    // MARK: reading

    struct Fetched {
        var subscriber: RevenueCatSubscriber
        var createdEmpty: Bool
    }

    /// What the base URL looks like (said when a 404 shows it is not RevenueCat's API).
    static let expectedBaseURL = "end in /v1, as in \(defaultBaseURL)"

    /// The subscriber of `id`. What the client said of the answer (cache age) is a note, what was
    /// left out of it as malformed a warning. RevenueCat creates an unknown app user on this GET,
    /// so a 404 is never a missing customer: the base URL is not RevenueCat's API.
    func fetch(_ id: ID, policy: CachePolicy, remarks: inout Remarks) throws -> Fetched {
        let answer = try client.get("/subscribers/" + RemoteURL.segment(id.string), customer: id.string, cachePolicy: policy)
        remarks.note(from: answer)
        switch answer.response.status {
        case 200, 201:
            var s = try Self.decode(answer)
            Self.leaveOut(s, id, in: &remarks)
            let createdEmpty = RevenueCatMapping.isCreatedEmpty(s, httpStatus: answer.response.status)
            // A cached answer is the record as of now, judged at the local clock (SPEC section 6).
            if answer.cacheAge != nil { s.requestDate = clock.now() }
            return Fetched(subscriber: s, createdEmpty: createdEmpty)
        case 404:
            throw WrongBaseURL(url: answer.url, why: "(RevenueCat's GET /subscribers/{id} never answers 404: it creates unknown app users)",
                               expected: Self.expectedBaseURL)
        default: throw Self.failure(answer)
        }
    }

    public func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        var remarks = Remarks()
        var requestDate: Instant?
        var projected: RevenueCatSubscriber?
        let batch = try BudgetedBatch.each(ids, budget: client.budget) { id -> CustomerStatus? in
            let fetched = try fetch(id, policy: cachePolicy, remarks: &remarks)
            let s = fetched.subscriber
            if fetched.createdEmpty {
                remarks.note(Self.createdNote(id, s))
                return nil
            }
            requestDate = requestDate ?? s.requestDate
            if t != nil && projected == nil { projected = s }
            return RevenueCatMapping.status(s, requestedId: id, at: t ?? s.requestDate, projected: t != nil)
        }
        if let t, let s = projected { remarks.note(Self.projectionNote(s, to: t)) }
        return StatusAnswer(requestDate: t ?? requestDate ?? clock.now(), statuses: batch.answers.map { $0 ?? nil }, remarks: remarks,
                            unanswered: batch.unanswered)
    }

    /// A warning for each item `s` left out as malformed (one entitlement never hides the others).
    static func leaveOut(_ s: RevenueCatSubscriber, _ id: ID, in remarks: inout Remarks) {
        remarks.leaveOut(s.problems, of: "RevenueCat's subscriber '\(id)'")
    }

    public func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        var remarks = Remarks()
        let fetched = try fetch(id, policy: cachePolicy, remarks: &remarks)
        let s = fetched.subscriber
        if fetched.createdEmpty {
            throw RevenueCatError.customerNotFound(id: id.string, detail: Self.createdDetail(s))
        }
        let at = t ?? s.requestDate
        let customerId = s.originalAppUserId.flatMap { $0.isEmpty ? nil : $0 } ?? id
        return HistoryAnswer(requestDate: at, customerId: customerId, provider: "revenuecat",
                             entries: RevenueCatMapping.history(s, until: until ?? at),
                             complete: false, incompleteReason: Self.historyNote, remarks: remarks)
    }

    static func createdDetail(_ s: RevenueCatSubscriber) -> String {
        "RevenueCat created an empty subscriber for it on this request"
            + (s.firstSeen.map { " (first seen \(ISODate.format($0)))" } ?? "")
    }

    public func customerIds() throws -> [ID] {
        throw NotOffered("RevenueCat's API v1 does not list customers")
    }

    public func entitlementIds() throws -> [ID] {
        throw NotOffered("RevenueCat's API v1 does not list entitlements")
    }

    // MARK: writing

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?,
                      dryRun: Bool) throws -> ChangeAnswer {
        // checkWrite passed: one customer (named once or more), no dry run, an end in the future.
        guard let id = ids.first else { return ChangeAnswer(requestDate: now, customers: []) }
        // A write needs RevenueCat itself: --offline cannot send it, and the check before it
        // must not come from the cache.
        let policy: CachePolicy = cachePolicy == .offline ? .offline : .network
        var remarks = Remarks()
        let entitlement = change.entitlement
        let path = "/subscribers/\(RemoteURL.segment(id.string))/entitlements/\(RemoteURL.segment(entitlement.string))"
        let after: RevenueCatSubscriber
        let grants: [Grant]
        switch change {
        case .grant(_, let expiration, let reason, _, let createMissing):
            if !createMissing {
                let before = try fetch(id, policy: policy, remarks: &remarks)
                if before.createdEmpty {
                    throw RevenueCatError.customerNotFound(id: id.string, detail: Self.createdDetail(before.subscriber)
                        + "; nothing granted (use --create to grant anyway)")
                }
            }
            let body: JSONValue = expiration.map { .object(JSONObject([("end_time_ms", .number(Self.milliseconds($0)))])) }
                ?? .object(JSONObject([("duration", .string("lifetime"))]))
            after = try post(path + "/promotional", body: body, policy: policy)
            Self.leaveOut(after, id, in: &remarks)
            if reason != nil {
                remarks.note("RevenueCat's API v1 keeps no reason or actor with a grant: --reason was not recorded")
            }
            // The grant is the newest promotional subscription of the entitlement in the answer.
            let granted = RevenueCatMapping.activePromotionals(of: entitlement, in: after)
                .max { ($0.purchaseDate ?? Instant.earliest) < ($1.purchaseDate ?? Instant.earliest) }
            grants = [Grant(id: granted.map { $0.storeTransactionId.map { ID($0) } ?? $0.productId } ?? "promotional",
                            entitlement: entitlement, grantedAt: granted?.purchaseDate ?? after.requestDate,
                            expirationDate: granted.map { $0.expiresDate } ?? expiration)]
        case .revoke:
            let before = try fetch(id, policy: policy, remarks: &remarks)
            if before.createdEmpty {
                throw RevenueCatError.customerNotFound(id: id.string, detail: Self.createdDetail(before.subscriber) + "; nothing revoked")
            }
            let active = RevenueCatMapping.activePromotionals(of: entitlement, in: before.subscriber)
            guard !active.isEmpty else { throw ChangeError.nothingToRevoke(entitlement: entitlement, customers: [id]) }
            after = try post(path + "/revoke_promotionals", body: nil, policy: policy)
            Self.leaveOut(after, id, in: &remarks)
            grants = active.map { sub in
                Grant(id: sub.storeTransactionId.map { ID($0) } ?? sub.productId, entitlement: entitlement,
                      grantedAt: sub.purchaseDate ?? sub.originalPurchaseDate ?? before.subscriber.requestDate,
                      expirationDate: sub.expiresDate, revokedAt: after.requestDate)
            }
        }
        let at = t ?? after.requestDate
        if let t { remarks.note(Self.projectionNote(after, to: t)) }
        let status = RevenueCatMapping.status(after, requestedId: id, at: at, projected: t != nil)
        let changed = ChangedCustomer(record: status.record, grants: grants, created: false)
        return ChangeAnswer(requestDate: at, customers: [(change: changed, status: status.entitlements.first { $0.id == entitlement })],
                            remarks: remarks)
    }

    /// Sends a POST (never retried: v1 takes no Idempotency-Key, and a repeated grant would add
    /// a second one) and decodes the subscriber it answers.
    private func post(_ path: String, body: JSONValue?, policy: CachePolicy) throws -> RevenueCatSubscriber {
        let answer = try client.send("POST", path, body: body.map { Array(JSONWriter.compact($0).utf8) }, cachePolicy: policy)
        switch answer.response.status {
        case 200, 201: return try Self.decode(answer)
        default: throw Self.failure(answer)
        }
    }

    static func milliseconds(_ instant: Instant) -> String {
        String(instant.seconds * 1000 + Int64(instant.nanoseconds / 1_000_000))
    }

    // MARK: answers

    static func decode(_ answer: RemoteAnswer) throws -> RevenueCatSubscriber {
        do {
            return try RevenueCatSubscriber.decode(answer.response.body)
        } catch {
            throw RemoteError.protocolError(url: answer.url, reason: "\(error)")
        }
    }

    /// The error for a status that is not a subscriber, with RevenueCat's `{"code", "message"}`.
    static func failure(_ answer: RemoteAnswer) -> Error {
        let body = try? JSON.parse(answer.response.body)
        var code: String?
        switch body?["code"] {
        case .number(let n)?: code = n
        case .string(let s)?: code = s
        default: code = nil
        }
        let message = body?["message"]?.stringValue.map { $0.count > 200 ? String($0.prefix(200)) + "…" : $0 }
        switch answer.response.status {
        // RevenueCat's own 404 carries its error JSON; any other (a page, an empty body) comes
        // from somewhere that is not RevenueCat's API.
        case 404 where code == nil && message == nil:
            return WrongBaseURL(url: answer.url, why: "and a body that is not RevenueCat's error JSON", expected: expectedBaseURL)
        case 404: return RevenueCatError.notFound(url: answer.url, code: code, message: message)
        case 400..<500: return RevenueCatError.rejected(url: answer.url, status: answer.response.status, code: code, message: message)
        default: return RemoteError.protocolError(url: answer.url, reason: "unexpected HTTP status \(answer.response.status)")
        }
    }
}

// What its API can look a customer up by (SPEC section 6; README "find").
extension RevenueCatSource {
    public func whyNotSearchable(_ kind: SearchKinds) -> String {
        "RevenueCat's API v1 looks a customer up by app user id only (its dashboard and API v2 search "
            + (kind == .attributes ? "attributes" : kind == .emails ? "emails" : "transaction and order ids") + ")"
    }
}
