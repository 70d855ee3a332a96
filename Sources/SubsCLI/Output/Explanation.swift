// The plain sentences under a `check` table: why an entitlement is not simply active and
// renewing, with dates — what a support person would tell the customer.

import SubsKit

enum Explanation {
    static func sentences(for status: CustomerStatus, catalog: Catalog) -> [String] {
        status.entitlements.compactMap { sentence(for: $0, catalog: catalog) }
    }

    static func sentence(for e: EntitlementInfo, catalog: Catalog) -> String? {
        guard let why = reason(e, catalog: catalog) else { return nil }
        return "\(e.id): \(why)"
    }

    private static func day(_ instant: Instant?) -> String {
        instant.map(ISODate.formatDay) ?? "?"
    }

    private static func reason(_ e: EntitlementInfo, catalog: Catalog) -> String? {
        switch e.sourceKind {
        case .grant: return grantReason(e)
        case .purchase:
            if e.state == .revoked { return "refunded on \(day(e.revokedAt))" }
            return "one-time purchase of \(e.productId ?? "?") on \(day(e.lastPurchaseDate)), no expiration"
        case .chain: return chainReason(e, catalog: catalog)
        }
    }

    private static func grantReason(_ e: EntitlementInfo) -> String {
        var who = "manual grant"
        if let by = e.grantedBy { who += " by \(by)" }
        if let reason = e.grantReason { who += " (\(reason))" }
        switch e.state {
        case .revoked: return "\(who), revoked on \(day(e.revokedAt))"
        case .expired: return "\(who), expired on \(day(e.expirationDate))"
        default:
            return e.expirationDate.map { "\(who), until \(day($0))" } ?? "\(who), lifetime"
        }
    }

    private static func chainReason(_ e: EntitlementInfo, catalog: Catalog) -> String? {
        switch e.state {
        case .revoked:
            return "refunded on \(day(e.revokedAt))"
        case .gracePeriod:
            return "in grace period — billing issue detected \(day(e.billingIssueDetectedAt)); access ends \(day(e.gracePeriodExpirationDate)) unless payment recovers"
        case .billingRetry:
            let retryEnd = e.productId.flatMap { catalog[$0] }.flatMap { product in
                e.expirationDate.flatMap { $0.adding(product.billingRetryPeriod) }
            }
            let until = retryEnd.map { "; the store retries the payment until \(day($0))" } ?? ""
            return "billing retry — billing issue detected \(day(e.billingIssueDetectedAt)), access lost on \(day(e.expirationDate))\(until)"
        case .paused:
            return "paused until \(day(e.autoResumeDate))"
        case .expired:
            if let issue = e.billingIssueDetectedAt {
                return "expired on \(day(e.expirationDate)) after a billing issue detected \(day(issue))"
            }
            if let off = e.autoRenewDisableDate {
                return "cancelled on \(day(off)), expired on \(day(e.expirationDate))"
            }
            return "expired on \(day(e.expirationDate))"
        case .active:
            if e.renewState == .billingIssue {
                return "billing issue detected \(day(e.billingIssueDetectedAt)); active until \(day(e.expirationDate)), renewal at risk"
            }
            if e.renewState == .canceled {
                return "cancelled on \(day(e.autoRenewDisableDate)), active until \(day(e.expirationDate))"
            }
            if let resume = e.autoResumeDate {
                return "pause scheduled from \(day(e.expirationDate)) until \(day(resume))"
            }
            if let next = e.renewalProductId {
                return "switches to \(next) at the next renewal (\(day(e.expirationDate)))"
            }
            return nil
        }
    }
}
