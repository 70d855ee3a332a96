// How output looks on this run: colour, terminal niceties, width, and "now" for relative dates
// (Commands.style makes it from the options and the context).

import SubsModel

struct OutputStyle {
    var color: Bool
    /// stdout is a terminal: relative date hints, and tables and sentences fitted to `columns`.
    var terminal: Bool
    var columns: Int
    /// The instant relative hints count from: the instant judged (`--at`, else now).
    var now: Instant
    /// `--wide`: tables add the id columns.
    var wide = false

    init(color: Bool, terminal: Bool, columns: Int, now: Instant) {
        self.color = color
        self.terminal = terminal
        self.columns = columns
        self.now = now
    }

    /// A date for a table cell: `2026-03-01 12:00Z`, plus "(in 9d)" on a terminal.
    func date(_ instant: Instant?) -> String {
        dateCell(instant).text
    }

    /// The same as a cell whose date and hint never break apart inside (only between them).
    func dateCell(_ instant: Instant?, _ cellStyle: Style? = nil) -> Cell {
        guard let instant else { return Cell("-", cellStyle) }
        let text = ISODate.formatShort(instant)
        guard terminal else { return Cell(text, cellStyle, pieces: [text]) }
        let hint = "(\(ISODate.relative(instant, now: now)))"
        return Cell("\(text) \(hint)", cellStyle, pieces: [text, hint])
    }

    /// Lines of a sentence: on a terminal folded at word boundaries to the width (continuation
    /// lines indented), piped as they are. Data in it is escaped first.
    func sentence(_ text: String) -> String {
        let escaped = Terminal.escape(text)
        guard terminal else { return escaped + "\n" }
        return TextLayout.wrap(escaped, columns: max(columns, TextTable.narrowest)).map { $0 + "\n" }.joined()
    }

    /// The line above a table judged at `--at`: "as of 2026-11-20 10:00Z (--at)", the date never
    /// broken across lines.
    func judged(at instant: Instant) -> String {
        let date = ISODate.formatShort(instant)
        guard terminal else { return "as of \(date) (--at)\n" }
        return TextLayout.fold(pieces: ["as", "of", date, "(--at)"], columns: max(columns, TextTable.narrowest))
            .map { $0 + "\n" }.joined()
    }
}

enum Style {
    case green, yellow, red, dim, bold

    var sgr: String {
        switch self {
        case .green: return "32"
        case .yellow: return "33"
        case .red: return "31"
        case .dim: return "2"
        case .bold: return "1"
        }
    }

    static func of(_ state: EntitlementState) -> Style {
        switch state {
        case .active: return .green
        case .gracePeriod, .billingRetry, .paused: return .yellow
        case .expired, .unknown: return .dim
        case .revoked: return .red
        }
    }
}
