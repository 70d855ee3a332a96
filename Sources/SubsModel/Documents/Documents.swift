// The JSON documents of SPEC section 4, built as ordered JSON values: every documented key is
// always present (null when empty), in a fixed order. The command line prints them (its tables
// are rendered from the same results) and `subs serve` answers them (the status routes): one
// builder, so a document over HTTP is the one the command prints.

import SubsJSON

public enum Documents {
    public static func date(_ instant: Instant?) -> JSONValue {
        instant.map { .string(ISODate.format($0)) } ?? .null
    }

    public static func string(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }

    public static func strings(_ list: [String]) -> JSONValue {
        .array(list.map { .string($0) })
    }

    /// An id as written (null when there is none).
    public static func id(_ id: ID?) -> JSONValue {
        id.map { .string($0.string) } ?? .null
    }

    public static func ids(_ list: [ID]) -> JSONValue {
        .array(list.map { .string($0.string) })
    }

    public static func int(_ n: Int?) -> JSONValue {
        n.map { .number(String($0)) } ?? .null
    }

    // MARK: check

    public static func check(_ status: CustomerStatus, activeOnly: Bool) -> JSONValue {
        let entitlements = activeOnly ? status.entitlements.filter(\.isActive) : status.entitlements
        return .object(JSONObject([
            ("customerId", id(status.record.id)),
            ("requestedId", id(status.requestedId)),
            ("requestDate", date(status.requestDate)),
            ("projected", .bool(status.projected)),
            ("aliases", ids(status.record.aliases)),
            ("firstSeen", date(status.record.firstSeen)),
            ("attributes", status.record.attributes.map { .object($0) } ?? .null),
            ("activeEntitlements", ids(status.activeEntitlementIds)),
            ("entitlements", .object(JSONObject(entitlements.map { ($0.id.string, entitlement($0)) }))),
            ("totalSpent", totalSpent(status.spending)),
        ]))
    }

    /// `[{currency, amount, payments, refunded, complete, incompleteReason}]` (SPEC section 4,
    /// "Money"): amounts as exact decimal strings; null where the provider cannot tell.
    public static func totalSpent(_ spending: Spending?) -> JSONValue {
        guard let spending else { return .null }
        return .array(spending.totals.map { t in
            .object(JSONObject([
                ("currency", string(t.currency)),
                ("amount", string(t.amount.map { CurrencyCode.format($0, t.currency ?? "") })),
                ("payments", int(t.payments)),
                ("refunded", int(t.refunded)),
                ("complete", .bool(t.complete)),
                ("incompleteReason", string(t.incompleteReason)),
            ]))
        })
    }

    public static func entitlement(_ e: EntitlementInfo) -> JSONValue {
        .object(JSONObject([
            ("id", id(e.id)),
            ("isActive", .bool(e.isActive)),
            ("state", .string(e.state.rawValue)),
            ("renewState", .string(e.renewState.rawValue)),
            ("willRenew", .bool(e.willRenew)),
            ("periodType", .string(e.periodType.rawValue)),
            ("source", .string(e.source.rawValue)),
            ("grantType", .string(e.grantType.rawValue)),
            ("productId", id(e.productId)),
            ("startedDate", date(e.startedDate)),
            ("trialStartDate", date(e.trialStartDate)),
            ("firstPurchaseDate", date(e.firstPurchaseDate)),
            ("lastPurchaseDate", date(e.lastPurchaseDate)),
            ("expirationDate", date(e.expirationDate)),
            // What the table's UNTIL shows and what the sentence under it says (SPEC section 4,
            // rev. 4): a script reads the same story as a person.
            ("accessEndDate", date(e.accessEndDate)),
            ("gracePeriodExpirationDate", date(e.gracePeriodExpirationDate)),
            ("billingIssueDetectedAt", date(e.billingIssueDetectedAt)),
            ("billingRetryEndDate", date(e.billingRetryEndDate)),
            ("autoRenewDisableDate", date(e.autoRenewDisableDate)),
            ("autoResumeDate", date(e.autoResumeDate)),
            ("pauseEndedDate", date(e.lapsedPauseResumeDate)),
            ("renewalProductId", id(e.renewalProductId)),
            ("renewsCount", int(e.renewsCount)),
            ("isSandbox", .bool(e.isSandbox)),
            ("lastActivatedOfferCode", string(e.lastActivatedOfferCode)),
            ("grantId", id(e.grantId)),
            ("grantedBy", string(e.sourceKind == .grant ? e.grantedBy : nil)),
            ("grantReason", string(e.sourceKind == .grant ? e.grantReason : nil)),
            ("refundedAt", date(e.refundedAt)),
            ("revokedAt", date(e.state == .revoked ? e.revokedAt : nil)),
            ("revokedBy", string(e.revokedBy)),
            ("revokeReason", string(e.revokeReason)),
            ("transactions", .array(e.transactions.map(transaction))),
            ("otherActiveSources", .array(e.otherActiveSources.map(otherSource))),
        ]))
    }

