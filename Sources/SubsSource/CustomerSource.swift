// The one seam between commands and where answers come from: statuses of ids at T, the history
// of an id, and changes. A record-backed source (the local store, the subs REST API) computes
// them with the rules; a vendor source (RevenueCat, Qonversion, IAPHUB) maps its own answers.
// Each answer carries its requestDate and the notes and warnings the CLI says on stderr (Remarks,
// collected one way by every source; the library never prints); each source says what it can do,
// so "not offered" is one sentence and exit 64.

import SubsModel
import SubsRemote

public protocol CustomerSource {
    var capabilities: SourceCapabilities { get }
    /// The command's remote budget when the answers come from a remote API (nil: the local store).
    var remoteBudget: RemoteBudget? { get }
    /// One sentence on why a capability the source lacks is not offered ("RevenueCat's API v1
    /// has no renewal counts"), naming options as {flag:--remote} (the CLI resolves the markup);
    /// the generated docs quote it.
    func whyNotOffered(_ capability: SourceCapabilities) -> String

    /// The status of each id at T (nil: the source's own clock, or now); nil for an unknown id.
    func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer

    /// The same, counting only the purchases of one environment (`check --environment`);
    /// grants always count. The default filters what `statuses(of:at:)` answered.
    func statuses(of ids: [ID], at t: Instant?, counting environment: EnvironmentFilter) throws -> StatusAnswer

    /// Everything that happened to `id` up to `until` (nil: up to T); nil for an unknown id.
    func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer?

    /// The status of `id` at T with each entitlement's `renewsCount` filled (nil answer status:
    /// unknown id). A source whose statuses already carry the counts answers with `statuses`;
    /// one that counts from a purchase history fetches it here, so `check` never pays for it.
    func renewalCounts(of id: ID, at t: Instant?) throws -> StatusAnswer
    /// The same for each id, one answer per id in order: a record-backed source reads them all in
    /// one scan; a provider asks for each in turn.
    func renewalCounts(of ids: [ID], at t: Instant?) throws -> [StatusAnswer]

    /// Applies a grant or revoke to every id (all or nothing; nothing written with `dryRun`),
    /// stamped `now`; the answer holds each customer's entitlement status at `t` (nil: now).
    /// Callers go through `checkedApply`: a source relies on `checkWrite` having passed (no dry run
    /// or batch asked of one that lacks it, no grant ending in the past).
    func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer

    /// Ids of every customer, and of every entitlement a product unlocks (completion, checks).
    func customerIds() throws -> [ID]
    func entitlementIds() throws -> [ID]
    /// Ids and aliases of every customer, for a "did you mean" when a USER is not found; a
    /// source that cannot list its customers throws NotOffered (the default: `customerIds`).
    func customerNames() throws -> [ID]

    /// `find` (CustomerSource+Find.swift): the kinds of term the source can search, why not
    /// the others, and the customers each term names with their active entitlements at T.
    var searchableKinds: SearchKinds { get }
    func whyNotSearchable(_ kind: SearchKinds) -> String
    /// Why one term cannot be searched (its shape is a kind the source cannot search), in one
    /// sentence; nil when it can.
    func whyNotSearchable(term: String) -> String?
    func find(_ query: FindQuery, at t: Instant?) throws -> FindAnswer
}

