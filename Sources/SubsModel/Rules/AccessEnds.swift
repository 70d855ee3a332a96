// When access to an entitlement ended, as the history table shows it ("access ended"): a
// milestone derived from the records with the rules of SPEC section 3, never a history entry
// (entries hold only what the records say).

/// Access to `entitlement` ended at `date` and did not continue from another source.
public struct AccessEnd: Equatable, Sendable {
    public var entitlement: ID
    public var date: Instant
    public var cause: AccessEndCause

    public init(entitlement: ID, date: Instant, cause: AccessEndCause) {
        self.entitlement = entitlement
        self.date = date
        self.cause = cause
    }
}

/// What ended the last source that gave access.
public enum AccessEndCause: Equatable, Sendable {
    /// The paid period ran out; `autoRenewOff` when the customer had turned auto-renew off.
    case expired(productId: ID, autoRenewOff: Bool)
    /// A renewal payment failed and was not recovered (within the grace period, if any).
    case billingIssue(productId: ID)
    /// The period ran out into a scheduled pause.
    case paused(productId: ID, resumes: Instant?)
    /// A pending product change renewed into a product that does not unlock the entitlement.
    case planChanged(from: ID, to: ID)
    /// The period in force (or the purchase) was refunded, or its family-sharing access withdrawn.
    case refunded(productId: ID, familySharing: Bool)
    case grantExpired(grantId: ID)
    case grantRevoked(grantId: ID, revokedBy: String?)
}

public enum AccessEnds {
    /// Every end of access up to `until`, oldest first (ties: by entitlement id).
    public static func of(_ customer: CustomerRecord, catalog: Catalog, until: Instant) -> [AccessEnd] {
        var spans: [ID: [Span]] = [:]
        let transactions = customer.transactions.enumerated().filter { $0.element.transactionDate <= until }

        var eventsByChain: [ID: [SubscriptionEvent]] = [:]
        for event in customer.events where event.date <= until {
            eventsByChain[event.originalTransactionId, default: []].append(event)
        }
        for key in eventsByChain.keys { eventsByChain[key]!.sort { $0.date < $1.date } }
        for (entitlement, members) in chains(transactions.map { Indexed(index: $0.offset, record: $0.element) }, catalog: catalog) {
            spans[entitlement, default: []] += chainSpans(members, events: eventsByChain[members[0].originalTransactionId] ?? [],
                                                          entitlement: entitlement, catalog: catalog, until: until)
        }
        for (_, t) in transactions where t.type == .nonConsumablePurchase {
            let refund = t.revocationDate.flatMap { $0 <= until ? $0 : nil }
            for entitlement in EntitlementRules.unlocked(by: t, catalog: catalog) {
                spans[entitlement, default: []].append(Span(
                    start: t.transactionDate, end: refund,
                    cause: .refunded(productId: t.productId, familySharing: t.ownershipType == .familySharing)))
            }
        }
        for grant in customer.grants where grant.grantedAt <= until {
            let revoked = grant.revokedAt.flatMap { $0 <= until ? $0 : nil }
            let span: Span
            if let revoked, grant.expirationDate.map({ revoked < $0 }) ?? true {
                span = Span(start: grant.grantedAt, end: revoked, cause: .grantRevoked(grantId: grant.id, revokedBy: grant.revokedBy))
            } else {
                span = Span(start: grant.grantedAt, end: grant.expirationDate, cause: .grantExpired(grantId: grant.id))
            }
            spans[grant.entitlement, default: []].append(span)
        }

        var ends: [AccessEnd] = []
        for (entitlement, list) in spans {
            for span in merged(list) {
                if let end = span.end, end <= until { ends.append(AccessEnd(entitlement: entitlement, date: end, cause: span.cause)) }
            }
        }
        return ends.sorted { $0.date != $1.date ? $0.date < $1.date : $0.entitlement < $1.entitlement }
    }

    /// A stretch of access from one source: [start, end), end nil = not ended.
    struct Span {
        var start: Instant
        var end: Instant?
        var cause: AccessEndCause
    }

    /// Overlapping or touching spans joined; each joined span keeps the cause of the span that ends it.
    static func merged(_ spans: [Span]) -> [Span] {
        var out: [Span] = []
        let nonEmpty = spans.filter { span in span.end.map { $0 > span.start } ?? true }
        for span in nonEmpty.sorted(by: { $0.start < $1.start }) {
            guard var last = out.last else {
                out.append(span)
                continue
            }
            // A span without an end holds every later one.
            guard let lastEnd = last.end else { continue }
            guard span.start <= lastEnd else {
                out.append(span)
                continue
            }
            if let end = span.end, end <= lastEnd { continue }
            last.end = span.end
            last.cause = span.cause
            out[out.count - 1] = last
        }
        return out
    }

