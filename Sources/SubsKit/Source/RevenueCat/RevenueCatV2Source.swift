// Provider `revenuecat` with a v2 base URL (`https://api.revenuecat.com/v2/projects/PROJECT_ID`):
// RevenueCat's secret keys belong to one API version, so every command speaks v2. A customer is
// GET /customers/{id} (active entitlements, attributes), its subscriptions and one-time purchases
// (GET …/subscriptions, …/purchases) and, for App Store and Play Store subscriptions, their store
// transactions (GET /subscriptions/{id}/transactions). Lists are followed page by page
// (`starting_after`) up to `pageCap` pages each, within the command's one --timeout budget
// (RemoteBudget): `history` and `renew-count` answer with what fitted, said to be incomplete;
// `check` answers nothing from part of a customer's data.

import SubsJSON

public struct RevenueCatV2Source: CustomerSource {
    /// Pages read of one list at most (100 items a page): past it the answer says it is partial.
    public static let pageCap = 50
    /// Items asked per page: the most RevenueCat's v2 lists give (larger values are clamped).
    static let pageSize = 100

    public let client: RemoteClient
    public let cachePolicy: CachePolicy
    public let clock: any Clock

    /// Whether a base URL names RevenueCat's API v2: its path is `/v2/projects/PROJECT_ID`.
    public static func isVersion2(_ base: String) -> Bool {
        guard let scheme = base.range(of: "://") else { return false }
        let rest = base[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return false }
        let segments = rest[slash...].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let path = segments.last == "" ? Array(segments.dropLast()) : Array(segments)
        return path.count == 3 && path[0] == "v2" && path[1] == "projects" && !path[2].isEmpty
    }

    static let expectedBaseURL = "end in /v2/projects/PROJECT_ID, as in https://api.revenuecat.com/v2/projects/proj1ab2c3d4"

