// The plain sentences under a `check` table: why an entitlement is not simply active and
// renewing, with dates — what a support person would tell the customer — then what else is
// worth knowing (a free trial, sandbox, family sharing, an offer code) and every other active
// source, so "why am I still being charged?" is answered here. Words from `Wording`.

import SubsModel

enum Explanation {
    static func sentence(for e: EntitlementInfo) -> String? {
        var parts: [String] = []
        if let why = reason(e) {
            parts.append(why)
        } else if e.isActive && e.willRenew && (e.periodType == .trial || !extras(e).isEmpty || !e.otherActiveSources.isEmpty) {
            // Simply renewing, but with something to say: the renewal date opens the sentence.
            parts.append(e.periodType == .trial ? "free trial, first payment due \(day(e.expirationDate))"
                                                : "renews \(day(e.expirationDate))")
        }
        guard !parts.isEmpty || !extras(e).isEmpty || !e.otherActiveSources.isEmpty else { return nil }
        parts += extras(e)
        parts += e.otherActiveSources.map(Wording.other)
        return "\(e.id): " + parts.joined(separator: "; ")
    }

    /// How the customer holds it, when that is not a plain purchase in production.
    private static func extras(_ e: EntitlementInfo) -> [String] {
        var extras: [String] = []
        if e.grantType == .familySharing && e.state != .revoked { extras.append("shared through family sharing") }
        if let code = e.lastActivatedOfferCode { extras.append("offer code \(code)") }
        if e.isSandbox { extras.append("sandbox purchase (a test, no money was charged)") }
        return extras
    }

    private static func day(_ instant: Instant?) -> String {
        Wording.day(instant)
    }

    /// " WORDS 2026-03-01", or nothing when a provider does not tell the date (Qonversion v3).
    private static func dated(_ words: String, _ instant: Instant?) -> String {
        instant.map { " \(words) \(day($0))" } ?? ""
    }

    private static func reason(_ e: EntitlementInfo) -> String? {
        // A platform's record projected to a date before its first purchase: nothing yet.
        if let start = e.projectedBeforeStart {
            return "not bought yet at that date — first purchase \(day(start)) (a projection of the current record)"
        }
        switch e.sourceKind {
        case .grant: return grantReason(e)
        case .purchase:
            if e.state == .revoked { return refundReason(e) }
            return "one-time purchase of \(e.productId ?? "?")\(dated("on", e.lastPurchaseDate)), no expiration"
        case .chain: return chainReason(e)
        }
    }

    private static func grantReason(_ e: EntitlementInfo) -> String {
        var who = "manual grant"
        if let by = e.grantedBy { who += " by \(by)" }
        if let reason = e.grantReason { who += " (\(reason))" }
        switch e.state {
        case .revoked:
            var revoked = "\(who), revoked on \(day(e.revokedAt))"
            if let by = e.revokedBy { revoked += " by \(by)" }
            if let reason = e.revokeReason { revoked += " (\(reason))" }
            return revoked
        case .expired: return "\(who), expired on \(day(e.expirationDate))"
        default:
            return e.expirationDate.map { "\(who), until \(day($0))" } ?? "\(who), lifetime"
        }
    }

    /// Which transaction was taken back and how: a family-sharing withdrawal is no refund.
    private static func refundReason(_ e: EntitlementInfo) -> String {
        let refunded = periodTransaction(e)
        if !e.isRefund {
            return "family-sharing access withdrawn on \(day(e.revokedAt))"
        }
        guard e.sourceKind == .chain, let refunded else { return "refunded on \(day(e.revokedAt))" }
        let what: String
        switch refunded.type {
        case .subscriptionRenewed, .introRenewed: what = "renewal"
        case .trialStarted: what = "trial"
        default: what = "purchase"
        }
        return "\(what) of \(day(refunded.transactionDate)) refunded on \(day(e.revokedAt))"
    }

    /// P, the transaction of the period in force (the latest one the entitlement lists).
    private static func periodTransaction(_ e: EntitlementInfo) -> Transaction? {
        e.transactions.last { $0.transactionDate == e.lastPurchaseDate }
    }

    /// "billing issue detected DAY", or what is known without the day (vendors that do not say it).
    private static func billingIssue(_ e: EntitlementInfo) -> String {
        e.billingIssueDetectedAt.map { "billing issue detected \(day($0))" } ?? "a renewal payment failed"
    }

    private static func chainReason(_ e: EntitlementInfo) -> String? {
        switch e.state {
        case .revoked:
            return refundReason(e)
        case .gracePeriod:
            return "in grace period — \(billingIssue(e)); access ends \(day(e.accessEndDate)) unless payment recovers"
        case .billingRetry:
            let until = e.billingRetryEndDate.map { "; the store retries the payment until \(day($0))" } ?? ""
            return "billing retry — \(billingIssue(e)), access lost on \(day(e.accessEndDate))\(until)"
        case .paused:
            // Access stopped at the end of the paid period (UNTIL); the pause runs to its resume
            // date. Vendors (IAPHUB) may report a pause without either.
            let from = e.accessEndDate.map { " from \(day($0))" } ?? ""
            return e.autoResumeDate.map { "paused\(from) until \(day($0))" } ?? "paused\(from), no resume date known"
        case .unknown:
            return "state not known to this version of subs (\(e.productId ?? "?")); treated as inactive"
        case .expired:
            if let issue = e.billingIssueDetectedAt {
                return "expired on \(day(e.expirationDate)) after a billing issue detected \(day(issue))"
            }
            if let resume = e.lapsedPauseResumeDate {
                return "paused \(day(e.expirationDate)) → \(day(resume)), not resumed"
            }
            if let off = e.autoRenewDisableDate {
                return "cancelled on \(day(off)), expired on \(day(e.expirationDate))"
            }
            if e.renewState == .billingIssue { return "expired\(dated("on", e.expirationDate)) after a billing issue" }
            if e.periodType == .prepaid { return "prepaid plan, ended\(dated("on", e.expirationDate)); it does not renew by itself" }
            return "expired\(dated("on", e.expirationDate))"
        case .active:
            // Google Play prepaid: paid up front for one period, topped up by hand, never renewed.
            if e.periodType == .prepaid {
                return "prepaid plan, ends \(day(e.expirationDate)); it does not renew by itself"
            }
            if e.renewState == .billingIssue {
                return "billing issue detected \(day(e.billingIssueDetectedAt)); active until \(day(e.expirationDate)), renewal at risk"
            }
            if e.renewState == .canceled {
                // Vendors (IAPHUB) say auto-renew is off without saying since when.
                let when = e.autoRenewDisableDate.map { "cancelled on \(day($0))" } ?? "cancelled (auto-renew off)"
                return "\(when), active until \(day(e.expirationDate))"
            }
            if let resume = e.autoResumeDate {
                return "pause scheduled from \(day(e.expirationDate)) until \(day(resume))"
            }
            // A subscription that ends on its date (a non-renewing one, or a store that says so).
            if e.renewState == .nonRenewable, let end = e.expirationDate {
                return "does not renew; active until \(day(end))"
            }
            if let next = e.renewalProductId {
                if !e.willRenew {
                    return "ends \(day(e.expirationDate)) — renews as \(next), which does not include \(e.id)"
                }
                return "switches to \(next) at the next renewal (\(day(e.expirationDate)))"
            }
            return nil
        }
    }
}