extension CustomerSource {
    public func customerNames() throws -> [ID] { try customerIds() }
    public var remoteBudget: RemoteBudget? { nil }

    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        "this source does not offer that"
    }

    /// A provider's answer names one purchase per entitlement: an entitlement it describes by a
    /// purchase of the other environment is left out (its other sources with it).
    public func statuses(of ids: [ID], at t: Instant?, counting environment: EnvironmentFilter) throws -> StatusAnswer {
        var answer = try statuses(of: ids, at: t)
        guard environment != .any else { return answer }
        answer.statuses = answer.statuses.map { status in
            status.map { status in
                var kept = status
                kept.entitlements = status.entitlements.compactMap { e in
                    guard environment.counts(isSandbox: e.isSandbox, isGrant: e.sourceKind == .grant) else { return nil }
                    var e = e
                    e.otherActiveSources.removeAll { !environment.counts(isSandbox: $0.isSandbox, isGrant: $0.sourceKind == .grant) }
                    return e
                }
                kept.spending = status.spending?.counting(environment)
                return kept
            }
        }
        return answer
    }

    /// Renewal counts of one customer: a provider that reads a purchase history for them (which
    /// `check` never pays for) answers here; the others answer as `statuses`.
    public func renewalCounts(of id: ID, at t: Instant?) throws -> StatusAnswer {
        try statuses(of: [id], at: t)
    }

    /// One customer after the other; one the remote budget ended is an answer of its own with
    /// that error in `unanswered` (the others are still answered), unless none is answered.
    public func renewalCounts(of ids: [ID], at t: Instant?) throws -> [StatusAnswer] {
        var answers: [StatusAnswer] = []
        var first: RemoteError?
        for id in ids {
            do {
                // The counts are kept, not the listings they were made of.
                let counts = { try self.renewalCounts(of: id, at: t) }
                answers.append(try remoteBudget.map { try $0.releasing(counts) } ?? counts())
            } catch let spent as RemoteError where spent.isBudgetSpent {
                first = first ?? spent
                answers.append(StatusAnswer(requestDate: t ?? Instant(seconds: 0), statuses: [nil], unanswered: [0: spent]))
            }
        }
        if let first, answers.allSatisfy({ !$0.unanswered.isEmpty }) { throw first }
        return answers
    }

    /// Throws NotOffered, with the source's sentence, unless the source can do `capability`.
    public func require(_ capability: SourceCapabilities) throws {
        guard capabilities.contains(capability) else { throw NotOffered(whyNotOffered(capability)) }
    }

    /// What a grant or revoke must meet before any source is asked, checked once for every
    /// source from its capabilities, in this order: grants at all, a grant without an end, a dry
    /// run, several customers at once (all or nothing), then an end that is not in the future.
    /// Throws NotOffered (exit 64) or ChangeError.expirationNotInFuture (exit 64); sends nothing.
    public func checkWrite(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws {
        try require(.grants)
        if case .grant(_, nil, _, _, _) = change { try require(.lifetimeGrants) }
        if dryRun { try require(.dryRun) }
        if let first = ids.first, ids.contains(where: { $0 != first }) { try require(.batchWrites) }
        if case .grant(_, let expiration?, _, _, _) = change, expiration <= now {
            throw ChangeError.expirationNotInFuture(expiration)
        }
    }

    /// `apply` after `checkWrite`: the one way a command writes through a source.
    public func checkedApply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?,
                             dryRun: Bool) throws -> ChangeAnswer {
        try checkWrite(change, to: ids, now: now, dryRun: dryRun)
        return try apply(change, to: ids, now: now, at: t, dryRun: dryRun)
    }
}

/// What a source can do beyond answering statuses now.
public struct SourceCapabilities: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let history = SourceCapabilities(rawValue: 1 << 0)
    public static let renewalCounts = SourceCapabilities(rawValue: 1 << 1)
    public static let grants = SourceCapabilities(rawValue: 1 << 2)
    public static let lifetimeGrants = SourceCapabilities(rawValue: 1 << 3)
    /// Status at any T from the records themselves (not a projection of today's answer).
    public static let evaluationAtAnyInstant = SourceCapabilities(rawValue: 1 << 4)
    /// A grant or revoke that only says what it would do (`--dry-run`).
    public static let dryRun = SourceCapabilities(rawValue: 1 << 5)
    /// A grant or revoke of several customers at once, all or nothing.
    public static let batchWrites = SourceCapabilities(rawValue: 1 << 6)

    public static let all: SourceCapabilities = [.history, .renewalCounts, .grants, .lifetimeGrants, .evaluationAtAnyInstant,
                                                 .dryRun, .batchWrites]
}

