// What `audit` answers, in every format: `{"auditLog", "entries": [...]}` (JSON), one entry per
// line (JSONL), one row per entry with every key (TSV, CSV), and for people a table of when,
// who, what, to whom and with what result.

import SubsJSON
import SubsModel
import SubsStore

struct AuditResult: CommandResult {
    var path: String
    var entries: [AuditEntry]

    var document: JSONOutput {
        .document(.object(JSONObject([("auditLog", .string(path)), ("entries", .array(entries.map(\.document)))])))
    }

    var jsonLines: [JSONValue] { entries.map(\.document) }

    var rows: Rows {
        Rows(headers: AuditEntry.keys, values: entries.map { e in
            [ISODate.format(e.time), e.actor, e.user ?? "", e.onBehalfOf ?? "", e.via, e.action, e.customer.string,
             e.entitlement.string, e.reason ?? "", e.requestId ?? "", e.idempotencyKey ?? "", e.result]
        })
    }

    func table(_ style: OutputStyle) -> String {
        if entries.isEmpty { return style.sentence("no writes in the audit log") }
        let columns = [Column("time", .date), Column("actor"), Column("action"), Column("customer"), Column("entitlement"),
                       Column("result", .text, softMinimum: 10), Column("reason", .text, dropRank: 2, omitWhenEmpty: true),
                       Column("request", .text, dropRank: 1, omitWhenEmpty: true)]
        let rows = entries.map { e -> [Cell] in
            let actor = e.onBehalfOf.map { "\(e.actor) for \($0)" } ?? e.actor
            return [style.dateCell(e.time), Cell(actor), Cell(e.action), Cell(e.customer), Cell(e.entitlement), Cell(e.result),
                    Cell(e.reason ?? ""), Cell(e.requestId ?? "")]
        }
        return TextTable(columns: columns, rows: rows).render(style)
    }
}
