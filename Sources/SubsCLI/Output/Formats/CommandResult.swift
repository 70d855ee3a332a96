// What every command answers: one value that gives its JSON document and its rows, from which
// every format is made (OutputFormat), so that the formats never disagree; and, for people, its
// table. A command's result is a file in Output/Results/; what the formats read of it is here,
// beside them.

import SubsJSON

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
