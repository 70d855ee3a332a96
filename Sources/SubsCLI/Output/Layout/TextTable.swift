// Aligned tables for terminals and pipes, from rows of cells. Every cell coming from
// data goes through `Terminal.escape`, so data can never drive the terminal.
//
// On a terminal a table fits COLUMNS without cutting anything: the widest free-text column
// wraps at word boundaries first (down to a floor), then the table's documented steps run in
// order — leave a column out, or put the dates' relative hints under the dates — and when even
// that is not enough, or the terminal is narrower than `blockLayoutBelow`, every row becomes a
// block of `label: value` lines. Piped, a table is never cut or wrapped: one line per row.

import SubsModel

struct Cell {
    var text: String
    var style: Style?
    /// Units that are never broken when the cell wraps (a date, a product id with its store);
    /// nil: the words of `text`.
    var pieces: [String]?

    init(_ text: String, _ style: Style? = nil, pieces: [String]? = nil) {
        self.text = text
        self.style = style
        self.pieces = pieces
    }

    /// An id as written.
    init(_ id: ID, _ style: Style? = nil) {
        self.init(id.string, style)
    }
}

struct Column {
    enum Kind {
        /// Free text: wraps at word boundaries, and gives way first.
        case text
        /// A date with its relative hint: never cut; the hint may move under the date.
        case date
        /// Ids and short words: never cut, never wrapped.
        case fixed
    }

    var header: String
    var kind: Kind
    /// Columns with a rank are left out, lowest rank first, when the table cannot fit otherwise;
    /// nil: always shown.
    var dropRank: Int?
    /// Left out when every cell is empty (notes, ids).
    var omitWhenEmpty: Bool
    /// A free-text column wraps no narrower than this (nor than its longest word).
    var softMinimum: Int

    init(_ header: String, _ kind: Kind = .fixed, dropRank: Int? = nil, omitWhenEmpty: Bool = false,
         softMinimum: Int = 12) {
        self.header = header
        self.kind = kind
        self.dropRank = dropRank
        self.omitWhenEmpty = omitWhenEmpty
        self.softMinimum = softMinimum
    }
}

struct TextTable {
    var columns: [Column]
    /// How many rows, and each row, made when it is needed: a table of a million history entries
    /// is laid out in passes over its rows, never held whole (the widths come from a first pass,
    /// the lines are written in a second).
    let rowCount: Int
    let row: (Int) -> [Cell]
    /// Among the drop ranks, when the dates' relative hints move under the dates instead.
    var hintsGiveWayAt = Int.max
    /// Whether the hints, when they give way, are left out rather than moved under the dates:
    /// a `--wide` table keeps every column the user asked for and drops the hints before any.
    var hintsDropWhenGivingWay = false

    /// Terminals narrower than this get one block per row.
    static let blockLayoutBelow = 60
    /// The narrowest width laid out; a smaller COLUMNS is taken as this. Below 19 columns a date
    /// and its indent no longer fit on one line: only there is a date split (never cut).
    static let narrowest = 10
    /// `2026-03-01 12:00Z`: a date cell never breaks inside this.
    static let dateWidth = 17

    init(columns: [Column], rows: [[Cell]], hintsGiveWayAt: Int = .max, hintsDropWhenGivingWay: Bool = false) {
        self.init(columns: columns, rowCount: rows.count, row: { rows[$0] }, hintsGiveWayAt: hintsGiveWayAt,
                  hintsDropWhenGivingWay: hintsDropWhenGivingWay)
    }

    init(columns: [Column], rowCount: Int, row: @escaping (Int) -> [Cell], hintsGiveWayAt: Int = .max,
         hintsDropWhenGivingWay: Bool = false) {
        self.columns = columns
        self.rowCount = rowCount
        self.row = row
        self.hintsGiveWayAt = hintsGiveWayAt
        self.hintsDropWhenGivingWay = hintsDropWhenGivingWay
    }

    /// A table of fixed columns.
    init(headers: [String], rows: [[Cell]]) {
        self.init(columns: headers.map { Column($0) }, rows: rows)
    }

    var headers: [String] { columns.map(\.header) }

    /// Every row (small tables).
    var rows: [[Cell]] { (0..<rowCount).map(row) }

    /// The rows as shown: every cell escaped, one per column; without the dates' relative hints
    /// once they are dropped.
    private struct Shown {
        let table: TextTable
        var withoutHints = false

