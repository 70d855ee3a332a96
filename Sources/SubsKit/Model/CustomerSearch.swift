// `find` (SPEC section 4): what a support agent is handed — an email, a store's order or
// transaction id, an app user id — and the customers it names. The query, the kinds of match in
// the order they are tried, the answer and its JSON document, shared by the CLI and `subs serve`.

import SubsJSON

/// What `find` looks for: each term on its own; `attributes` names attributes whose value may
/// match a term too (`--attribute KEY`).
public struct FindQuery: Equatable, Sendable {
    public var terms: [String]
    public var attributes: [String]

    public init(terms: [String], attributes: [String] = []) {
        self.terms = terms
        self.attributes = attributes
    }

    /// Longest term accepted, in UTF-8 bytes (the bound of an id read from standard input).
    public static let maxTermBytes = 4096

    /// Why a term (or an attribute key) cannot be searched for, in one sentence; nil when it can.
    /// Control characters (C0, DEL, C1) are refused: no id, email or order id holds one, and a
    /// term pasted with an escape sequence must not reach a terminal or a log.
    public static func problem(with term: String, what: String = "term") -> String? {
        if term.isEmpty { return "an empty \(what) matches nothing" }
        let bytes = term.utf8.count
        if bytes > maxTermBytes {
            return "the \(what) is \(bytes) bytes long; at most \(maxTermBytes) are searched for"
        }
        if let bad = term.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "the \(what) holds the control character U+" + String(bad.value, radix: 16, uppercase: true).leftPadded(4)
        }
        return nil
    }

    /// The first problem of the query, if any.
    public var problem: String? {
        for term in terms { if let problem = FindQuery.problem(with: term) { return problem } }
        for key in attributes { if let problem = FindQuery.problem(with: key, what: "attribute key") { return problem } }
        return nil
    }
}

/// Why a customer matches a term. Kinds are tried in this order; a customer matching a term in
/// several ways is reported once, by the first. `displayName`: the `$displayName` (RevenueCat's
/// reserved attribute) or `name` attribute, in any case, as a support agent types the name a
/// ticket is signed with.
public enum MatchKind: String, CaseIterable, Comparable, Sendable {
    case customerId, alias, email, displayName, transactionId, originalTransactionId, orderId, attribute

    /// The attributes a `displayName` match reads.
    public static let displayNameKeys = ["$displayName", "name"]

    var rank: Int { MatchKind.allCases.firstIndex(of: self)! }

    public static func < (a: MatchKind, b: MatchKind) -> Bool { a.rank < b.rank }
}

/// One customer a term found.
public struct FindMatch: Equatable, Sendable {
    public var customerId: ID
    public var matchedBy: MatchKind
    /// The customer's `email` attribute (RevenueCat: `$email`), when it is a string.
    public var email: String?
    /// Entitlements active at T, sorted.
    public var activeEntitlements: [ID]

    public init(customerId: ID, matchedBy: MatchKind, email: String?, activeEntitlements: [ID]) {
        self.customerId = customerId
        self.matchedBy = matchedBy
        self.email = email
        self.activeEntitlements = activeEntitlements
    }

    /// `{"customerId", "matchedBy", "email", "activeEntitlements"}`: one match of a find document.
    public var document: JSONValue {
        .object(JSONObject([
            ("customerId", .string(customerId.string)),
            ("matchedBy", .string(matchedBy.rawValue)),
            ("email", email.map { .string($0) } ?? .null),
            ("activeEntitlements", .array(activeEntitlements.map { .string($0.string) })),
        ]))
    }

    /// The email a record holds: `email`, else RevenueCat's reserved `$email`.
    public static func email(of record: CustomerRecord) -> String? {
        record.attributes?["email"]?.stringValue ?? record.attributes?["$email"]?.stringValue
    }
}

/// What one term found: every match, best kind first, then in store order.
public struct FindResult: Equatable, Sendable {
    public var term: String
    public var matches: [FindMatch]
    /// Why customers the term matches were not read (the command's remote budget ended first):
    /// `matches` is then not all of them, and an empty list does not mean "no match". nil: every
    /// customer found was read. Not part of the document (stderr and the exit status say it).
    public var unread: RemoteError?

    public init(term: String, matches: [FindMatch], unread: RemoteError? = nil) {
        self.term = term
        self.matches = matches
        self.unread = unread
    }

    /// `{"term", "matches": [{"customerId", "matchedBy", "email", "activeEntitlements"}]}`: the
    /// document of `find --json` and of `GET /v1/customers?search=TERM`.
    public var document: JSONValue {
        .object(JSONObject([
            ("term", .string(term)),
            ("matches", .array(matches.map(\.document))),
        ]))
    }

