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

    var rows: Rows {
        Rows(headers: ["customerId", "requestedId", "entitlement", "renewsCount", "error"],
             values: counts.flatMap { asked -> [[String]] in
                 switch asked {
                 // A customer who never had the entitlement asked for: its row names it, as the
                 // error is about it; a customer not found has no entitlements at all.
                 case .missing(let m):
                     let asked = m.customerId == nil ? "" : entitlement?.string ?? ""
                     return [[m.customerId?.string ?? "", m.requestedId.string, asked, "", m.code]]
                 case .found(let c):
                     if c.entitlements.isEmpty { return [[c.customerId.string, c.requestedId.string, "", "", ""]] }
                     return c.entitlements.map { [c.customerId.string, c.requestedId.string, $0.id.string, Self.count($0), ""] }
                 }
             })
    }

    func table(_ style: OutputStyle) -> String {
        let found = counts.compactMap(\.found)
        if asArray {
            let rows = found.flatMap { c in c.entitlements.map { [Cell(c.customerId), Cell($0.id), Cell(Self.count($0))] } }
            return rows.isEmpty ? "" : TextTable(headers: ["customer", "entitlement", "renews"], rows: rows).render(style)
        }
        guard let c = found.first else { return "" }
        // The bare number, for `n=$(subs renew-count alice premium)`.
        if entitlement != nil, let e = c.entitlements.first { return Self.count(e) + "\n" }
        if c.entitlements.isEmpty { return style.sentence("\(c.customerId): no entitlements") }
        return TextTable(headers: ["entitlement", "renews"],
                         rows: c.entitlements.map { [Cell($0.id), Cell(Self.count($0))] }).render(style)
    }

    static func count(_ e: EntitlementInfo) -> String {
        e.renewsCount.map(String.init) ?? "-"
    }
}
