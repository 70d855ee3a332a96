// `subs history USER`: everything that happened to a customer, oldest first.

import SubsJSON
import SubsKit

enum HistoryCommand {
    private typealias Options = CommandLineSpec.Options

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let users = try Commands.users(invocation.positionals, context)
        guard users.count == 1, let id = users.first else {
            throw UsageError("history takes exactly one USER", command: .history)
        }
        let source = try Commands.source(invocation, context)
        try source.require(.history)
        guard let answer = try source.history(of: id, at: invocation.global.at,
                                              until: invocation.instant(Options.historyUntil)) else {
            throw FindHint.notFound(id, source: source)
        }
        Commands.say(answer.notes, context)
        Commands.warn(answer.warnings, context)
        var entries = answer.entries
        if let since = invocation.instant(Options.since) { entries = entries.filter { $0.date >= since } }
        if let entitlement = invocation.text(Options.entitlement) {
            entries = entries.filter { $0.entitlements.contains(entitlement) }
        }
        if let limit = invocation.count(Options.limit), entries.count > limit {
            entries = Array(entries.suffix(limit))
        }
        guard !invocation.global.quiet else { return .success }
        let style = Commands.style(invocation, context)
        let result = HistoryResult(customerId: answer.customerId, requestedId: id, requestDate: answer.requestDate,
                                   entries: entries)
        context.writeOut(try Output.render(result, style: style))
        return .success
    }
}

/// A customer's history, in every format (jsonl: one entry per line).
struct HistoryResult: CommandResult {
    var customerId: String
    var requestedId: String
    var requestDate: Instant
    var entries: [HistoryEntry]

    var json: JSONOutput {
        .document(Documents.history(customerId: customerId, requestedId: requestedId, requestDate: requestDate,
                                    entries: entries))
    }

    var jsonLines: [JSONValue] { entries.map(Documents.historyEntry) }

    var tsv: TextTable {
        TextTable(headers: ["date", "kind", "type", "entitlements", "details"], rows: entries.map { e in
            [ISODate.format(e.date), e.kind.rawValue, e.type, e.entitlements.joined(separator: ","),
             Self.details(e, style: nil)].map { Cell($0) }
        })
    }

    func table(_ style: OutputStyle) -> String {
        if entries.isEmpty { return "\(Terminal.escape(customerId)): no history\n" }
        let rows = entries.map { e in
            [Cell(style.date(e.date)), Cell(e.kind.rawValue), Cell(e.type, e.kind == .refund || e.type == "revoked" ? .red : nil),
             Cell(e.entitlements.joined(separator: ",")), Cell(Self.details(e, style: style))]
        }
        return TextTable(headers: ["date", "kind", "type", "entitlements", "details"], rows: rows).render(style)
    }

    /// `key=value` for the entry's non-empty fields.
    private static func details(_ entry: HistoryEntry, style: OutputStyle?) -> String {
        entry.fields.compactMap { field -> String? in
            switch field.value {
            case .string(let s?): return "\(field.key)=\(s)"
            case .date(let d?): return "\(field.key)=\(style.map { _ in ISODate.formatShort(d) } ?? ISODate.format(d))"
            default: return nil
            }
        }.joined(separator: " ")
    }
}
