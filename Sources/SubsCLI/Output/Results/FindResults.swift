// What `find` answers, in every format: one document per term, one row per match.

import SubsJSON
import SubsModel
import SubsSource

/// What `find` found, in every format: JSON one document per term (an array with several terms
/// or `-`), JSONL one per line, TSV one row per match and one row per term without a match (its
/// `error` column says so, as check's does for a customer not found), the table one row per match.
struct FindResults: CommandResult {
    var results: [FindResult]
    var asArray: Bool

    var document: JSONOutput {
        let documents = results.map(\.document)
        return asArray ? .array(documents) : documents.first.map { .document($0) } ?? .array([])
    }

    var rows: Rows {
        Rows(headers: ["term", "customerId", "matchedBy", "email", "activeEntitlements", "error"],
             values: results.flatMap { result -> [[String]] in
                 guard !result.matches.isEmpty else {
                     // Not read is not "not found": the code check gives a customer left unanswered.
                     let code = result.unread.map { Missing.unanswered(ID(result.term), $0).code } ?? "customer_not_found"
                     return [[result.term, "", "", "", "", code]]
                 }
                 return result.matches.map { m in
                     [result.term, m.customerId.string, m.matchedBy.rawValue, m.email ?? "",
                      m.activeEntitlements.strings.joined(separator: ","), ""]
                 }
             })
    }

    /// CUSTOMER, EMAIL, MATCHED BY, ACTIVE; with several terms a TERM column first. Terms that
    /// matched nothing have no row (stderr says so).
    func table(_ style: OutputStyle) -> String {
        let several = results.count > 1
        let rows = results.flatMap { result in
            result.matches.map { m -> [Cell] in
                let active = m.activeEntitlements.isEmpty ? Cell("-", .dim) : Cell(m.activeEntitlements.strings.joined(separator: ","), .green)
                return (several ? [Cell(result.term)] : [])
                    + [Cell(m.customerId), Cell(m.email ?? "-"), Cell(m.matchedBy.rawValue), active]
            }
        }
        guard !rows.isEmpty else { return "" }
        return TextTable(headers: (several ? ["term"] : []) + ["customer", "email", "matched by", "active"], rows: rows)
            .render(style)
    }
}
