// What `find` answers (SPEC section 4): one result per term, each with the customers it matched,
// and the customers the command's remote budget left unread — which is why these stand in the
// seam, beside the other answers, and not in the model.

import SubsJSON
import SubsModel
import SubsRemote
import SubsSystem

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

extension FoundRecords {
    /// Each term's result, with the active entitlements of its customers at T.
    public func results(_ terms: [String], at t: Instant) -> [FindResult] {
        zip(terms, matches).map { term, matches in
            FindResult(term: term, matches: matches.concurrentMap { match in
                FindMatch(customerId: match.record.id, matchedBy: match.kind, email: FindMatch.email(of: match.record),
                          activeEntitlements: EntitlementRules.evaluate(match.record, catalog: catalog, at: t)
                              .filter(\.isActive).map(\.id))
            })
        }
    }
}