    public var capabilities: SourceCapabilities { [.history, .renewalCounts] }
    public var remoteBudget: RemoteBudget? { client.budget }

    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        if capability.contains(.grants) || capability.contains(.lifetimeGrants) {
            return "subs sends grants and revokes through RevenueCat's API v1 only: use {flag:--remote https://api.revenuecat.com/v1} with a v1 secret key"
        }
        return "RevenueCat's API v2 does not offer that"
    }

    // MARK: reading

    /// Everything about `id`, or nil when RevenueCat has no such customer (v2 creates none on GET).
    /// `transactions`: also read each App Store and Play Store subscription's store transactions
    /// (one more list per subscription: history and renew-count need them, check does not).
    func fetch(_ customerId: ID, transactions withTransactions: Bool, remarks: inout Remarks) throws -> RevenueCatV2Record? {
        // A history may be told in part (it says so); a status may not: the budget's error ends it.
        let partialAllowed = withTransactions
        // The id names the customer in URLs and the cache; it is compared nowhere here.
        let id = customerId.string
        let customerPath = "/customers/" + RemoteURL.segment(id)
        let answer = try client.get(customerPath + "?expand=attributes", customer: id, cachePolicy: cachePolicy)
        remarks.note(from: answer)
        switch answer.response.status {
        case 200: break
        case 404:
            try requireOwnNotFound(answer)
            return nil
        default: throw failure(answer)
        }
        let customer = try decoded(answer) { try RevenueCatV2Wire.customer($0) }
        let label = "RevenueCat customer '\(id)'"
        remarks.leaveOut(customer.problems, of: label)
        if customer.moreAttributes { remarks.note("\(label) has more attributes than RevenueCat's API v2 answers at once: the first page is shown") }
        let requestDate = answer.cacheAge == nil ? answer.response.header("Date").flatMap(HTTPDate.parse) ?? clock.now() : clock.now()
        var unfinished: [String] = []

        var active = customer.activeEntitlements
        if let cursor = customer.activeEntitlementsCursor {
            let more = try list(customerPath + "/active_entitlements", id: id, what: "active entitlements", after: cursor,
                                partial: partialAllowed, remarks: &remarks, label: label,
                                cost: { Footprint.item(ID.self, strings: [$0.id.string], entries: 0) }) { try RevenueCatV2Wire.activeEntitlements($0, keep: $1) }
            active += more.items
            unfinished += more.unfinished.map { [$0] } ?? []
        }
        let subs = try list(customerPath + "/subscriptions", id: id, what: "subscriptions", partial: partialAllowed,
                            remarks: &remarks, label: label, cost: \.footprint) { try RevenueCatV2Wire.subscriptions($0, keep: $1) }
        unfinished += subs.unfinished.map { [$0] } ?? []
        let buys = try list(customerPath + "/purchases", id: id, what: "one-time purchases", partial: partialAllowed,
                            remarks: &remarks, label: label, cost: \.footprint) { try RevenueCatV2Wire.purchases($0, keep: $1) }
        unfinished += buys.unfinished.map { [$0] } ?? []

        var transactions: [ID: [RevenueCatV2Transaction]] = [:]
        var partial: Set<ID> = []
        var skipped = 0
        for s in subs.items where withTransactions && s.hasStoreTransactions {
            // Once the budget is spent no list is asked for: one sentence says how many were not.
            if client.budget.isSpent {
                skipped += 1
                partial.insert(s.id)
                continue
            }
            let chain = try list("/subscriptions/" + RemoteURL.segment(s.id.string) + "/transactions", id: id,
                                 what: "transactions of subscription \(s.id)", partial: true, remarks: &remarks,
                                 label: label, cost: \.footprint) { try RevenueCatV2Wire.transactions($0, keep: $1) }
            if let reason = chain.unfinished {
                unfinished.append(reason)
                partial.insert(s.id)
            }
            let items = chain.items
            transactions[s.id] = items.indices
                .sorted { a, b in items[a].purchasedAt != items[b].purchasedAt ? items[a].purchasedAt < items[b].purchasedAt : a < b }
                .map { items[$0] }
        }
        if skipped > 0 {
            unfinished.append("the transactions of \(skipped) subscription\(skipped == 1 ? " were" : "s were") not read: "
                              + RemoteError.timeout(url: "", seconds: client.timeout).budgetReason)
        }
        return RevenueCatV2Record(customer: customer, activeEntitlements: active, subscriptions: subs.items, purchases: buys.items,
                                  transactions: transactions, requestDate: requestDate, unfinished: unfinished, partialChains: partial,
                                  fromCache: answer.cacheAge != nil)
    }

    /// Every page of a list from `after` on (nil: the first), each one item malformed left out and
    /// warned about; `unfinished` says why the list stopped before its end (and none of its pages
    /// stays in the cache). At most `cap` pages; once `enough` items are read the next page is not
    /// asked for (a search: see RevenueCatV2Find). `partial`: when the command's budget (time or
    /// bytes) ends the list, what was read is answered, unfinished; otherwise the budget's error
    /// is thrown. Each item kept is counted against the byte budget at its `cost` in memory (the
    /// page's bytes are given back once it is decoded), and the list stops, unfinished, at the
    /// first item that does not fit.
    func list<Item>(_ path: String, id: String, what: String, after: String? = nil, cap: Int = pageCap, enough: Int = .max,
                    partial: Bool, remarks: inout Remarks, label: String, cost: @escaping (Item) -> Int,
                    _ decode: ([UInt8], (Item) -> Bool) throws -> RevenueCatV2Page<Item>) throws -> (items: [Item], unfinished: String?) {
        let budget = client.budget
        var items: [Item] = []
        var cursor = after
        var seen: Set<String> = []
        var stored: [String] = []
        func unfinished(_ reason: String) -> (items: [Item], unfinished: String?) {
            client.forget(stored, customer: id)
            return (items, reason)
        }
        for page in 1...cap {
            let query = (path.contains("?") ? "&" : "?") + "limit=\(Self.pageSize)" + (cursor.map { "&starting_after=" + RemoteURL.segment($0) } ?? "")
            let answer: RemoteAnswer
            do { answer = try client.get(path + query, customer: id, cachePolicy: cachePolicy) } catch let spent as RemoteError
                where partial && spent.isBudgetSpent {
                return unfinished(page == 1 ? "its \(what) were not read: \(spent.budgetReason)"
                                  : "its \(what) were read for \(page - 1) page\(page == 2 ? "" : "s") only: \(spent.budgetReason)")
            }
            if answer.cacheAge == nil { stored.append(path + query) }
            // A page from the cache says so (its age), like the customer's answer.
            remarks.note(from: answer)
            switch answer.response.status {
            case 200: break
            case 404:
                try requireOwnNotFound(answer)
                throw failure(answer)
            default: throw failure(answer)
            }
            let decoded = try decoded(answer) { bytes in try decode(bytes) { budget.keep(cost($0)) } }
            budget.release(answer.heldBytes)
            remarks.leaveOut(decoded.problems, of: label)
            items += decoded.items
            if decoded.stopped {
                let full = budget.boundReached(url: answer.url)
                guard partial else { throw full }
                return unfinished("its \(what) were read for \(page) page\(page == 1 ? "" : "s") in part only: \(full.budgetReason)")
            }
            guard let next = decoded.nextCursor, items.count < enough else { return (items, nil) }
            guard seen.insert(next).inserted, next != cursor else {
                return unfinished("RevenueCat answered the same page of its \(what) twice, so subs stopped reading it")
            }
            cursor = next
        }
        return unfinished("its \(what) were read for \(cap) pages only (subs reads at most \(cap) pages "
                          + "of \(Self.pageSize) items of a list)")
    }

    public func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        var remarks = Remarks()
        var requestDate: Instant?
        let batch = try BudgetedBatch.each(ids, budget: client.budget) { id -> CustomerStatus? in
            guard let r = try fetch(id, transactions: false, remarks: &remarks) else { return nil }
            requestDate = requestDate ?? r.requestDate
            for reason in r.unfinished { remarks.note("\(id): \(reason)") }
            var status = RevenueCatV2Mapping.status(r, requestedId: id, at: t ?? r.requestDate, projected: t != nil)
            if r.fromCache && t == nil { status.entitlements = status.entitlements.map { $0.judgedFromCache(at: r.requestDate) } }
            return status
        }
        if let t, requestDate != nil {
            remarks.note(Self.projectionNote(t))
        }
        return StatusAnswer(requestDate: t ?? requestDate ?? clock.now(), statuses: batch.answers.map { $0 ?? nil }, remarks: remarks,
                            unanswered: batch.unanswered)
    }

    /// Statuses with each App Store and Play Store chain's renewal count (its transactions after
    /// the first), incomplete when a list was not read to its end.
    public func renewalCounts(of id: ID, at t: Instant?) throws -> StatusAnswer {
        var remarks = Remarks()
        guard let r = try fetch(id, transactions: true, remarks: &remarks) else {
            return StatusAnswer(requestDate: t ?? clock.now(), statuses: [nil], remarks: remarks)
        }
        var status = RevenueCatV2Mapping.status(r, requestedId: id, at: t ?? r.requestDate, projected: t != nil)
        if r.fromCache && t == nil { status.entitlements = status.entitlements.map { $0.judgedFromCache(at: r.requestDate) } }
        if let t { remarks.note(Self.projectionNote(t)) }
        let reason = r.unfinished.isEmpty ? nil : "RevenueCat's API v2: " + r.unfinished.joined(separator: "; ")
        return StatusAnswer(requestDate: t ?? r.requestDate, statuses: [status], remarks: remarks,
                            complete: reason == nil, incompleteReason: reason)
    }

    public func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        var remarks = Remarks()
        guard let r = try fetch(id, transactions: true, remarks: &remarks) else { return nil }
        let at = t ?? r.requestDate
        return HistoryAnswer(requestDate: at, customerId: r.customer.id, provider: "revenuecat",
                             entries: RevenueCatV2Mapping.history(r, until: until ?? at), complete: false,
                             incompleteReason: RevenueCatV2Mapping.incompleteReason(r), remarks: remarks)
    }

    static func projectionNote(_ t: Instant) -> String {
        "RevenueCat's API v2 answers the current record only: it was projected to \(ISODate.format(t)), not replayed from history"
    }

    public func customerIds() throws -> [ID] {
        throw NotOffered("subs does not list every customer of a RevenueCat project")
    }

    public func entitlementIds() throws -> [ID] {
        throw NotOffered("subs does not read RevenueCat's entitlement catalog")
    }

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer {
        throw NotOffered(whyNotOffered(.grants))
    }

    // MARK: answers

    /// A 404 is RevenueCat's own only with its error JSON; a page or an empty body comes from
    /// somewhere that is not RevenueCat's API v2. A project RevenueCat does not know is a base URL
    /// naming the wrong project, never a missing customer.
    private func requireOwnNotFound(_ answer: RemoteAnswer) throws {
        guard let error = RevenueCatV2Wire.error(answer.response.body) else {
            throw WrongBaseURL(url: answer.url, why: "and a body that is not RevenueCat's error JSON", expected: Self.expectedBaseURL)
        }
        if error.param == "project_id" {
            throw WrongBaseURL(url: answer.url, why: "(RevenueCat: \(error.message ?? "project not found"))",
                               expected: "name a project of this key: " + Self.expectedBaseURL)
        }
    }

    private func decoded<T>(_ answer: RemoteAnswer, _ decode: ([UInt8]) throws -> T) throws -> T {
        do { return try decode(answer.response.body) } catch {
            throw RemoteError.protocolError(url: answer.url, reason: "\(error)")
        }
    }

    /// The error for a status that is not the answer asked for, with RevenueCat's `type` and `message`.
    private func failure(_ answer: RemoteAnswer) -> Error {
        let status = answer.response.status
        let error = RevenueCatV2Wire.error(answer.response.body)
        switch status {
        case 404 where error == nil:
            return WrongBaseURL(url: answer.url, why: "and a body that is not RevenueCat's error JSON", expected: Self.expectedBaseURL)
        case 404: return RevenueCatError.notFound(url: answer.url, code: error?.type, message: error?.message)
        case 423: return RemoteError.unavailable(url: answer.url, reason: "HTTP 423: \(error?.message ?? "the customer is locked")", attempts: 1)
        case 400..<500: return RevenueCatError.rejected(url: answer.url, status: status, code: error?.type, message: error?.message)
        default: return RemoteError.protocolError(url: answer.url, reason: "unexpected HTTP status \(status)")
        }
    }
}
