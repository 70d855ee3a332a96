// `--format csv`: RFC 4180 — a header row, then one record per row; fields separated by commas,
// records ended by CRLF; a field that holds a comma, a double quote, a CR or an LF is put in
// double quotes, each double quote inside doubled. The columns are the tsv's (the JSON keys).
// Piped or redirected, values are written exactly as the data holds them, so that a CSV reader
// gets every byte back; on a terminal, where a person reads them, control and format characters
// and backslashes are shown escaped as in tsv (as ls shows control characters on a terminal
// only), so that data never drives the terminal.

enum CSVFormat {
    static func write(_ rows: Rows, style: OutputStyle, to out: (String) -> Void) {
        out(record(rows.headers, onTerminal: style.terminal))
        for r in 0..<rows.count { out(record(rows.row(r), onTerminal: style.terminal)) }
    }

    static func record(_ fields: [String], onTerminal: Bool) -> String {
        fields.map { field(onTerminal ? Terminal.escape($0) : $0) }.joined(separator: ",") + "\r\n"
    }

    /// `value` as one field. Looked at by bytes and scalars, not Characters: CRLF is one
    /// Character, and so is a double quote followed by a combining mark.
    static func field(_ value: String) -> String {
        // , " CR LF: ASCII bytes, never part of another character's UTF-8.
        guard value.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            if scalar == "\"" { out.unicodeScalars.append(scalar) }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }
}
