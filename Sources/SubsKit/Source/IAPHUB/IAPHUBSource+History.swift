// `history` and `renew-count` for provider `iaphub`: the user answer (who the user is, which
// product describes each entitlement, the server's date) and every page of IAPHUB's purchase
// listing for that user, `GET {remote}/purchases?userId=…&environment=…&page=N&limit=100&order=asc`,
// within the command's one --timeout budget (RemoteBudget) and up to `pageCap` pages (paced under IAPHUB's 5 requests a second
// by the transport).

extension IAPHUBSource {
    /// At most this many pages of 100 purchases are read: past it the answer says it is incomplete.
    public static let pageCap = 20
    /// The page size asked: IAPHUB's maximum.
    public static let pageSize = 100

    public func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        var remarks = Remarks()
        guard let user = try user(id, at: t, remarks: &remarks) else { return nil }
        let listing = try purchases(of: id.string, remarks: &remarks)
        let at = t ?? user.served
        let reason = [listing.unfinished, IAPHUBPurchaseHistory.untold(listing.purchases)].compactMap { $0 }
        return HistoryAnswer(
            requestDate: at, customerId: id, provider: "iaphub",
            entries: IAPHUBPurchaseHistory.entries(listing.purchases, sandbox: environment != "production", until: until ?? at),
            complete: reason.isEmpty, incompleteReason: reason.isEmpty ? nil : reason.joined(separator: "; "),
            remarks: remarks)
    }

    public func renewalCounts(of id: ID, at t: Instant?) throws -> StatusAnswer {
        var remarks = Remarks()
        guard let user = try user(id, at: t, remarks: &remarks) else {
            return StatusAnswer(requestDate: t ?? clock.now(), statuses: [nil], remarks: remarks)
        }
        let listing = try purchases(of: id.string, remarks: &remarks)
        var status = user.status
        let counts = IAPHUBPurchaseHistory.renewsCounts(listing.purchases, products: Self.chosenProducts(user.answer),
                                                        until: t ?? user.served)
        for i in status.entitlements.indices { status.entitlements[i].renewsCount = counts[status.entitlements[i].id] ?? nil }
        if let t { remarks.note(Self.projectionNote(t)) }
        let reason = [listing.unfinished, IAPHUBPurchaseHistory.untold(listing.purchases)].compactMap { $0 }
        return StatusAnswer(requestDate: status.requestDate, statuses: [status], remarks: remarks,
                            complete: reason.isEmpty, incompleteReason: reason.isEmpty ? nil : reason.joined(separator: "; "))
    }

    /// Every page of the user's purchases, oldest first on the wire (`order=asc`), one malformed
    /// purchase left out and warned about; `unfinished` says why the listing stopped before its end
    /// (then none of its pages stays in the cache). The user was read: when the command's budget
    /// (time or bytes) ends the listing, even at its first page, what was read is answered.
    func purchases(of id: String, remarks: inout Remarks) throws -> (purchases: [IAPHUBPurchase], unfinished: String?) {
        var purchases: [IAPHUBPurchase] = []
        var stored: [String] = []
        for page in 1...Self.pageCap {
            let path = "/purchases?userId=" + RemoteURL.segment(id) + "&environment=" + RemoteURL.segment(environment)
                + "&page=\(page)&limit=\(Self.pageSize)&order=asc"
            let answer: RemoteAnswer
            do { answer = try get(path, customer: id, remarks: &remarks) } catch let spent as RemoteError where spent.isBudgetSpent {
                client.forget(stored, customer: id)
                let read = page == 1 ? "IAPHUB's purchase listing was not read"
                    : "IAPHUB's purchase listing was read for \(page - 1) page\(page == 2 ? "" : "s") only"
                return (purchases, read + ": " + spent.budgetReason + ", so newer purchases are not shown")
            }
            if answer.cacheAge == nil { stored.append(path) }
            // The user was just found: IAPHUB's own 404 here is no answer about them.
            if answer.response.status == 404 { throw answer.unexpectedStatusError() }
            let decoded: IAPHUBPurchasePage
            let budget = client.budget
            do { decoded = try IAPHUBPurchasePage.decode(answer.response.body) { budget.keep($0.footprint) } } catch {
                throw RemoteError.protocolError(url: answer.url, reason: "\(error)")
            }
            // The page is kept as its purchases, each counted at its cost in memory.
            budget.release(answer.heldBytes)
            remarks.leaveOut(decoded.problems, of: "IAPHUB purchases of user '\(id)', page \(page)")
            purchases += decoded.purchases
            if decoded.stopped {
                client.forget(stored, customer: id)
                return (purchases, "IAPHUB's purchase listing was read for \(page) page\(page == 1 ? "" : "s") in part: "
                        + budget.boundReached(url: answer.url).budgetReason + ", so newer purchases are not shown")
            }
            guard decoded.hasNextPage else { return (purchases, nil) }
            // A server that says "more" after an empty page would be followed for nothing.
            guard decoded.count > 0 else {
                throw RemoteError.protocolError(url: answer.url, reason: "hasNextPage is true on an empty page")
            }
        }
        client.forget(stored, customer: id)
        return (purchases, "IAPHUB's purchase listing has more than \(Self.pageCap) pages of \(Self.pageSize); subs read the oldest "
                + "\(purchases.count) purchases and stopped there, so newer ones are not shown")
    }
}
