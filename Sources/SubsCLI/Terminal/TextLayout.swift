// Widths and wrapping for the terminal: how many columns a text takes, and text folded at word
// boundaries so that no line is wider than the terminal (a word wider than a whole line is the
// only thing ever split, and it is split, never cut: nothing is lost).

enum TextLayout {
    /// Columns a text takes on a terminal: wide East Asian characters and most emoji take two,
    /// combining marks and zero-width characters none, everything else one. Text from data is
    /// escaped before it is measured, so no control character reaches this.
    static func width(_ text: String) -> Int {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.count }
        var total = 0
        for scalar in text.unicodeScalars { total += width(of: scalar) }
        return total
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B || (0xFE00...0xFE0F).contains(v) { return 0 }
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` padded with spaces to `columns` wide.
    static func padded(_ text: String, to columns: Int) -> String {
        let missing = columns - width(text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }

    /// Lines of at most `columns` wide made of `pieces` (unbreakable units: words, a date),
    /// joined by one space; a piece wider than a line is split across lines. `later`: the
    /// width of the lines after the first, when it differs.
    static func fold(pieces: [String], columns: Int, later: Int? = nil) -> [String] {
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        func limit() -> Int { max(lines.isEmpty ? columns : (later ?? columns), 1) }
        for piece in pieces where !piece.isEmpty {
            let w = width(piece)
            if lineWidth > 0 && lineWidth + 1 + w <= limit() {
                line += " " + piece
                lineWidth += 1 + w
                continue
            }
            if lineWidth > 0 { lines.append(line) }
            line = ""
            lineWidth = 0
            if w <= limit() {
                line = piece
                lineWidth = w
                continue
            }
            // Split by characters, each part as wide as the line it starts.
            for character in piece {
                let cw = width(String(character))
                if lineWidth + cw > limit() && lineWidth > 0 {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                line.append(character)
                lineWidth += cw
            }
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// Words of a sentence, for `fold`.
    static func words(_ text: String) -> [String] {
        text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    /// A sentence folded to `columns`, continuation lines indented by `indent` spaces.
    static func wrap(_ text: String, columns: Int, indent: Int = 2) -> [String] {
        let indent = min(indent, max(columns - 8, 0))
        let pad = String(repeating: " ", count: indent)
        let lines = fold(pieces: words(text), columns: columns, later: max(columns - indent, 1))
        return lines.enumerated().map { $0.offset == 0 ? $0.element : pad + $0.element }
    }
}
