// `find` through RevenueCat's API v2: GET /customers?search=TERM (the base URL holds the project).
// RevenueCat's reference (list-customers, openapi-spec api-v2.yaml) matches the term, in order,
// against the `$email` attribute (exact), the customer's app user ids, store transaction ids
// (Apple, Google Play, Amazon) and Apple order ids; email searches are paginated, the others answer
// one page. Each customer found is then read as `check` reads it (the customer with its attributes,
// its subscriptions and purchases: three requests), so that ACTIVE is check's answer at T. That is
// the N+1 of a search, bounded: `matchCap` customers a term, within one --timeout budget.

import SubsJSON

extension RevenueCatV2Source {
    /// Customers described a term at most (each costs three requests); past it a note says more match.
    public static let matchCap = 20
    /// Pages of one search read at most: with RevenueCat's 100 a page `matchCap` comes first; a
    /// server cutting pages shorter stops here and the note says so.
    public static let searchPageCap = 10

    public var searchableKinds: SearchKinds { [.ids, .emails, .transactions] }

    public func whyNotSearchable(_ kind: SearchKinds) -> String {
        "RevenueCat's API v2 searches the $email attribute, app user ids, Apple, Google Play and Amazon transaction ids "
            + "and Apple order ids, not " + (kind == .attributes ? "other attributes" : "that")
    }

    public func whyNotSearchable(term: String) -> String? {
        let shape = TermShape(of: term)
        // Stripe's ids look like store ids, but v2's search names no Stripe field: refused, not "no match".
        if shape == .storeId, ["in_", "sub_", "si_", "pi_", "ch_"].contains(where: { term.hasPrefix($0) }) {
            return "'\(term)' looks like a Stripe id, and RevenueCat's API v2 searches Apple, Google Play "
                + "and Amazon transaction ids and Apple order ids, not Stripe's"
        }
        return unsearchableShape(term)
    }

    public func find(_ query: FindQuery, at t: Instant?) throws -> FindAnswer {
        try requireSearchable(query)
        let budget = client.budget
        var remarks = Remarks()
        var found: [[ID]] = []
        /// Per term: why it was not looked up as an app user id (nothing else found it either).
        var notLookedUp: [Int: RemoteError] = [:]
        var statuses: [ID: CustomerStatus] = [:]
        var requestDate: Instant?
        /// The customer `id` as check reads it (nil: RevenueCat has none), its notes and warnings
        /// kept; the budget's error when it left no room for the customer.
        func read(_ id: ID) throws -> CustomerStatus? {
            let answer = try budget.releasing { try self.statuses(of: [id], at: t) }
            remarks.merge(answer.remarks)
            guard let status = answer.statuses.first ?? nil else { return nil }
            requestDate = requestDate ?? answer.requestDate
            statuses[id] = status
            statuses[status.record.id] = status
            return status
        }
        for (index, term) in query.terms.enumerated() {
            var ids = try search(term, remarks: &remarks)
            // Nothing found: the term is also looked up as an app user id, as check does (v2 creates
            // no customer on GET), so an id is found even by a search that matches emails only, as
            // an older edition of RevenueCat's reference said.
            if ids.isEmpty, !budget.isSpent {
                do {
                    if let status = try read(ID(term)) { ids = [status.record.id] }
                } catch let spent as RemoteError where spent.isBudgetSpent {
                    remarks.note("'\(term)' was not looked up as an app user id: \(spent.budgetReason)")
                    notLookedUp[index] = spent
                }
            }
            found.append(ids)
        }

        // Each customer read once, however many terms found it; no more once the budget is spent.
        var unread: [ID] = []
        var unreadSet: Set<ID> = []
        var gone: Set<ID> = []
        var why = RemoteError.timeout(url: "", seconds: budget.seconds)
        for id in found.joined() where statuses[id] == nil && !gone.contains(id) && !unreadSet.contains(id) {
            guard !budget.isSpent else { unread.append(id); unreadSet.insert(id); continue }
            do {
                if try read(id) == nil {
                    remarks.warn("RevenueCat customer '\(id)' was found by the search but was gone when it was read")
                    gone.insert(id)
                }
            } catch let spent as RemoteError where spent.isBudgetSpent {
                why = spent
                unread.append(id)
                unreadSet.insert(id)
            }
        }
        if !unread.isEmpty {
            remarks.note("\(unread.count) customer\(unread.count == 1 ? "" : "s") found by RevenueCat's search not shown: "
                         + why.budgetReason)
        }
        let results = zip(query.terms, found).enumerated().map { index, pair in
            let (term, ids) = pair
            // A term whose customers were not all read is not known to match only those shown.
            let unreadHere = notLookedUp[index] ?? (ids.contains(where: unreadSet.contains) ? why : nil)
            return FindResult(term: term, matches: ids.compactMap { statuses[$0] }.map { status in
                let email = FindMatch.email(of: status.record)
                return FindMatch(customerId: status.record.id, matchedBy: Self.matchKind(term, customerId: status.record.id, email: email),
                                 email: email, activeEntitlements: status.activeEntitlementIds.sorted())
            }.enumerated().sorted { a, b in a.element.matchedBy != b.element.matchedBy ? a.element.matchedBy < b.element.matchedBy : a.offset < b.offset }
              .map(\.element), unread: unreadHere)
        }
        return FindAnswer(requestDate: t ?? requestDate ?? clock.now(), results: results, remarks: remarks)
    }

