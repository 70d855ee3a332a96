// `subs renew-count USER [ENTITLEMENT]`: how many times the subscriptions renewed.

import SubsKit

enum RenewCountCommand {
    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        guard let id = invocation.positionals.first else {
            throw UsageError("renew-count: missing USER", command: .renewCount)
        }
        let source = try Commands.source(invocation, context)
        try source.require(.renewalCounts)
        let answer = try source.statuses(of: [id], at: invocation.global.at)
        guard let customer = answer.statuses.first ?? nil else {
            throw FindHint.notFound(id, source: source)
        }
        Commands.say(answer.notes, context)
        Commands.warn(answer.warnings, context)
        let record = customer.record, at = answer.requestDate, entitlements = customer.entitlements
        var shown = entitlements
        if invocation.positionals.count > 1 {
            let wanted = invocation.positionals[1]
            guard let e = entitlements.first(where: { $0.id == wanted }) else {
                throw CommandFailure(.notFound, "customer \(Terminal.quoted(record.id, escaping: false)) never had entitlement \(Terminal.quoted(wanted, escaping: false))")
            }
            shown = [e]
        }
        guard !invocation.global.quiet else { return .success }
        let result = RenewCountResult(customerId: record.id, requestedId: id, requestDate: at, entitlements: shown,
                                      one: invocation.positionals.count > 1)
        context.writeOut(try Output.render(result, style: Commands.style(invocation, context)))
        return .success
    }
}

/// Renewal counts, in every format: with ENTITLEMENT (`one`) the table is the bare number.
struct RenewCountResult: CommandResult {
    var customerId: String
    var requestedId: String
    var requestDate: Instant
    var entitlements: [EntitlementInfo]
    var one: Bool

    var json: JSONOutput {
        if one, let e = entitlements.first {
            return .document(Documents.renewCount(customerId: customerId, requestedId: requestedId,
                                                  requestDate: requestDate, entitlement: e.id, count: e.renewsCount))
        }
        return .document(Documents.renewCounts(customerId: customerId, requestedId: requestedId, requestDate: requestDate,
                                               counts: entitlements.map { ($0.id, $0.renewsCount) }))
    }

    var tsv: TextTable {
        TextTable(headers: ["customerId", "entitlement", "renewsCount"],
                  rows: entitlements.map { [Cell(customerId), Cell($0.id), Cell(Self.count($0))] })
    }

    func table(_ style: OutputStyle) -> String {
        // The bare number, for `n=$(subs renew-count alice premium)`.
        if one, let e = entitlements.first { return Self.count(e) + "\n" }
        if entitlements.isEmpty { return "\(Terminal.escape(customerId)): no entitlements\n" }
        return TextTable(headers: ["entitlement", "renews"],
                         rows: entitlements.map { [Cell($0.id), Cell(Self.count($0))] }).render(style)
    }

    static func count(_ e: EntitlementInfo) -> String {
        e.renewsCount.map(String.init) ?? "-"
    }
}
