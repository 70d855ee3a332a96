// What every command answers: one value that knows its JSON document, its TSV rows and its
// table, so that the formats never disagree. `Output.render` turns it into text in one place.

import SubsJSON
import SubsModel
import SubsRemote

protocol CommandResult {
    /// `--format json`: one document, or (several customers, `-`) an array of them.
    var json: JSONOutput { get }
    /// `--format jsonl`: one compact document per line. Default: the documents of `json`.
    var jsonLines: [JSONValue] { get }
    /// `--format tsv`: a header line and rows (the header names are the JSON keys they show).
    var tsv: TextTable { get }
    /// `--format table`: for people.
    func table(_ style: OutputStyle) -> String
    /// The output in `style`'s format, written piece by piece. Default: `Output.render` at once;
    /// a result that may be large (a history of a whole listing) writes entry by entry, the
    /// same bytes.
    func write(_ style: OutputStyle, to out: (String) -> Void) throws
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

extension CommandResult {
    var jsonLines: [JSONValue] { json.documents }

    func write(_ style: OutputStyle, to out: (String) -> Void) throws {
        out(try Output.render(self, style: style))
    }
}

/// One output format: a file under Output/Formats/ and its case in `OutputFormat`.
protocol OutputFormatter {
    func render(_ result: CommandResult, style: OutputStyle) throws -> String
}

enum Output {
    static func render(_ result: CommandResult, style: OutputStyle) throws -> String {
        try style.format.formatter.render(result, style: style)
    }
}

extension OutputFormat {
    var formatter: OutputFormatter {
        switch self {
        case .table: return TableFormat()
        case .json: return JSONFormat()
        case .jsonl: return JSONLinesFormat()
        case .tsv: return TSVFormat()
        }
    }
}
