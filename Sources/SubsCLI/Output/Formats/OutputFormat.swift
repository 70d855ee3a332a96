// `--format`: how a result is printed. Each format makes its text from what every result gives
// (CommandResult): the table from the result's own layout, json and jsonl from its documents,
// tsv and csv from its rows. A new format is a case here (the `--format` choices, help, the
// completions and the man page follow) and a file beside this one.

public enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, jsonl, tsv, csv

    /// `result` as this format prints it.
    func render(_ result: CommandResult, style: OutputStyle) -> String {
        switch self {
        case .table: return result.table(style)
        case .json: return JSONFormat.render(result.document)
        case .jsonl: return JSONLinesFormat.render(result.jsonLines)
        case .tsv: return TSVFormat.render(result.rows)
        case .csv: return CSVFormat.render(result.rows, style: style)
        }
    }
}
