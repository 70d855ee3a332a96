// `--format tsv`: a header line, then tab-separated rows; tabs, newlines, backslashes and control
// characters inside values are escaped (`\t`, `\n`, `\\`, `\x1b`), so that every row is one line
// and data never drives a terminal.

enum TSVFormat {
    static func write(_ rows: Rows, to out: (String) -> Void) {
        out(rows.headers.map(escape).joined(separator: "\t") + "\n")
        for r in 0..<rows.count {
            out(rows.row(r).map(escape).joined(separator: "\t") + "\n")
        }
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