        var count: Int { table.rowCount }

        func callAsFunction(_ r: Int) -> [Cell] {
            let row = table.row(r)
            return table.columns.indices.map { i in
                guard i < row.count else { return Cell("") }
                let cell = row[i]
                if withoutHints, table.columns[i].kind == .date, let pieces = cell.pieces, pieces.count > 1 {
                    let date = Terminal.escape(pieces[0])
                    return Cell(date, cell.style, pieces: [date])
                }
                return Cell(Terminal.escape(cell.text), cell.style, pieces: cell.pieces?.map(Terminal.escape))
            }
        }

        /// Calls `body` with each row, in order.
        func forEach(_ body: ([Cell]) -> Void) {
            for r in 0..<count { body(self(r)) }
        }
    }

    /// Columns separated by two spaces, UPPERCASE headers, fitted to the terminal as the file
    /// header says.
    func render(_ style: OutputStyle) -> String {
        var out = ""
        write(style) { out += $0 }
        return out
    }

    /// `render`, written a row at a time.
    func write(_ style: OutputStyle, to out: (String) -> Void) {
        var cells = Shown(table: self)
        var empty = columns.map(\.omitWhenEmpty)
        var natural = columns.map { TextLayout.width($0.header) }
        cells.forEach { row in
            for i in columns.indices {
                if empty[i] && !row[i].text.isEmpty { empty[i] = false }
                natural[i] = max(natural[i], TextLayout.width(row[i].text))
            }
        }
        var shown = columns.indices.filter { !empty[$0] }
        guard style.terminal else { return lines(cells, shown: shown, widths: natural, style: style, to: out) }
        let width = max(style.columns, Self.narrowest)
        if width < Self.blockLayoutBelow { return blocks(cells, shown: shown, width: width, style: style, to: out) }
        var hintsUnder = false
        while true {
            if let widths = fit(cells, shown: shown, hintsUnder: hintsUnder, into: width) {
                return lines(cells, shown: shown, widths: widths, style: style, to: out)
            }
            let droppable = shown.filter { columns[$0].dropRank != nil }
            let next = droppable.min { columns[$0].dropRank! < columns[$1].dropRank! }
            if !hintsUnder && next.map({ columns[$0].dropRank! > hintsGiveWayAt }) ?? true {
                hintsUnder = true
                if hintsDropWhenGivingWay { cells.withoutHints = true }
                continue
            }
            guard let next else { return blocks(cells, shown: shown, width: width, style: style, to: out) }
            shown.removeAll { $0 == next }
        }
    }

    private func pieces(_ cell: Cell) -> [String] {
        cell.pieces ?? TextLayout.words(cell.text)
    }

    private func naturalWidths(_ cells: Shown) -> [Int] {
        var widths = columns.map { TextLayout.width($0.header) }
        cells.forEach { row in for i in columns.indices { widths[i] = max(widths[i], TextLayout.width(row[i].text)) } }
        return widths
    }

    /// Widths that fit `width` with every shown column, or nil.
    private func fit(_ cells: Shown, shown: [Int], hintsUnder: Bool, into width: Int) -> [Int]? {
        var widths = naturalWidths(cells)
        var longestPiece = columns.map { TextLayout.width($0.header) }
        cells.forEach { row in
            for i in columns.indices {
                longestPiece[i] = pieces(row[i]).reduce(longestPiece[i]) { max($0, TextLayout.width($1)) }
            }
        }
        func total() -> Int { shown.reduce(0) { $0 + widths[$1] } + 2 * max(0, shown.count - 1) }
        if hintsUnder {
            for i in shown where columns[i].kind == .date { widths[i] = longestPiece[i] }
        }
        // Free text gives way first, the widest column one character at a time.
        let floors = columns.indices.map { i in max(longestPiece[i], min(widths[i], columns[i].softMinimum)) }
        let natural = widths
        while total() > width {
            let text = shown.filter { columns[$0].kind == .text && widths[$0] > floors[$0] }
            guard let widest = text.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[widest] -= 1
        }
        guard total() <= width else { return nil }
        // Wrapping at words leaves some columns narrower than allowed: take that back, then give
        // the room left to the narrowest wrapped columns first, so a short cell wraps only if it must.
        let wrapped = shown.filter { widths[$0] < natural[$0] }
        for i in wrapped { widths[i] = used(cells, column: i, width: widths[i]) }
        for i in wrapped.sorted(by: { natural[$0] < natural[$1] }) {
            let spare = width - total()
            guard spare > 0 else { break }
            widths[i] = used(cells, column: i, width: min(natural[i], widths[i] + spare))
        }
        return widths
    }

