// What every command answers: one value that knows its JSON document, its TSV rows and its
// table, so that the formats never disagree. `Output.render` turns it into text in one place.

import SubsJSON

protocol CommandResult {
    /// `--format json`: one document, or (several customers, `-`) an array of them.
    var json: JSONOutput { get }
    /// `--format jsonl`: one compact document per line. Default: the documents of `json`.
    var jsonLines: [JSONValue] { get }
    /// `--format tsv`: a header line and rows (the header names are the JSON keys they show).
    var tsv: TextTable { get }
    /// `--format table`: for people.
    func table(_ style: OutputStyle) -> String
}

enum JSONOutput {
    case document(JSONValue)
    case array([JSONValue])

    var documents: [JSONValue] {
        switch self {
        case .document(let document): return [document]
        case .array(let documents): return documents
        }
    }
}

extension CommandResult {
    var jsonLines: [JSONValue] { json.documents }
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
