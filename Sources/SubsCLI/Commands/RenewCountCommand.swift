// `subs renew-count USER [ENTITLEMENT]`: how many times the subscriptions renewed. USER `-`
// reads the ids from standard input.

import SubsJSON
import SubsModel
import SubsRemote

enum RenewCountCommand {
    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        guard let user = invocation.positionals.first else {
            throw UsageError("renew-count: missing USER", command: .renewCount)
        }
        let wanted = invocation.positionals.count > 1 ? ID(invocation.positionals[1]) : nil
        let users = try Commands.users([user], context)
        let source = try Commands.source(invocation, context)
        try source.require(.renewalCounts)

        var status = ExitCode.success
        var counts: [Asked<RenewCounts>] = []
        var unanswered: [(id: ID, error: RemoteError)] = []
        let nearby = NearbyCustomers(source)
        for (id, answer) in zip(users, try source.renewalCounts(of: users, at: invocation.global.at)) {
            if let spent = answer.unanswered[0] {
                unanswered.append((id, spent))
                counts.append(.missing(Missing.unanswered(id, spent)))
                continue
            }
            Commands.say(answer.notes, context)
            Commands.warn(answer.warnings, context)
            let incomplete = Commands.incompleteReason(complete: answer.complete, answer.incompleteReason)
            if let incomplete { Commands.say(["incomplete renewal counts: \(incomplete)"], context) }
            if let wanted, let known = answer.knownEntitlements { try Commands.checkEntitlementExists(wanted, known: known) }
            var missing: Missing?
            var shown: [EntitlementInfo] = []
            if let customer = answer.statuses.first ?? nil {
                shown = customer.entitlements
                if let wanted {
                    if let e = customer.entitlements.first(where: { $0.id == wanted }) {
                        shown = [e]
                    } else {
                        missing = Missing(requestedId: id, customerId: customer.record.id, code: "entitlement_not_found",
                                          message: "customer \(Terminal.quoted(customer.record.id, escaping: false)) never had entitlement \(Terminal.quoted(wanted, escaping: false))")
                    }
                }
                if missing == nil {
                    counts.append(.found(RenewCounts(customerId: customer.record.id, requestedId: id, requestDate: answer.requestDate,
                                                     incompleteReason: incomplete, entitlements: shown,
                                                     acrossChains: customer.renewalsAcrossChains)))
                }
            } else {
                missing = Missing.customer(id, FindHint.notFound(id, source: source, nearby: nearby))
            }
            if let missing {
                let failure = CommandFailure(.notFound, missing.message)
                status = status.combined(with: Commands.report(failure, context))
                counts.append(.missing(missing))
            }
        }
        status = status.combined(with: Commands.reportUnanswered(unanswered, of: users.count, context))
        guard !invocation.global.quiet else { return status }
        let result = RenewCountResult(counts: counts, entitlement: wanted, asArray: user == "-")
        context.writeOut(try Output.render(result, style: Commands.style(invocation, context)))
        return status
    }
}

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

    var json: JSONOutput {
        let documents = counts.map { asked -> JSONValue in
            switch asked {
            case .missing(let m): return Documents.missing(m)
            case .found(let c):
                // One shape (SPEC section 4, rev. 4): renewsCount is a number or null; the counts per
                // entitlement are under byEntitlement, with ENTITLEMENT or without.
                let byEntitlement = c.entitlements.map { ($0.id, $0.renewsCount) }
                if let entitlement, let e = c.entitlements.first {
                    return Documents.renewCount(customerId: c.customerId, requestedId: c.requestedId,
                                                requestDate: c.requestDate, incompleteReason: c.incompleteReason,
                                                entitlement: entitlement, count: e.renewsCount, byEntitlement: byEntitlement)
                }
                return Documents.renewCount(customerId: c.customerId, requestedId: c.requestedId, requestDate: c.requestDate,
                                            incompleteReason: c.incompleteReason, entitlement: nil, count: c.acrossChains,
                                            byEntitlement: byEntitlement)
            }
        }
        if asArray { return .array(documents) }
        guard case .found? = counts.first, let document = documents.first else { return .nothing }
        return .document(document)
    }

    var tsv: TextTable {
        TextTable(headers: ["customerId", "requestedId", "entitlement", "renewsCount", "error"],
                  rows: counts.flatMap { asked -> [[Cell]] in
                      switch asked {
                      // A customer who never had the entitlement asked for: its row names it, as the
                      // error is about it; a customer not found has no entitlements at all.
                      case .missing(let m):
                          let asked = m.customerId == nil ? "" : entitlement?.string ?? ""
                          return [[m.customerId?.string ?? "", m.requestedId.string, asked, "", m.code].map { Cell($0) }]
                      case .found(let c):
                          if c.entitlements.isEmpty { return [[c.customerId.string, c.requestedId.string, "", "", ""].map { Cell($0) }] }
                          return c.entitlements.map { [c.customerId.string, c.requestedId.string, $0.id.string, Self.count($0), ""].map { Cell($0) } }
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