/// A source that cannot do what was asked: the CLI says `reason` (which names what can) and
/// exits 64, a usage error — never 69, which means "unreachable, retry later".
public struct NotOffered: Error, Equatable, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

public struct StatusAnswer: Sendable {
    /// T: the instant the statuses describe.
    public var requestDate: Instant
    /// One per requested id, in order (`requestedId` set); nil when unknown.
    public var statuses: [CustomerStatus?]
    /// Entitlements some product unlocks, when the source knows its catalog (a `--require`
    /// typo is then "no product unlocks", not a customer without access).
    public var knownEntitlements: Set<ID>?
    /// Said on stderr (`subs: note: ...`).
    public var notes: [String]
    /// Said on stderr (`subs: warning: ...`): parts of an answer left out as malformed.
    public var warnings: [String]
    /// For renewal counts computed from a history (`renewalCounts(of:at:)`): false when that
    /// history is partial, `incompleteReason` saying why (SPEC section 4, `renew-count`).
    public var complete: Bool
    public var incompleteReason: String?
    /// The customers (by index) the command's remote budget left unanswered, each with the error
    /// that ended it (a timeout, answers too large); their `statuses` are nil (BudgetedBatch).
    public var unanswered: [Int: RemoteError]

    public init(requestDate: Instant, statuses: [CustomerStatus?], knownEntitlements: Set<ID>? = nil,
                notes: [String] = [], warnings: [String] = [], complete: Bool = true, incompleteReason: String? = nil,
                unanswered: [Int: RemoteError] = [:]) {
        self.requestDate = requestDate
        self.unanswered = unanswered
        self.statuses = statuses
        self.knownEntitlements = knownEntitlements
        self.notes = notes
        self.warnings = warnings
        self.complete = complete
        self.incompleteReason = incompleteReason
    }
}

public struct HistoryAnswer: Sendable {
    public var requestDate: Instant
    public var customerId: ID
    /// Who answered (SPEC section 4): `store`, `subs`, `revenuecat`, `qonversion`, `iaphub`.
    public var provider: String
    public var entries: [HistoryEntry]
    /// False when the provider cannot give the whole history (a page cap reached, an API version
    /// without transactions); `incompleteReason` then says why in one sentence.
    public var complete: Bool
    public var incompleteReason: String?
    public var notes: [String]
    public var warnings: [String]
    /// Entitlements some product unlocks, when the source knows its catalog (an `--entitlement`
    /// typo is then an error with a did-you-mean, not an empty history).
    public var knownEntitlements: Set<ID>?
    /// The catalog, when the source has one: the wording of a billing issue names the grace end.
    public var catalog: Catalog?
    /// When access ended, derived from the records (the timeline's "access ended"; not entries).
    public var accessEnds: [AccessEnd]

    public init(requestDate: Instant, customerId: ID, provider: String, entries: [HistoryEntry],
                complete: Bool = true, incompleteReason: String? = nil, notes: [String] = [],
                warnings: [String] = [], knownEntitlements: Set<ID>? = nil, catalog: Catalog? = nil,
                accessEnds: [AccessEnd] = []) {
        self.requestDate = requestDate
        self.customerId = customerId
        self.provider = provider
        self.entries = entries
        self.complete = complete
        self.incompleteReason = incompleteReason
        self.notes = notes
        self.warnings = warnings
        self.knownEntitlements = knownEntitlements
        self.catalog = catalog
        self.accessEnds = accessEnds
    }
}

public struct ChangeAnswer: Sendable {
    public var requestDate: Instant
    /// One per distinct customer changed, in the order named, with the entitlement's status
    /// after the write (nil: no source of it left).
    public var customers: [(change: ChangedCustomer, status: EntitlementInfo?)]
    public var notes: [String]
    public var warnings: [String]

    public init(requestDate: Instant, customers: [(change: ChangedCustomer, status: EntitlementInfo?)], notes: [String] = [],
                warnings: [String] = []) {
        self.requestDate = requestDate
        self.customers = customers
        self.notes = notes
        self.warnings = warnings
    }
}