    /// Subscription transactions per (entitlement, chain), each chain oldest first (store order
    /// among equal dates), as the rules group them.
    static func chains(_ transactions: [Indexed<Transaction>], catalog: Catalog) -> [(ID, [Transaction])] {
        struct Key: Hashable {
            let entitlement: ID
            let chainId: ID
        }
        var order: [Key] = []
        var members: [Key: [Indexed<Transaction>]] = [:]
        for t in transactions where t.record.type.isSubscription {
            for entitlement in EntitlementRules.unlocked(by: t.record, catalog: catalog) {
                let key = Key(entitlement: entitlement, chainId: t.record.originalTransactionId)
                if members[key] == nil { order.append(key) }
                members[key, default: []].append(t)
            }
        }
        return order.map { key in
            (key.entitlement, members[key]!.sorted {
                $0.record.transactionDate != $1.record.transactionDate
                    ? $0.record.transactionDate < $1.record.transactionDate : $0.index < $1.index
            }.map(\.record))
        }
    }

    /// Each period of a chain gives access from its transaction until it is replaced by the next
    /// period, refunded, or runs out (plus the grace period while a billing issue is open). With
    /// hindsight, a billing issue detected a moment after the period ended extends it from the
    /// period's end, as the store's grace period does, rather than showing a gap of a minute.
    static func chainSpans(_ members: [Transaction], events: [SubscriptionEvent], entitlement: ID,
                           catalog: Catalog, until: Instant) -> [Span] {
        var spans: [Span] = []
        var eventIndex = 0
        for (i, p) in members.enumerated() {
            let next = i + 1 < members.count ? members[i + 1].transactionDate : nil
            // Events of this period: from its transaction up to the next one.
            while eventIndex < events.count && events[eventIndex].date < p.transactionDate { eventIndex += 1 }
            var periodEvents: [SubscriptionEvent] = []
            var j = eventIndex
            while j < events.count, next.map({ events[j].date < $0 }) ?? true {
                periodEvents.append(events[j])
                j += 1
            }
            let exp = p.expirationDate ?? p.transactionDate
            var end = exp
            var cause = AccessEndCause.expired(productId: p.productId, autoRenewOff: false)

            let grace = catalog[p.productId]?.gracePeriod.flatMap { exp.adding($0) }
            // The latest billing issue of the period, unless recovered before the period ended.
            if let issue = periodEvents.last(where: { $0.type == .billingIssue }) {
                let recovered = periodEvents.first { $0.type == .billingRecovered && $0.date >= issue.date }?.date
                if recovered.map({ $0 > exp }) ?? true {
                    cause = .billingIssue(productId: p.productId)
                    if let grace, issue.date < grace {
                        end = max(exp, min(recovered ?? grace, grace))
                    }
                }
            }
            if case .expired = cause {
                cause = plainEndCause(p, periodEvents: periodEvents.filter { $0.date <= exp }, entitlement: entitlement,
                                      catalog: catalog)
            }
            if let refund = p.revocationDate, refund <= until, refund < end {
                end = max(refund, p.transactionDate)
                cause = .refunded(productId: p.productId, familySharing: p.ownershipType == .familySharing)
            }
            if let next, next < end {
                // The next period takes over; if it gives nothing (refunded at once), its refund ends access.
                end = next
                let following = members[i + 1]
                if let refund = following.revocationDate, refund <= next {
                    cause = .refunded(productId: following.productId, familySharing: following.ownershipType == .familySharing)
                }
            }
            spans.append(Span(start: p.transactionDate, end: end, cause: cause))
        }
        return spans
    }

    /// Why a period that ran out was not renewed: a pause, a product change that drops the
    /// entitlement, auto-renew turned off, or none of these (the renewal simply never came).
    private static func plainEndCause(_ p: Transaction, periodEvents: [SubscriptionEvent], entitlement: ID,
                                      catalog: Catalog) -> AccessEndCause {
        let after = periodEvents.filter { $0.date > p.transactionDate }
        if let pause = after.last(where: { $0.type == .pauseScheduled }),
           !after.contains(where: { $0.type == .pauseCanceled && $0.date >= pause.date }) {
            return .paused(productId: p.productId, resumes: pause.autoResumeDate)
        }
        if let change = after.last(where: { $0.type == .renewalProductChanged }), let to = change.productId,
           !catalog.entitlements(unlockedBy: to).contains(entitlement) {
            return .planChanged(from: p.productId, to: to)
        }
        let off = after.last { $0.type == .autoRenewDisabled }
        let on = periodEvents.last { $0.type == .autoRenewEnabled }
        let autoRenewOff = off.map { off in on.map { $0.date < off.date } ?? true } ?? false
        return .expired(productId: p.productId, autoRenewOff: autoRenewOff)
    }
}
