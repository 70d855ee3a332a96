// Provider `qonversion` against REST API v4 (`--remote https://api.qonversion.io/v4`, SPEC
// section 6): identities and user entitlements as in v3 with v4's names, grant and revoke, and a
// user's purchase history (`GET /users/{user_id}/purchases`, cursor pages) for `history` and
// `renew-count`. Every v4 endpoint needs the secret key.

import SubsJSON
import SubsModel
import SubsRemote
import SubsSource

public struct QonversionV4Source: CustomerSource {
    /// At most this many pages of a list are read (100 purchases a page asked, fewer when the API
    /// caps the page): past it the answer is incomplete and says so.
    public static let pageCap = 50
    /// The page size asked (v4's maximum); the API may answer fewer, and `has_more` is followed.
    public static let pageLimit = 100

    /// Whether `--remote` names API v4: its last path segment is `v4`.
    public static func isV4(_ url: RemoteURL) -> Bool {
        url.base.split(separator: "/").last.map { $0.lowercased() == "v4" } ?? false
    }

    /// Qonversion's secret keys: `sk_…`, sandbox `test_sk_…`; project keys have no such prefix.
    public static func isSecretKey(_ key: APIKey?) -> Bool {
        guard let key else { return false }
        return key.hasPrefix("sk_") || key.hasPrefix("test_sk_")
    }

    let v3: QonversionSource
    public var client: RemoteClient { v3.client }
    public var cachePolicy: CachePolicy { v3.cachePolicy }
    public var clock: any Clock { v3.clock }
    /// Answers to a sandbox key (`test_sk_…`) are sandbox data.
    let sandbox: Bool
    let pageCap: Int

    public init(client: RemoteClient, cachePolicy: CachePolicy, clock: any Clock, pageCap: Int = QonversionV4Source.pageCap) {
        v3 = QonversionSource(client: client, cachePolicy: cachePolicy, clock: clock)
        sandbox = client.endpoint.apiKey?.hasPrefix("test_sk_") ?? false
        self.pageCap = max(1, pageCap)
    }

    public var capabilities: SourceCapabilities { [.history, .renewalCounts, .grants, .lifetimeGrants] }
    public var remoteBudget: RemoteBudget? { client.budget }

    public func whyNotOffered(_ capability: SourceCapabilities) -> String {
        switch capability {
        case .dryRun: return "Qonversion's API v4 has no dry run; nothing was sent"
        case .batchWrites: return "Qonversion's API v4 changes one user per request, so a batch could not be all or nothing; "
            + "name one USER per grant or revoke"
        default: return "Qonversion's API v4 does not offer that"
        }
    }

    /// Checked before anything is sent: a project key would only meet 401/403.
    func requireSecretKey() throws {
        guard Self.isSecretKey(client.endpoint.apiKey) else {
            throw QonversionError.v4NeedsSecretKey(url: RemoteURL.display(client.endpoint.url.base))
        }
    }

    // MARK: reading

