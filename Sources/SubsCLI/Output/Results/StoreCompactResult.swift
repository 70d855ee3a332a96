// What `store compact` answers, in every format.

import SubsJSON
import SubsStore

/// `store compact`: how much of the journal went into the store.
struct StoreCompactResult: CommandResult {
    var path: String
    var summary: CompactionSummary

    var document: JSONOutput {
        .document(.object(JSONObject([
            ("store", .string(path)),
            ("changes", .number(String(summary.changes))),
            ("customers", .number(String(summary.customers))),
            ("journalBytes", .number(String(summary.journalBytes))),
        ])))
    }

    var rows: Rows {
        Rows(headers: ["store", "changes", "customers", "journalBytes"],
             values: [[path, String(summary.changes), String(summary.customers), String(summary.journalBytes)]])
    }

    func table(_ style: OutputStyle) -> String {
        guard summary.changes > 0 else { return "\(Terminal.escape(path)): journal empty; nothing to fold\n" }
        return "\(Terminal.escape(path)): folded \(summary.changes) change\(summary.changes == 1 ? "" : "s") "
            + "to \(summary.customers) customer\(summary.customers == 1 ? "" : "s") into the store\n"
    }
}
