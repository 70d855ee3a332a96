// What `renew-count` answers, in every format.

import SubsJSON
import SubsModel

struct RenewCounts {
    var customerId: ID
    var requestedId: ID
    var requestDate: Instant
    /// nil when the counts come from the whole history.
    var incompleteReason: String?
    var entitlements: [EntitlementInfo]
    /// Without ENTITLEMENT: the customer's renewals across all chains (nil: a count is unknown).
    var acrossChains: Int?
}

/// Renewal counts, in every format: one USER with ENTITLEMENT prints the bare number as its
/// table (`n=$(subs renew-count alice premium)`); several (`-`) a table with the customer.
struct RenewCountResult: CommandResult {
    var counts: [Asked<RenewCounts>]
    var entitlement: ID?
    var asArray: Bool

    var document: JSONOutput {
        let documents = counts.map { asked -> JSONValue in
            switch asked {
            case .missing(let m): return Documents.missing(m)
            case .found(let c):
                return Documents.renewCount(customerId: c.customerId, requestedId: c.requestedId, requestDate: c.requestDate,
                                            incompleteReason: c.incompleteReason, entitlement: entitlement,
                                            entitlements: c.entitlements, acrossChains: c.acrossChains)
            }
        }
        if asArray { return .array(documents) }
        guard case .found? = counts.first, let document = documents.first else { return .nothing }
        return .document(document)
    }

    /// `renewsCount` per entitlement (the document's `byEntitlement`), and beside it, without
    /// ENTITLEMENT, the customer's renewals across all chains (the document's `renewsCount`),
    /// which is not the sum of the rows: a renewal unlocking two entitlements is on two rows.
    var rows: Rows {
        Rows(headers: ["customerId", "requestedId", "entitlement", "renewsCount", "allChainsRenewsCount", "error"],
             values: counts.flatMap { asked -> [[String]] in
                 switch asked {
                 // A customer who never had the entitlement asked for: its row names it, as the
                 // error is about it; a customer not found has no entitlements at all.
                 case .missing(let m):
                     let asked = m.customerId == nil ? "" : entitlement?.string ?? ""
                     return [[m.customerId?.string ?? "", m.requestedId.string, asked, "", "", m.code]]
                 case .found(let c):
                     let all = allChains(c)
                     if c.entitlements.isEmpty { return [[c.customerId.string, c.requestedId.string, "", "", all, ""]] }
                     return c.entitlements.map { [c.customerId.string, c.requestedId.string, $0.id.string, Self.count($0), all, ""] }
                 }
             })
    }

    /// The across-chains count as a cell: empty with ENTITLEMENT (not asked), `-` when unknown.
    private func allChains(_ c: RenewCounts) -> String {
        entitlement != nil ? "" : c.acrossChains.map(String.init) ?? "-"
    }

    func table(_ style: OutputStyle) -> String {
        let found = counts.compactMap(\.found)
        if asArray {
            // Without ENTITLEMENT, each customer's count across all chains beside its rows.
            let across = entitlement == nil
            let rows = found.flatMap { c in
                c.entitlements.map { [Cell(c.customerId), Cell($0.id), Cell(Self.count($0))] + (across ? [Cell(allChains(c))] : []) }
            }
            return rows.isEmpty ? "" : TextTable(headers: ["customer", "entitlement", "renews"] + (across ? ["all chains"] : []),
                                                 rows: rows).render(style)
        }
        guard let c = found.first else { return "" }
        // The bare number, for `n=$(subs renew-count alice premium)`.
        if entitlement != nil, let e = c.entitlements.first { return Self.count(e) + "\n" }
        if c.entitlements.isEmpty { return style.sentence("\(c.customerId): no entitlements") }
        return TextTable(headers: ["entitlement", "renews"],
                         rows: c.entitlements.map { [Cell($0.id), Cell(Self.count($0))] }).render(style)
            + style.sentence(Self.acrossChainsSentence(c))
    }

    /// What the document's `renewsCount` says, under the table: the rows do not add up to it when
    /// a renewal unlocks several entitlements or unlocks none the catalog names.
    static func acrossChainsSentence(_ c: RenewCounts) -> String {
        guard let n = c.acrossChains else { return "Across all subscription chains: not known (a chain's count is unknown)." }
        return "Across all subscription chains: \(n) renewal\(n == 1 ? "" : "s"), each counted once."
    }

    static func count(_ e: EntitlementInfo) -> String {
        e.renewsCount.map(String.init) ?? "-"
    }
}
