// How output looks on this run: colour, terminal niceties, width, and "now" for relative dates.

import SubsKit

struct OutputStyle {
    var format: OutputFormat
    var color: Bool
    /// stdout is a terminal: relative date hints and truncation to `columns`.
    var terminal: Bool
    var columns: Int
    var now: Instant

    init(format: OutputFormat, color: Bool, terminal: Bool, columns: Int, now: Instant) {
        self.format = format
        self.color = color
        self.terminal = terminal
        self.columns = columns
        self.now = now
    }

    init(_ global: GlobalOptions, context: Context) {
        let env = context.environment
        let color: Bool
        switch global.color {
        case .always: color = true
        case .never: color = false
        case .auto:
            color = context.stdoutIsTerminal && (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb"
        }
        self.init(format: global.format, color: color, terminal: context.stdoutIsTerminal,
                  columns: context.columns, now: context.clock.now())
    }

    /// A date for a table cell: `2026-03-01 12:00Z`, plus "(in 9d)" on a terminal.
    func date(_ instant: Instant?) -> String {
        guard let instant else { return "-" }
        let text = ISODate.formatShort(instant)
        return terminal ? "\(text) (\(ISODate.relative(instant, now: now)))" : text
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