    /// The ids of the customers RevenueCat's search names for `term`, in its order, at most
    /// `matchCap`. An email typed with capitals is searched as typed and in lower case too
    /// (RevenueCat matches `$email` exactly; `find` promises case-insensitive emails).
    func search(_ term: String, remarks: inout Remarks) throws -> [ID] {
        var spellings = [term]
        if TermShape(of: term) == .email, term.lowercased() != term { spellings.append(term.lowercased()) }
        var ids: [ID] = []
        var more = false
        for spelling in spellings {
            let label = "RevenueCat's search for '\(spelling)'"
            let page = try list("/customers?search=" + RemoteURL.segment(spelling), id: "search:" + spelling, what: "matches",
                                cap: Self.searchPageCap, enough: Self.matchCap + 1, partial: true, remarks: &remarks,
                                label: label, cost: \.footprint) { try RevenueCatV2Wire.customers($0, keep: $1) }
            // A search of which not one page could be read found nothing: it failed.
            if page.items.isEmpty, page.unfinished != nil, client.budget.isSpent {
                throw RemoteError.timeout(url: RemoteURL.display(client.endpoint.url.appending("/customers")), seconds: client.timeout)
            }
            if let reason = page.unfinished { remarks.note("\(label): \(reason)") }
            for customer in page.items where !ids.contains(customer.id) {
                guard ids.count < Self.matchCap else { more = true; break }
                ids.append(customer.id)
            }
        }
        if more {
            remarks.note("more than \(Self.matchCap) customers match '\(term)': the first \(Self.matchCap) are shown "
                         + "(subs reads at most \(Self.matchCap) customers a term, three requests each)")
        }
        return ids
    }

    /// How `term` matched: what subs can see in the customer (its id, its email, case-insensitive),
    /// else what the term's shape says RevenueCat matched — an Apple `M…` or Google `GPA.…` order
    /// id, a store transaction id, or else one of the customer's other app user ids (an alias).
    /// v2's search does not say which field matched; the README says these last three are inferred.
    static func matchKind(_ term: String, customerId: ID, email: String?) -> MatchKind {
        if ID(term) == customerId { return .customerId }
        if let email, email.lowercased() == term.lowercased() { return .email }
        guard TermShape(of: term) == .storeId else { return .alias }
        let isAppleOrder = term.utf8.count == 10 && term.hasPrefix("M")
        return isAppleOrder || term.hasPrefix("GPA.") ? .orderId : .transactionId
    }
}
