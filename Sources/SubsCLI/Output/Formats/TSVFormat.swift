// `--format tsv`: a header line, then tab-separated rows; tabs, newlines, backslashes and control
// characters inside values are escaped (`\t`, `\n`, `\\`, `\x1b`), so that every row is one line
// and data never drives a terminal.

enum TSVFormat {
    static func render(_ rows: Rows) -> String {
        var out = rows.headers.map(escape).joined(separator: "\t") + "\n"
        for row in rows.values {
            out += row.map(escape).joined(separator: "\t") + "\n"
        }
        return out
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out += Terminal.escape(String(scalar))
            }
        }
        return out
    }
}