    public static func otherSource(_ o: OtherActiveSource) -> JSONValue {
        .object(JSONObject([
            ("productId", id(o.productId)),
            ("source", .string(o.source.rawValue)),
            ("expirationDate", date(o.expirationDate)),
            ("renewState", .string(o.renewState.rawValue)),
        ]))
    }

    public static func transaction(_ t: Transaction) -> JSONValue {
        .object(JSONObject([
            ("transactionId", id(t.transactionId)),
            ("originalTransactionId", id(t.originalTransactionId)),
            ("productId", id(t.productId)),
            ("type", .string(t.type.rawValue)),
            ("transactionDate", date(t.transactionDate)),
            ("expirationDate", date(t.expirationDate)),
            ("source", .string(t.source.rawValue)),
            ("environment", .string(t.environment.rawValue)),
            ("ownershipType", .string(t.ownershipType.rawValue)),
            ("offerCode", string(t.offerCode)),
            ("orderId", string(t.orderId)),
            ("transactionRevocationDate", date(t.revocationDate)),
            ("price", string(Spent.priceText(t))),
            ("currency", string(t.priceMicros == nil ? nil : t.currency)),
        ]))
    }

    // MARK: history

    public static func history(customerId: ID, requestedId: ID, requestDate: Instant, provider: String,
                        incompleteReason: String?, entries: [HistoryEntry]) -> JSONValue {
        .object(JSONObject([
            ("customerId", id(customerId)),
            ("requestedId", id(requestedId)),
            ("requestDate", date(requestDate)),
            ("provider", .string(provider)),
            ("complete", .bool(incompleteReason == nil)),
            ("incompleteReason", string(incompleteReason)),
            ("entries", .array(entries.map(historyEntry))),
        ]))
    }

    public static func historyEntry(_ entry: HistoryEntry) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("date", date(entry.date)),
            ("kind", .string(entry.kind.rawValue)),
            ("type", .string(entry.type)),
            ("entitlements", ids(entry.entitlements)),
        ]
        for field in entry.fields {
            switch field.value {
            case .string(let s): members.append((field.key, string(s)))
            case .date(let d): members.append((field.key, date(d)))
            }
        }
        return .object(JSONObject(members))
    }

    // MARK: renew-count

    /// With ENTITLEMENT: its count, `entitlement` naming it; without: the customer's renewals
    /// across all chains, `entitlement` null. `byEntitlement` holds the counts per entitlement.
    static func renewCount(customerId: ID, requestedId: ID, requestDate: Instant, incompleteReason: String?,
                           entitlement: ID?, count: Int?, byEntitlement: [(ID, Int?)]) -> JSONValue {
        .object(JSONObject([
            ("customerId", id(customerId)),
            ("requestedId", id(requestedId)),
            ("requestDate", date(requestDate)),
            ("complete", .bool(incompleteReason == nil)),
            ("incompleteReason", string(incompleteReason)),
            ("entitlement", id(entitlement)),
            ("renewsCount", int(count)),
            ("byEntitlement", .object(JSONObject(byEntitlement.map { ($0.0.string, int($0.1)) }))),
        ]))
    }

    /// `renew-count`'s document from what the rules found: `entitlements` the ones shown (with
    /// ENTITLEMENT, that one alone), `acrossChains` the customer's renewals across all chains.
    public static func renewCount(customerId: ID, requestedId: ID, requestDate: Instant, incompleteReason: String?,
                                  entitlement: ID?, entitlements: [EntitlementInfo], acrossChains: Int?) -> JSONValue {
        // One shape (SPEC section 4, rev. 4): renewsCount is a number or null; the counts per
        // entitlement are under byEntitlement, with ENTITLEMENT or without.
        let byEntitlement = entitlements.map { ($0.id, $0.renewsCount) }
        if let entitlement, let e = entitlements.first {
            return renewCount(customerId: customerId, requestedId: requestedId, requestDate: requestDate,
                              incompleteReason: incompleteReason, entitlement: entitlement, count: e.renewsCount,
                              byEntitlement: byEntitlement)
        }
        return renewCount(customerId: customerId, requestedId: requestedId, requestDate: requestDate,
                          incompleteReason: incompleteReason, entitlement: nil, count: acrossChains, byEntitlement: byEntitlement)
    }

    // MARK: grant, revoke

    public static func grant(_ g: Grant) -> JSONValue {
        .object(JSONObject([
            ("id", id(g.id)), ("entitlement", id(g.entitlement)),
            ("grantedAt", date(g.grantedAt)), ("expirationDate", date(g.expirationDate)),
            ("grantedBy", string(g.grantedBy)), ("reason", string(g.reason)),
            ("revokedAt", date(g.revokedAt)), ("revokedBy", string(g.revokedBy)),
            ("revokeReason", string(g.revokeReason)),
        ]))
    }
}
