// How help text is laid out, in swift-argument-parser's shape: sections wrapped to the terminal,
// `  LABEL   text` rows with the text wrapped under itself, entries read as sentences. Help,
// `subs commands` and the man page's sentences share it; the text comes with its prose markup
// already rendered (ProseMarkup).

enum HelpLayout {
    /// Where help sentences start; longer labels put their sentence on the next line.
    static let helpColumn = 26

    /// `  LABEL                   help text wrapped under itself`
    static func row(_ label: String, _ text: String, columns: Int) -> String {
        let first = "  " + label
        if first.count + 2 <= helpColumn {
            let padded = first + String(repeating: " ", count: helpColumn - first.count)
            return padded + wrap(text, indent: helpColumn, columns: columns).dropFirst(helpColumn)
        }
        return first + "\n" + wrap(text, indent: helpColumn, columns: columns)
    }

    static func section(_ text: String, columns: Int) -> String {
        wrap(text, indent: 0, columns: columns) + "\n"
    }

    /// Greedy word wrap; every line starts with `indent` spaces and ends with a newline.
    /// A word longer than the line stays whole rather than being cut.
    static func wrap(_ text: String, indent: Int, columns: Int) -> String {
        let width = max(columns - indent, 20)
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines.map { pad + $0 + "\n" }.joined()
    }

    /// Table entries are kept without a final period; help prints them as sentences.
    static func sentence(_ text: String) -> String {
        guard let last = text.last else { return text }
        return ".!?".contains(last) ? text : text + "."
    }
}
