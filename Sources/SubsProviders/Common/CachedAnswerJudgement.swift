// A cached answer is judged at the local clock, not at the date it was fetched (SPEC section 6,
// client behaviour): a CLI runs on a machine whose clock can be trusted, and an answer days old
// must not keep granting access that has ended since. RevenueCat's SDKs do the same once an
// answer is more than a few days old; subs does it for every cached answer.

import SubsModel

extension EntitlementInfo {
    /// The entitlement of a cached answer, as it stands at `now`: access whose end (the grace
    /// period's end while in one, else the expiration) is at or before `now` has expired.
    /// Nothing else is inferred — a cached answer cannot tell of a renewal since.
    public func judgedFromCache(at now: Instant) -> EntitlementInfo {
        guard isActive else { return self }
        let end = state == .gracePeriod ? gracePeriodExpirationDate ?? expirationDate : expirationDate
        guard let end, end <= now else { return self }
        var ended = self
        ended.isActive = false
        ended.state = .expired
        ended.willRenew = false
        return ended
    }
}
