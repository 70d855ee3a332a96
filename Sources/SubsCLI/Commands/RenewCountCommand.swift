// `subs renew-count USER [ENTITLEMENT]`: how many times the subscriptions renewed.

import SubsKit

enum RenewCountCommand {
    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        guard let id = invocation.positionals.first else {
            throw UsageError("renew-count: missing USER", command: .renewCount)
        }
        let lookup = try Commands.source(invocation, context).lookup([id])
        guard let record = lookup.records.first ?? nil else {
            throw CommandFailure(.notFound, "customer \(Terminal.quoted(id, escaping: false)) not found")
        }
        let at = Commands.evaluationInstant(invocation, context, sourceDate: lookup.requestDate)
        let entitlements = EntitlementRules.evaluate(record, catalog: lookup.catalog, at: at)
        let style = Commands.style(invocation, context)

        if invocation.positionals.count > 1 {
            let wanted = invocation.positionals[1]
            guard let e = entitlements.first(where: { $0.id == wanted }) else {
                throw CommandFailure(.notFound, "customer \(Terminal.quoted(record.id, escaping: false)) never had entitlement \(Terminal.quoted(wanted, escaping: false))")
            }
            guard !invocation.global.quiet else { return .success }
            switch style.format {
            case .json, .jsonl:
                let doc = Documents.renewCount(customerId: record.id, requestedId: id, requestDate: at, entitlement: e.id, count: e.renewsCount)
                context.writeOut(try Documents.render([doc], format: style.format, asArray: false))
            case .tsv:
                context.writeOut(TextTable(headers: ["customerId", "entitlement", "renewsCount"],
                                           rows: [[Cell(record.id), Cell(e.id), Cell(count(e))]]).renderTSV())
            case .table:
                // The bare number, for `n=$(subs renew-count alice premium)`.
                context.writeOut(count(e) + "\n")
            }
            return .success
        }

        guard !invocation.global.quiet else { return .success }
        switch style.format {
        case .json, .jsonl:
            let doc = Documents.renewCounts(customerId: record.id, requestedId: id, requestDate: at,
                                            counts: entitlements.map { ($0.id, $0.renewsCount) })
            context.writeOut(try Documents.render([doc], format: style.format, asArray: false))
        case .tsv:
            context.writeOut(TextTable(headers: ["customerId", "entitlement", "renewsCount"],
                                       rows: entitlements.map { [Cell(record.id), Cell($0.id), Cell(count($0))] }).renderTSV())
        case .table:
            if entitlements.isEmpty {
                context.writeOut("\(Terminal.escape(record.id)): no entitlements\n")
            } else {
                context.writeOut(TextTable(headers: ["entitlement", "renews"],
                                           rows: entitlements.map { [Cell($0.id), Cell(count($0))] }).render(style))
            }
        }
        return .success
    }

    private static func count(_ e: EntitlementInfo) -> String {
        e.renewsCount.map(String.init) ?? "-"
    }
}
