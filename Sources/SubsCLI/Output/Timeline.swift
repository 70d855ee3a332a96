// The WHAT HAPPENED column of the history table: one plain sentence per entry, in the words of
// `Wording` ("Renewed pro_yearly (Stripe), paid through 2026-11-12", "Billing issue: payment
// for pro_monthly failed; grace period until 2026-12-12"), and the derived milestone "Access
// ended". Entries say what the records say; lookups across entries (the period a refund took
// back, the product an event's chain was on) only add the dates and names that explain it.

import SubsModel

struct Timeline {
    private let catalog: Catalog?
    /// Transaction entries by transactionId (with their place in their chain), and each chain's
    /// oldest first. Lookups are by index or binary search: a customer with 20 000 renewals
    /// is worded in linear time.
    /// Keyed by the ids' bytes (SPEC section 7): two chains whose ids are only canonically
    /// equivalent are two chains.
    private var byTransaction: [ID: (entry: HistoryEntry, position: Int)] = [:]
    private var byChain: [ID: [HistoryEntry]] = [:]
    /// Each chain's events, oldest first (a renewal after a pause is a resumption).
    private var eventsByChain: [ID: [HistoryEntry]] = [:]

    /// Entries come oldest first (the history's order), so each chain's lists are sorted by date.
    init(_ entries: [HistoryEntry], catalog: Catalog?) {
        self.catalog = catalog
        for entry in entries {
            switch entry.kind {
            case .transaction:
                let chain = entry.id("originalTransactionId")
                if let id = entry.id("transactionId") { byTransaction[id] = (entry, chain.flatMap { byChain[$0]?.count } ?? 0) }
                if let chain { byChain[chain, default: []].append(entry) }
            case .event:
                if let chain = entry.id("originalTransactionId") { eventsByChain[chain, default: []].append(entry) }
            default:
                break
            }
        }
    }

    private func day(_ instant: Instant?) -> String { Wording.day(instant) }

    /// The entry as one sentence.
    func sentence(_ e: HistoryEntry) -> String {
        switch e.kind {
        case .transaction: return transaction(e)
        case .refund: return refund(e)
        case .event: return event(e)
        case .grant: return grant(e)
        }
    }

    /// `pro_monthly (App Store, family sharing, offer code X, sandbox)`.
    private func product(_ e: HistoryEntry) -> String {
        var extras: [String] = []
        if e.text("ownershipType") == OwnershipType.familySharing.rawValue { extras.append("family sharing") }
        if let code = e.text("offerCode"), !code.isEmpty { extras.append("offer code \(code)") }
        if e.text("environment") == PurchaseEnvironment.sandbox.rawValue { extras.append("sandbox") }
        return Wording.product(e.id("productId"), e.text("source").flatMap(EntitlementSource.init(rawValue:)) ?? .unknown,
                               extras: extras)
    }

    private func transaction(_ e: HistoryEntry) -> String {
        let what = product(e)
        let expiration = e.date("expirationDate")
        let through = expiration.map { ", paid through \(day($0))" } ?? ""
        switch TransactionType(rawValue: e.type) {
        case .trialStarted?:
            if let length = Wording.length(from: e.date, to: expiration) { return "Started a \(length) free trial of \(what)" }
            return "Started a free trial of \(what)" + (expiration.map { ", until \(day($0))" } ?? "")
        case .introStarted?: return "Started an intro offer of \(what)\(through)"
        case .introRenewed?: return "Renewed the intro offer of \(what)\(through)"
        case .subscriptionStarted?: return "Subscribed to \(what)\(through)"
        case .subscriptionRenewed?:
            let previous = previousInChain(e)
            if let previous, let chain = e.id("originalTransactionId"), let events = eventsByChain[chain],
               let last = Self.lastIndex(events, atOrBefore: e.date), events[last].date > previous.date,
               events[last].type == EventType.pauseScheduled.rawValue {
                return "Resumed \(what) after the pause\(through)"
            }
            if let from = previous?.id("productId"), from != e.id("productId") {
                return "Renewed as \(what), changed from \(from)\(through)"
            }
            return "Renewed \(what)\(through)"
        case .nonConsumablePurchase?: return "Bought \(what), no expiration"
        case .consumablePurchase?: return "Bought \(what), a consumable (unlocks nothing)"
        case nil: return "\(e.type): \(what)\(through)"
        }
    }

    private func previousInChain(_ e: HistoryEntry) -> HistoryEntry? {
        guard let chain = e.id("originalTransactionId"), let id = e.id("transactionId"),
              let members = byChain[chain], let position = byTransaction[id]?.position,
              position > 0, position < members.count else { return nil }
        return members[position - 1]
    }

