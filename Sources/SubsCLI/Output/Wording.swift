// The words subs uses for people, in one place: `check`'s cells and sentences (Explanation) and
// `history`'s timeline (Timeline) both speak this vocabulary, so a support agent reads the same
// word for the same thing everywhere — "grace period", "won't renew", "refunded" — never an API
// word such as `gracePeriod` or `nonRenewable`.

import SubsModel

enum Wording {
    /// `2026-03-01`: the dates of sentences.
    static func day(_ instant: Instant?) -> String {
        instant.map(ISODate.formatDay) ?? "?"
    }

    /// The store as people name it; nil when unknown.
    static func store(_ source: EntitlementSource) -> String? {
        switch source {
        case .appstore: return "App Store"
        case .playstore: return "Google Play"
        case .stripe: return "Stripe"
        case .amazon: return "Amazon"
        case .manual: return "manual grant"
        case .unknown: return nil
        }
    }

    /// The same for a history entry's `source` field.
    static func store(raw: String?) -> String? {
        // A transaction's source and an entitlement's share their store names.
        raw.flatMap(EntitlementSource.init(rawValue:)).flatMap { store($0) }
    }

    /// `pro_yearly (App Store)`, or the product alone when the store is not known.
    static func product(_ productId: ID?, _ source: EntitlementSource, extras: [String] = []) -> String {
        let details = ([store(source)].compactMap { $0 } + extras).joined(separator: ", ")
        let name = productId?.string ?? "?"
        return details.isEmpty ? name : "\(name) (\(details))"
    }

    /// A refund or a family-sharing withdrawal, as people say it.
    static func takenBack(familySharing: Bool) -> String {
        familySharing ? "access withdrawn" : "refunded"
    }

    /// The STATUS cell of `check`: the state, and for an active entitlement what happens at
    /// the end of the period — always the same story as the sentence under the table.
    static func status(_ e: EntitlementInfo) -> String {
        switch e.state {
        case .gracePeriod: return "grace period"
        case .billingRetry: return "billing retry"
        case .paused: return "paused"
        case .expired: return "expired"
        case .unknown: return "unknown"
        case .revoked:
            if e.sourceKind == .grant { return "revoked" }
            return takenBack(familySharing: !e.isRefund)
        case .active:
            return "active, " + renewal(e)
        }
    }

    /// What happens to an active entitlement at the end of its period.
    static func renewal(_ e: EntitlementInfo) -> String {
        if e.expirationDate == nil { return "lifetime" }
        if e.willRenew { return "renews" }
        switch e.renewState {
        case .billingIssue: return "billing issue"
        case .willRenew:
            // Auto-renew is on, yet the entitlement does not continue: a pause, or a product change that drops it.
            return e.autoResumeDate != nil ? "pauses" : "won't renew"
        case .unknown: return "renewal unknown"
        case .canceled, .nonRenewable: return "won't renew"
        }
    }

    /// The NOTES cell: what is special about how the customer holds it.
    static func notes(_ e: EntitlementInfo) -> [String] {
        var notes: [String] = []
        switch e.periodType {
        case .trial: notes.append("free trial")
        case .intro: notes.append("intro offer")
        case .promotional where e.sourceKind != .grant: notes.append("promotional")
        default: break
        }
        if e.grantType == .familySharing { notes.append("family sharing") }
        if e.grantType == .offerCode || e.lastActivatedOfferCode != nil {
            notes.append(e.lastActivatedOfferCode.map { "offer code \($0)" } ?? "offer code")
        }
        if e.isSandbox { notes.append("sandbox") }
        if !e.otherActiveSources.isEmpty {
            notes.append(e.otherActiveSources.count == 1 ? "1 more source" : "\(e.otherActiveSources.count) more sources")
        }
        return notes
    }

    /// "also billed by pro_yearly (App Store), renews 2027-01-10": another active source.
    static func other(_ o: OtherActiveSource) -> String {
        let sandbox = o.isSandbox ? ["sandbox"] : []
        switch o.sourceKind {
        case .grant:
            return "also a manual grant" + (o.expirationDate.map { " until \(day($0))" } ?? ", lifetime")
        case .purchase:
            return "also owns \(product(o.productId, o.source, extras: sandbox)), no expiration"
        case .chain:
            let what = product(o.productId, o.source, extras: sandbox)
            if o.willRenew { return "also billed by \(what), renews \(day(o.expirationDate))" }
            switch o.renewState {
            case .billingIssue: return "also \(what), billing issue, access until \(day(o.expirationDate))"
            case .canceled: return "also \(what), auto-renew off, active until \(day(o.expirationDate))"
            default: return "also \(what), active until \(day(o.expirationDate)), won't renew"
            }
        }
    }

    /// "7-day", "1-month", "1-year": the length of a period, for "a 7-day free trial".
    static func length(from start: Instant, to end: Instant?) -> String? {
        guard let end, end > start else { return nil }
        for (unit, make) in [("year", { ISODuration(years: $0) }), ("month", { ISODuration(months: $0) })]
            as [(String, (Int) -> ISODuration)] {
            for n in 1...12 where start.adding(make(n)) == end { return "\(n)-\(unit)" }
        }
        let seconds = end.seconds - start.seconds
        if seconds % 86_400 == 0 { return "\(seconds / 86_400)-day" }
        return nil
    }

    /// `check`'s money line (SPEC section 4, "Money"): "spent USD 59.94 in 6 payments, 1 refunded",
    /// one part per currency, then the payments of unknown price, then what the total leaves out
    /// ("(incomplete: …)"; the payments of unknown price say so themselves); nil when there is
    /// no amount to say (no payments, only payments of unknown price, or the provider cannot
    /// tell: `totalSpent` empty, without an amount, or null — JSON still counts them).
    static func spent(_ spending: Spending) -> String? {
        let totals = spending.totals
        guard totals.contains(where: { $0.amount != nil }) else { return nil }
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        let parts = totals.map { t -> String in
            var part: String
            if let currency = t.currency, let amount = t.amount {
                part = "\(currency) \(CurrencyCode.format(amount, currency))"
                if let payments = t.payments { part += " in " + count(payments, "payment") }
            } else {
                part = t.payments.map { count($0, "payment") + " of unknown price" } ?? "payments of unknown price"
            }
            if let refunded = t.refunded, refunded > 0 { part += ", \(refunded) refunded" }
            return part
        }
        var reasons: [String] = []
        for r in spending.payments.compactMap(\.incompleteReason) + [spending.incompleteReason].compactMap({ $0 })
        where !reasons.contains(r) { reasons.append(r) }
        return "spent " + parts.joined(separator: "; ") + (reasons.isEmpty ? "" : " (incomplete: \(reasons.joined(separator: "; ")))")
    }
}