    /// How wide column `i` really is when its cells wrap at `width`.
    private func used(_ cells: Shown, column i: Int, width: Int) -> Int {
        var best = TextLayout.width(columns[i].header)
        cells.forEach { row in
            let cell = row[i]
            if TextLayout.width(cell.text) <= width {
                best = max(best, TextLayout.width(cell.text))
            } else {
                best = TextLayout.fold(pieces: pieces(cell), columns: width).reduce(best) { max($0, TextLayout.width($1)) }
            }
        }
        return best
    }

    private func lines(_ cells: Shown, shown: [Int], widths: [Int], style: OutputStyle, to write: (String) -> Void) {
        let header = shown.enumerated().map { n, i in
            n == shown.count - 1 ? columns[i].header.uppercased() : TextLayout.padded(columns[i].header.uppercased(), to: widths[i])
        }.joined(separator: "  ").trimmingTrailingSpaces()
        write((style.color ? "\u{1B}[1m" + header + "\u{1B}[0m" : header) + "\n")
        cells.forEach { row in
            var out = ""
            let folded = shown.map { i -> [String] in
                let cell = row[i]
                if TextLayout.width(cell.text) <= widths[i] { return [cell.text] }
                return TextLayout.fold(pieces: pieces(cell), columns: widths[i])
            }
            let height = folded.map(\.count).max() ?? 1
            for lineIndex in 0..<height {
                var line = ""
                for (n, i) in shown.enumerated() {
                    if n > 0 { line += "  " }
                    let text = lineIndex < folded[n].count ? folded[n][lineIndex] : ""
                    let cell = n == shown.count - 1 ? text : TextLayout.padded(text, to: widths[i])
                    if style.color, let s = row[i].style, !text.isEmpty {
                        line += "\u{1B}[\(s.sgr)m\(text)\u{1B}[0m" + String(cell.dropFirst(text.count))
                    } else {
                        line += cell
                    }
                }
                out += line.trimmingTrailingSpaces() + "\n"
            }
            write(out)
        }
    }

    /// One block per row: the first column's value as a title, then `label: value` lines.
    private func blocks(_ cells: Shown, shown: [Int], width: Int, style: OutputStyle, to write: (String) -> Void) {
        guard let title = shown.first else { return }
        let labels = shown.dropFirst().map { columns[$0].header.lowercased() + ":" }
        let labelWidth = labels.map(TextLayout.width).max() ?? 0
        cells.forEach { row in
            var out = ""
            for line in TextLayout.fold(pieces: pieces(row[title]), columns: width) {
                out += (style.color ? "\u{1B}[1m\(line)\u{1B}[0m" : line) + "\n"
            }
            for (label, i) in zip(labels, shown.dropFirst()) where !row[i].text.isEmpty {
                let valueWidth = width - 2 - labelWidth - 1
                if valueWidth < 16 {
                    // Too narrow to put values beside their labels: each value under its label,
                    // indented less when a date would not fit whole otherwise.
                    out += TextLayout.fold(pieces: [label], columns: width - 2).map { "  " + $0 + "\n" }.joined()
                    let indent = width - 4 >= Self.dateWidth ? 4 : width - 2 >= Self.dateWidth ? 2 : 0
                    for line in TextLayout.fold(pieces: pieces(row[i]), columns: width - indent) {
                        out += String(repeating: " ", count: indent) + paint(line, row[i].style, style) + "\n"
                    }
                    continue
                }
                let value = TextLayout.fold(pieces: pieces(row[i]), columns: valueWidth)
                let indent = 2 + labelWidth + 1
                out += "  " + TextLayout.padded(label, to: labelWidth) + " " + paint(value[0], row[i].style, style) + "\n"
                for line in value.dropFirst() {
                    out += String(repeating: " ", count: indent) + paint(line, row[i].style, style) + "\n"
                }
            }
            write(out)
        }
    }

    private func paint(_ text: String, _ cellStyle: Style?, _ style: OutputStyle) -> String {
        guard style.color, let cellStyle, !text.isEmpty else { return text }
        return "\u{1B}[\(cellStyle.sgr)m\(text)\u{1B}[0m"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