    /// The last of `list` (sorted by date) dated at or before `date`.
    private static func lastIndex(_ list: [HistoryEntry], atOrBefore date: Instant) -> Int? {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].date <= date { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    /// Which period was taken back: "(period 2026-04-01 → 2026-05-01)", "(bought 2026-02-14)".
    private func refund(_ e: HistoryEntry) -> String {
        let refunded = e.id("transactionId").flatMap { byTransaction[$0]?.entry }
        let what = e.id("productId") ?? refunded?.id("productId") ?? "?"
        var which = ""
        if let refunded {
            which = refunded.date("expirationDate").map { " (period \(day(refunded.date)) → \(day($0)))" }
                ?? " (bought \(day(refunded.date)))"
        }
        if refunded?.text("ownershipType") == OwnershipType.familySharing.rawValue {
            return "Family-sharing access to \(what) withdrawn\(which)"
        }
        return "Refunded \(what)\(which)"
    }

    /// The chain's transaction in force at the event: its product and its period's end.
    private func period(at e: HistoryEntry) -> HistoryEntry? {
        guard let chain = e.id("originalTransactionId"), let members = byChain[chain] else { return nil }
        return Self.lastIndex(members, atOrBefore: e.date).map { members[$0] }
    }

    private func event(_ e: HistoryEntry) -> String {
        let current = period(at: e)
        let name = current?.id("productId").map { " of \($0)" } ?? ""
        let end = current?.date("expirationDate")
        switch EventType(rawValue: e.type) {
        case .autoRenewDisabled?:
            return "Turned off auto-renew\(name)" + (end.map { "; active until \(day($0))" } ?? "")
        case .autoRenewEnabled?:
            return "Turned auto-renew" + name + " back on"
        case .billingIssue?:
            var text = "Billing issue: payment\(current?.id("productId").map { " for \($0)" } ?? "") failed"
            // The grace period runs from the end of the period whose renewal failed; an issue in
            // the middle of a period (a first charge that failed, then retried) has none to name.
            if let end, e.date >= end, let product = current?.id("productId").flatMap({ catalog?[$0] }) {
                if let grace = product.gracePeriod.flatMap({ end.adding($0) }) {
                    text += "; grace period until \(day(grace))"
                } else if let retry = end.adding(product.billingRetryPeriod) {
                    text += "; no grace period, the store retries until \(day(retry))"
                }
            }
            return text
        case .billingRecovered?:
            return "Billing issue resolved: payment\(current?.id("productId").map { " for \($0)" } ?? "") recovered"
        case .renewalProductChanged?:
            let to = e.id("productId") ?? "?"
            return "Plan change: renews as \(to)" + (end.map { " from \(day($0))" } ?? " at the next renewal")
        case .pauseScheduled?:
            let resume = e.date("autoResumeDate").map { " until \(day($0))" } ?? ""
            return "Scheduled a pause\(name)" + (end.map { " from \(day($0))" } ?? "") + resume
        case .pauseCanceled?:
            return "Cancelled the scheduled pause\(name)"
        case nil:
            return "\(e.type)\(name)"
        }
    }

    private func grant(_ e: HistoryEntry) -> String {
        let entitlement = e.entitlements.strings.joined(separator: ", ")
        if e.type == "revoked" {
            var text = "Revoked the manual grant of \(entitlement)"
            if let by = e.text("revokedBy") { text += " by \(by)" }
            if let reason = e.text("revokeReason") { text += ": \(reason)" }
            return text
        }
        var text = "Granted \(entitlement)" + (e.date("expirationDate").map { " until \(day($0))" } ?? " for life")
        if let by = e.text("grantedBy") { text += " by \(by)" }
        if let reason = e.text("reason") { text += ": \(reason)" }
        return text
    }

    /// The derived milestone: when access ended, and what ended it.
    static func accessEnded(_ end: AccessEnd) -> String {
        switch end.cause {
        case .expired(let product, let autoRenewOff):
            return "Access ended: \(product) expired" + (autoRenewOff ? " (auto-renew was off)" : " without a renewal")
        case .billingIssue(let product):
            return "Access ended: the payment for \(product) was not recovered"
        case .paused(let product, let resumes):
            return "Access ended: \(product) paused" + (resumes.map { " until \(Wording.day($0))" } ?? "")
        case .planChanged(let from, let to):
            return "Access ended: \(from) renewed as \(to), which does not include \(end.entitlement)"
        case .refunded(let product, let familySharing):
            return familySharing ? "Access ended: family-sharing access to \(product) withdrawn"
                                 : "Access ended: \(product) refunded"
        case .grantExpired:
            return "Access ended: the manual grant expired"
        case .grantRevoked(_, let by):
            return "Access ended: the manual grant was revoked" + (by.map { " by \($0)" } ?? "")
        }
    }
}

extension HistoryEntry {
    /// A field that holds an id (transactionId, originalTransactionId, productId), as an id.
    func id(_ key: String) -> ID? { field(key)?.id }

    func text(_ key: String) -> String? {
        if case .string(let value)? = field(key) { return value }
        return nil
    }

    func date(_ key: String) -> Instant? {
        if case .date(let value)? = field(key) { return value }
        return nil
    }
}
