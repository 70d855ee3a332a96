// The one seam between commands and where answers come from: statuses of ids at T, the history
// of an id, and changes. A record-backed source (the local store, the subs REST API) computes
// them with the rules; a vendor source (RevenueCat, Qonversion, IAPHUB) maps its own answers.
// Each answer carries its requestDate and the notes the CLI says on stderr (the library never
// prints); each source says what it can do, so "not offered" is one sentence and exit 69.

public protocol CustomerSource {
    var capabilities: SourceCapabilities { get }
    /// One sentence on why a capability the source lacks is not offered ("RevenueCat's API v1
    /// has no renewal counts").
    func whyNotOffered(_ capability: SourceCapabilities) -> String

    /// The status of each id at T (nil: the source's own clock, or now); nil for an unknown id.
    func statuses(of ids: [String], at t: Instant?) throws -> StatusAnswer

    /// Everything that happened to `id` up to `until` (nil: up to T); nil for an unknown id.
    func history(of id: String, at t: Instant?, until: Instant?) throws -> HistoryAnswer?

    /// Applies a grant or revoke to every id (all or nothing; nothing written with `dryRun`),
    /// stamped `now`; the answer holds each customer's entitlement status at `t` (nil: now).
    func apply(_ change: CustomerChange, to ids: [String], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer

    /// Ids of every customer, and of every entitlement a product unlocks (completion, checks).
    func customerIds() throws -> [String]
    func entitlementIds() throws -> [String]

    /// `find` (CustomerSource+Find.swift): the kinds of term the source can search, why not
    /// the others, and the customers each term names with their active entitlements at T.
    var searchableKinds: SearchKinds { get }
    func whyNotSearchable(_ kind: SearchKinds) -> String
    func find(_ query: FindQuery, at t: Instant?) throws -> FindAnswer
}

extension CustomerSource {
    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        "this source does not offer that"
    }

    /// Throws NotOffered, with the source's sentence, unless the source can do `capability`.
    public func require(_ capability: SourceCapabilities) throws {
        guard capabilities.contains(capability) else { throw NotOffered(whyNotOffered(capability)) }
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

    public static let all: SourceCapabilities = [.history, .renewalCounts, .grants, .lifetimeGrants, .evaluationAtAnyInstant]
}

/// A source that cannot do what was asked: the CLI says `reason` and exits 69.
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
    public var knownEntitlements: Set<String>?
    /// Said on stderr (`subs: note: ...`).
    public var notes: [String]
    /// Said on stderr (`subs: warning: ...`): parts of an answer left out as malformed.
    public var warnings: [String]

    public init(requestDate: Instant, statuses: [CustomerStatus?], knownEntitlements: Set<String>? = nil,
                notes: [String] = [], warnings: [String] = []) {
        self.requestDate = requestDate
        self.statuses = statuses
        self.knownEntitlements = knownEntitlements
        self.notes = notes
        self.warnings = warnings
    }
}

public struct HistoryAnswer: Sendable {
    public var requestDate: Instant
    public var customerId: String
    public var entries: [HistoryEntry]
    public var notes: [String]
    public var warnings: [String]

    public init(requestDate: Instant, customerId: String, entries: [HistoryEntry], notes: [String] = [],
                warnings: [String] = []) {
        self.requestDate = requestDate
        self.customerId = customerId
        self.entries = entries
        self.notes = notes
        self.warnings = warnings
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
