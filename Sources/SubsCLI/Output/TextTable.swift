// Aligned tables for terminals and pipes, and TSV, from rows of cells. Every cell coming from
// data goes through `Terminal.escape`, so data can never drive the terminal.

struct Cell {
    var text: String
    var style: Style?
    init(_ text: String, _ style: Style? = nil) {
        self.text = text
        self.style = style
    }
}

struct TextTable {
    var headers: [String]
    var rows: [[Cell]]

    /// Columns separated by two spaces, UPPERCASE headers; on a terminal, the widest columns
    /// are cut (with "…") to fit `style.columns`.
    func render(_ style: OutputStyle) -> String {
        let cells = rows.map { $0.map { Cell(Terminal.escape($0.text), $0.style) } }
        var widths = headers.map(\.count)
        for row in cells {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.text.count)
            }
        }
        if style.terminal { widths = fit(widths, into: style.columns) }
        var out = ""
        let header = headers.enumerated().map { pad(cut($1.uppercased(), widths[$0]), widths[$0], last: $0 == headers.count - 1) }
        out += (style.color ? "\u{1B}[1m" + header.joined(separator: "  ") + "\u{1B}[0m" : header.joined(separator: "  "))
        out = out.trimmingTrailingSpaces() + "\n"
        for row in cells {
            var line = ""
            for (i, cell) in row.enumerated() where i < widths.count {
                if i > 0 { line += "  " }
                let text = pad(cut(cell.text, widths[i]), widths[i], last: i == row.count - 1)
                if style.color, let s = cell.style {
                    let body = text.trimmingTrailingSpaces()
                    line += "\u{1B}[\(s.sgr)m\(body)\u{1B}[0m" + String(repeating: " ", count: text.count - body.count)
                } else {
                    line += text
                }
            }
            out += line.trimmingTrailingSpaces() + "\n"
        }
        return out
    }

    /// A header line, then tab-separated rows; tabs, newlines, backslashes and control
    /// characters inside values are escaped.
    func renderTSV() -> String {
        var out = headers.map(TextTable.tsvEscape).joined(separator: "\t") + "\n"
        for row in rows {
            out += row.map { TextTable.tsvEscape($0.text) }.joined(separator: "\t") + "\n"
        }
        return out
    }

    static func tsvEscape(_ text: String) -> String {
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

    /// Narrows the widest columns, one character at a time, never below their header or 8.
    private func fit(_ widths: [Int], into columns: Int) -> [Int] {
        var widths = widths
        let floors = headers.map { max($0.count, 8) }
        let separators = 2 * max(0, widths.count - 1)
        while widths.reduce(0, +) + separators > columns {
            let shrinkable = widths.indices.filter { widths[$0] > floors[$0] }
            guard let widest = shrinkable.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        return widths
    }

    private func cut(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    private func pad(_ text: String, _ width: Int, last: Bool) -> String {
        last ? text : text + String(repeating: " ", count: max(0, width - text.count))
    }

}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
