// What every command answers: one value that gives its JSON document and its rows, from which
// every format is made (OutputFormat), so that the formats never disagree; and, for people, its
// table. A command's result is a file in Output/Results/.

import SubsJSON
import SubsKit

protocol CommandResult {
    /// `--format json`: one document, or (several customers, `-`) an array of them.
    var document: JSONOutput { get }
    /// `--format jsonl`: one compact document per line. Default: the documents of `document`.
    var jsonLines: [JSONValue] { get }
    /// `--format tsv` and `csv`: a header row (the names are the JSON keys the columns show)
    /// and one row per element, in the order the document has them.
    var rows: Rows { get }
    /// `--format table`: for people. Default: the rows as aligned columns.
    func table(_ style: OutputStyle) -> String
    /// The output in `format`, written piece by piece. Default: what the format makes of the
    /// document, the rows or the table; a result that may be large (a history of a whole
    /// listing) writes entry by entry, the same bytes.
    func write(_ format: OutputFormat, _ style: OutputStyle, to out: (String) -> Void)
}

extension CommandResult {
    var jsonLines: [JSONValue] { document.documents }

    func table(_ style: OutputStyle) -> String {
        let rows = rows
        return TextTable(columns: rows.headers.map { Column($0) }, rowCount: rows.count,
                         row: { rows.row($0).map { Cell($0) } }).render(style)
    }

    func write(_ format: OutputFormat, _ style: OutputStyle, to out: (String) -> Void) {
        format.write(self, style: style, to: out)
    }
}

/// Values under a header row, as text: what the tsv and csv formats write, each with its quoting.
/// A row is made when it is written, so that a result of a million rows (a history of a whole
/// listing) is never held as text.
struct Rows {
    var headers: [String]
    let count: Int
    let row: (Int) -> [String]

    init(headers: [String], count: Int, row: @escaping (Int) -> [String]) {
        self.headers = headers
        self.count = count
        self.row = row
    }

    init(headers: [String], values: [[String]]) {
        self.init(headers: headers, count: values.count, row: { values[$0] })
    }

    /// Every row (small results, tests).
    var values: [[String]] { (0..<count).map(row) }
}

enum JSONOutput {
    case document(JSONValue)
    case array([JSONValue])
    /// One USER asked and not found: nothing on stdout (the error is on stderr).
    case nothing

    var documents: [JSONValue] {
        switch self {
        case .document(let document): return [document]
        case .array(let documents): return documents
        case .nothing: return []
        }
    }
}

/// One USER as asked: found, or not (SPEC section 4: JSON arrays, JSONL and TSV keep one
/// element, line or row per USER asked, in order).
enum Asked<Found> {
    case found(Found)
    case missing(Missing)

    var found: Found? {
        if case .found(let value) = self { return value }
        return nil
    }
}

/// What stands for a USER that was not found: `{"requestedId", "customerId": null, "error"}`.
struct Missing: Error {
    var requestedId: ID
    /// The canonical id when the customer was found but what was asked of it was not
    /// (`renew-count - ENTITLEMENT`); nil when the customer itself is missing.
    var customerId: ID?
    /// `customer_not_found`, `entitlement_not_found`: the codes of the subs REST API.
    var code: String
    /// The sentence said on stderr too.
    var message: String

    /// A customer of a batch the command's remote budget left unanswered (SPEC section 7 rev. 4):
    /// `timeout`, or `answers_too_large` when the command's answers reached their byte bound.
    static func unanswered(_ id: ID, _ error: RemoteError) -> Missing {
        let code: String
        if case .answersTooLarge = error { code = "answers_too_large" } else { code = "timeout" }
        return Missing(requestedId: id, customerId: nil, code: code, message: "not answered: \(error.budgetReason)")
    }

    static func customer(_ id: ID) -> Missing {
        Missing(requestedId: id, customerId: nil, code: "customer_not_found",
                message: "customer \(Terminal.quoted(id, escaping: false)) not found")
    }

    /// A customer not found, with the words said on stderr (a did-you-mean, a find hint).
    static func customer(_ id: ID, _ failure: CommandFailure) -> Missing {
        Missing(requestedId: id, customerId: nil, code: "customer_not_found", message: failure.message)
    }
}