    /// Reads a find document (a `subs serve` answer); nil when it is not one.
    public init?(document: JSONValue) {
        guard case .string(let term)? = document["term"], case .array(let list)? = document["matches"] else { return nil }
        var matches: [FindMatch] = []
        for item in list {
            guard case .string(let id)? = item["customerId"], case .string(let kind)? = item["matchedBy"],
                  let matchedBy = MatchKind(rawValue: kind), case .array(let active)? = item["activeEntitlements"] else { return nil }
            let email: String?
            switch item["email"] {
            case .string(let text)?: email = text
            case .null?: email = nil
            default: return nil
            }
            let ids = active.compactMap(\.stringValue)
            guard ids.count == active.count else { return nil }
            matches.append(FindMatch(customerId: ID(id), matchedBy: matchedBy, email: email, activeEntitlements: ids.ids))
        }
        self.init(term: term, matches: matches)
    }
}

/// A source's answer to `find`: one result per term, in the order asked.
public struct FindAnswer: Sendable {
    /// T: the instant `activeEntitlements` describe.
    public var requestDate: Instant
    public var results: [FindResult]
    /// Said on stderr (`subs: note: ...`).
    public var notes: [String]
    /// Said on stderr (`subs: warning: ...`): an item of the platform's answer left out.
    public var warnings: [String]

    public init(requestDate: Instant, results: [FindResult], notes: [String] = [], warnings: [String] = []) {
        self.requestDate = requestDate
        self.results = results
        self.notes = notes
        self.warnings = warnings
    }
}

/// Kinds of term a source can search.
public struct SearchKinds: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Customer ids (app user ids, identities) and aliases.
    public static let ids = SearchKinds(rawValue: 1 << 0)
    public static let emails = SearchKinds(rawValue: 1 << 1)
    /// Store transaction ids, original transaction ids and order ids.
    public static let transactions = SearchKinds(rawValue: 1 << 2)
    /// Any attribute's value (`--attribute KEY`).
    public static let attributes = SearchKinds(rawValue: 1 << 3)

    public static let all: SearchKinds = [.ids, .emails, .transactions, .attributes]
}

/// What a term looks like. A source that can search ids only must not take an email or an order
/// id for a user id (RevenueCat's API v1 would even create a subscriber of that name), and
/// `check` suggests `subs find` for a USER it cannot find that looks like one of these.
public enum TermShape: Equatable, Sendable {
    case id
    /// `local@domain.tld`: one `@`, something before it, a dot in the domain, no spaces.
    case email
    /// A store's transaction or order id: Google Play `GPA.…`, an Apple order id (`M` then 9
    /// upper-case letters and digits, with a digit: `MK3Q9Z7X1T`), an Apple transaction id (12
    /// to 20 digits), Stripe `in_…` `sub_…` `si_…` `pi_…` `ch_…`, Amazon `amzn1.…`.
    case storeId

    public init(of term: String) {
        let bytes = Array(term.utf8)
        if TermShape.isEmail(bytes) { self = .email } else if TermShape.isStoreId(term, bytes) { self = .storeId } else { self = .id }
    }

    /// The kind a source must be able to search to look this term up.
    public var kind: SearchKinds {
        switch self {
        case .id: return .ids
        case .email: return .emails
        case .storeId: return .transactions
        }
    }

    public var description: String {
        switch self {
        case .id: return "an id"
        case .email: return "an email"
        case .storeId: return "a transaction or order id"
        }
    }

    private static func isEmail(_ bytes: [UInt8]) -> Bool {
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0,
              bytes.lastIndex(of: UInt8(ascii: "@")) == at else { return false }
        let domain = bytes[(at + 1)...]
        guard let dot = domain.lastIndex(of: UInt8(ascii: ".")), dot > domain.startIndex, dot < bytes.count - 1 else { return false }
        return !bytes.contains { $0 <= 0x20 }
    }

    private static func isStoreId(_ term: String, _ bytes: [UInt8]) -> Bool {
        let digits = { (b: UInt8) in (0x30...0x39).contains(b) }
        if term.hasPrefix("GPA."), bytes.count > 8, bytes.dropFirst(4).allSatisfy({ digits($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) {
            return true
        }
        if bytes.count == 10, bytes[0] == UInt8(ascii: "M"),
           bytes.allSatisfy({ digits($0) || (0x41...0x5A).contains($0) }), bytes.contains(where: digits) {
            return true
        }
        if (12...20).contains(bytes.count), bytes.allSatisfy(digits) { return true }
        for prefix in ["in_", "sub_", "si_", "pi_", "ch_", "amzn1."] where term.hasPrefix(prefix) && bytes.count > prefix.utf8.count + 6 {
            let rest = bytes.dropFirst(prefix.utf8.count)
            if rest.allSatisfy({ digits($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) {
                return true
            }
        }
        return false
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
