// `--format`: how a result is printed. Each format makes its text from what every result gives
// (CommandResult): the table from the result's own layout, json and jsonl from its documents,
// tsv and csv from its rows. A new format is a case here (the `--format` choices, help, the
// completions and the man page follow) and a file beside this one.

public enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, jsonl, tsv, csv

    /// `result` as this format prints it, written piece by piece (tsv and csv a row at a time).
    func write(_ result: CommandResult, style: OutputStyle, to out: (String) -> Void) {
        switch self {
        case .table: out(result.table(style))
        case .json: out(JSONFormat.render(result.document))
        case .jsonl: out(JSONLinesFormat.render(result.jsonLines))
        case .tsv: TSVFormat.write(result.rows, to: out)
        case .csv: CSVFormat.write(result.rows, style: style, to: out)
        }
    }

    /// `result` as this format prints it: what the result writes (a large one entry by entry).
    func render(_ result: CommandResult, style: OutputStyle) -> String {
        var text = ""
        result.write(self, style) { text += $0 }
        return text
    }
}
