// `--at` on a platform (RevenueCat, Qonversion, IAPHUB): a platform answers for now only, so subs
// projects the current record to T. The one rule every vendor shares lives here: what the answer
// calls access holds only from the record's start until its end, never before its first purchase
// (a projection must not invent access the customer did not have yet) nor at or after its end.

import SubsModel

public enum Projection {
    /// Where the record says the entitlement began: its start, else its first paid purchase,
    /// else its latest purchase (all a vendor may tell, IAPHUB's current period say).
    public static func start(of e: EntitlementInfo) -> Instant? {
        e.startedDate ?? e.firstPurchaseDate ?? e.lastPurchaseDate
    }

    /// `e` as the vendor's mapping evaluated it at T, kept only where it can hold at T: before the
    /// record's start there was nothing yet (inactive, `expired`, and `projectedBeforeStart` says
    /// since when it exists); at or after its end, access is over.
    public static func apply(_ e: inout EntitlementInfo, at t: Instant) {
        if let start = start(of: e), !start.hasHappened(by: t) {
            end(&e)
            e.projectedBeforeStart = start
            return
        }
        if e.isActive, let end = e.expirationDate, t >= end { self.end(&e) }
    }

    /// Every entitlement of a status projected to T, and the status marked as a projection.
    public static func apply(_ status: inout CustomerStatus, at t: Instant) {
        for i in status.entitlements.indices { apply(&status.entitlements[i], at: t) }
        status.requestDate = t
        status.projected = true
    }

    private static func end(_ e: inout EntitlementInfo) {
        e.isActive = false
        e.willRenew = false
        // Revoked and the other inactive states the vendor gave keep their words; only access ends.
        if e.state == .active || e.state == .gracePeriod || e.state == .paused || e.state == .billingRetry {
            e.state = .expired
        }
    }
}

extension Instant {
    /// Whether a vendor's record dated `self` had happened by T. A vendor's clock is its answer's
    /// HTTP `Date` (or `request_date`), whole seconds, while its records may carry milliseconds:
    /// a purchase at 12:00:00.400 in an answer dated 12:00:00 was made before the answer, in the
    /// second the answer names. So T stands for its whole second, as subs prints dates (a record
    /// shown "12:00:00Z" is never left out by `--until 2026-12-01T12:00:00Z`).
    public func hasHappened(by t: Instant) -> Bool {
        seconds <= t.seconds
    }
}