    public func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        try requireSecretKey()
        return try v3.statuses(of: ids, at: t, projectionNote: Self.projectionNote, entitlements: { user, remarks in
            try entitlements(of: user.userId, remarks: &remarks)
        }, spending: { user, at, remarks in
            // `totalSpent` needs the purchase listing: one more request a page (within the budget,
            // read in part when it runs out). A listing that fails otherwise costs the customer
            // its totalSpent (null, said on stderr), never its entitlements.
            do {
                return try purchases(of: user.userId, remarks: &remarks).map {
                    QonversionPurchaseHistory.spending($0.list, sandbox: sandbox, at: at, listingIncomplete: $0.incompleteReason)
                }
            } catch let error as RemoteError where !error.isBudgetSpent {
                remarks.warn("Qonversion user '\(user.userId)': the purchase listing could not be read (\(error)); totalSpent is null")
                return nil
            } catch let error as QonversionError {
                remarks.warn("Qonversion user '\(user.userId)': the purchase listing could not be read (\(error)); totalSpent is null")
                return nil
            }
        })
    }

    static func projectionNote(_ t: Instant) -> String {
        "Qonversion's API v4 answers the current entitlements only; they were projected to \(ISODate.format(t)) "
            + "(active when started_at ≤ T < expires_at)"
    }

    public func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        try requireSecretKey()
        var remarks = Remarks()
        guard let user = try resolve(id, remarks: &remarks), let answer = try entitlements(of: user.userId, remarks: &remarks),
              let purchases = try purchases(of: user.userId, remarks: &remarks) else { return nil }
        let at = t ?? answer.requestDate
        return HistoryAnswer(
            requestDate: at, customerId: id, provider: "qonversion",
            entries: QonversionPurchaseHistory.entries(purchases.list, entitlements: answer.list, sandbox: sandbox,
                                                       until: until ?? at),
            complete: purchases.incompleteReason == nil, incompleteReason: purchases.incompleteReason, remarks: remarks)
    }

    public func renewalCounts(of id: ID, at t: Instant?) throws -> StatusAnswer {
        try requireSecretKey()
        var remarks = Remarks()
        guard let user = try resolve(id, remarks: &remarks), let answer = try entitlements(of: user.userId, remarks: &remarks),
              let purchases = try purchases(of: user.userId, remarks: &remarks) else {
            return StatusAnswer(requestDate: t ?? clock.now(), statuses: [nil], remarks: remarks)
        }
        var status = QonversionSource.status(id, user, answer, at: t)
        let counts = QonversionPurchaseHistory.renewsCounts(purchases.list, entitlements: answer.list,
                                                            until: t ?? answer.requestDate)
        for i in status.entitlements.indices { status.entitlements[i].renewsCount = counts[status.entitlements[i].id] ?? nil }
        if let t { remarks.note(Self.projectionNote(t)) }
        return StatusAnswer(requestDate: status.requestDate, statuses: [status], remarks: remarks,
                            complete: purchases.incompleteReason == nil, incompleteReason: purchases.incompleteReason)
    }

    public func customerIds() throws -> [ID] {
        throw NotOffered("Qonversion's API v4 does not list users for completion")
    }

    public func entitlementIds() throws -> [ID] {
        throw NotOffered("subs does not read Qonversion's entitlement definitions")
    }

    func resolve(_ id: ID, remarks: inout Remarks) throws -> QonversionUser? {
        try v3.resolve(id, cachePolicy: cachePolicy, remarks: &remarks)
    }

    /// Every page of the user's entitlements; nil for an unknown user.
    func entitlements(of userId: String, policy: CachePolicy? = nil, remarks: inout Remarks) throws -> QonversionSource.EntitlementsAnswer? {
        let path = "/users/" + RemoteURL.segment(userId) + "/entitlements"
        guard let read = try pages(path, userId: userId, policy: policy ?? cachePolicy, remarks: &remarks,
                                   cost: \.footprint, decode: QonversionV4Wire.entitlementsPage) else {
            return nil
        }
        // Entitlements are few: a listing past the page cap is a server that never ends.
        if let reason = read.incompleteReason { remarks.note("user entitlements: " + reason) }
        return QonversionSource.EntitlementsAnswer(list: read.list, requestDate: read.requestDate, fromCache: read.fromCache)
    }

    /// Every page of the user's purchases (newest first, as listed) that the command's budget
    /// lets it read, incomplete past it; nil for an unknown user.
    func purchases(of userId: String, remarks: inout Remarks) throws -> PagedList<QonversionPurchase>? {
        try pages("/users/" + RemoteURL.segment(userId) + "/purchases", userId: userId, policy: cachePolicy, partial: true,
                  remarks: &remarks, cost: \.footprint, decode: QonversionV4Wire.purchasesPage)
    }

    struct PagedList<Item> {
        var list: [Item]
        var requestDate: Instant
        var fromCache: Bool
        /// nil when every page was read.
        var incompleteReason: String?
    }

    /// Follows `has_more` from page to page (`starting_after` = the last id of the previous page)
    /// within the command's budget, up to `pageCap` pages. nil when the first page is a 404.
    /// Items left out as malformed are warnings. `partial`: when the budget (time or bytes) ends
    /// the listing, what was read is answered, incomplete (and none of its pages stays cached);
    /// otherwise the budget's error is thrown. What is kept of each page is its items, each
    /// counted against the byte budget at its `cost` in memory (the page's bytes are given back
    /// once it is decoded): the listing stops at the item that does not fit, even mid-page.
    func pages<Item>(_ path: String, userId: String, policy: CachePolicy, partial: Bool = false, remarks: inout Remarks,
                     cost: @escaping (Item) -> Int,
                     decode: ([UInt8], (Item) -> Bool) throws(WireFormatError) -> QonversionPage<Item>) throws -> PagedList<Item>? {
        let budget = client.budget
        var list: [Item] = []
        var cursor: String?
        var cursors: Set<String> = []
        var first: (date: Instant, fromCache: Bool)?
        var stored: [String] = []
        for page in 1...pageCap {
            let query = "?limit=\(Self.pageLimit)" + (cursor.map { "&starting_after=" + RemoteURL.segment($0) } ?? "")
            let answer: RemoteAnswer
            do { answer = try client.get(path + query, customer: userId, cachePolicy: policy) } catch let spent as RemoteError
                where partial && spent.isBudgetSpent {
                client.forget(stored, customer: userId)
                let read = page == 1 ? "Qonversion's API v4 listing was not read"
                    : "Qonversion's API v4 listing was read for \(page - 1) page\(page == 2 ? "" : "s") (the newest \(list.count) items)"
                return PagedList(list: list, requestDate: first?.date ?? clock.now(), fromCache: first?.fromCache ?? false,
                                 incompleteReason: read + ": " + spent.budgetReason + ", so older ones are not shown")
            }
            if answer.cacheAge == nil { stored.append(path + query) }
            remarks.note(from: answer)
            switch answer.response.status {
            case 200: break
            case 404 where page == 1:
                try v3.requireOwnNotFound(answer)
                return nil
            default: throw v3.failure(answer)
            }
            let decoded = try v3.decoded(answer) { bytes in try decode(bytes) { budget.keep(cost($0)) } }
            budget.release(answer.heldBytes)
            remarks.leaveOut(decoded.problems, of: "Qonversion user '\(userId)', page \(page)")
            list += decoded.items
            if first == nil { first = (v3.requestDate(answer), answer.cacheAge != nil) }
            if decoded.stopped {
                // What is kept reached the byte bound: the rest of this page and the older pages are not read.
                let full = budget.boundReached(url: answer.url)
                guard partial else { throw full }
                client.forget(stored, customer: userId)
                return PagedList(list: list, requestDate: first!.date, fromCache: first!.fromCache,
                                 incompleteReason: "Qonversion's API v4 listing was read for \(page) page\(page == 1 ? "" : "s") "
                                    + "in part (the newest \(list.count) items): \(full.budgetReason), so older ones are not shown")
            }
            guard decoded.hasMore else {
                return PagedList(list: list, requestDate: first!.date, fromCache: first!.fromCache, incompleteReason: nil)
            }
            // A server that says "more" without a way to ask for it, or sends a cursor again, lies.
            guard let next = decoded.lastId ?? decoded.nextCursor, decoded.count > 0, cursors.insert(next).inserted else {
                throw RemoteError.protocolError(url: answer.url, reason: decoded.count == 0
                    ? "has_more is true on an empty page" : "has_more is true but the page gives no new cursor")
            }
            cursor = next
        }
        client.forget(stored, customer: userId)
        return PagedList(list: list, requestDate: first!.date, fromCache: first!.fromCache,
                         incompleteReason: "Qonversion's API v4 listed more than \(pageCap) pages; subs read the newest "
                            + "\(list.count) items and stopped there, so older ones are not shown")
    }

    // MARK: writing

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer {
        try requireSecretKey()
        return try QonversionWriter(source: v3, api: .v4(self)).apply(change, to: ids, now: now, at: t)
    }
}

extension APIKey {
    /// Whether the key starts with `prefix` (a provider's key kind); the key itself never leaves.
    public func hasPrefix(_ prefix: String) -> Bool {
        headerValue(APIKeyScheme(header: "", prefix: "")).hasPrefix(prefix)
    }
}
