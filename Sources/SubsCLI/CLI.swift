// The entry point of the command line: parse, dispatch, turn failures into wording and exit statuses.

import SubsKit

public enum CLI {
    public static let version = "0.1.0"

    /// Runs one invocation of `subs` and returns its exit status. Never exits, never touches
    /// the real process: everything goes through `context`.
    public static func run(arguments: [String], context: Context) -> ExitCode {
        var context = context
        if let now = context.environment["SUBS_NOW"], !now.isEmpty {
            let instant: Instant
            do {
                instant = try ISODate.read(now)
            } catch {
                let why = error as? ISODateProblem == .outOfRange
                    ? "is outside years 0001-9999" : "is not an ISO 8601 date-time (2026-03-01T12:00:00Z)"
                context.writeErr("subs: error: SUBS_NOW: '\(Terminal.escape(now))' \(why)\n")
                return .configError
            }
            context.clock = FixedClock(instant)
        }
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser.parse(arguments: arguments, environment: context.environment,
                                                  now: context.clock.now())
        } catch let error as UsageError {
            context.writeErr(usageErrorText(error))
            return .usage
        } catch let error as ConfigError {
            context.writeErr("subs: error: \(error.message)\n")
            return .configError
        } catch {
            context.writeErr("subs: error: \(error)\n")
            return .internalError
        }
        switch outcome {
        case .version:
            context.writeOut("subs \(version)\n")
            return .success
        case .help(let command):
            context.writeOut(HelpRenderer.help(for: command, columns: context.columns))
            return .success
        case .groupHelp(let group):
            context.writeOut(HelpRenderer.help(forGroup: group, columns: context.columns))
            return .success
        case .run(let invocation):
            return Commands.run(invocation, context: context)
        }
    }

    static func usageErrorText(_ error: UsageError) -> String {
        var text = "subs: error: \(error.message)\n"
        if let suggestion = error.suggestion { text += "did you mean '\(suggestion)'?\n" }
        text += "usage: \(HelpRenderer.usageLine(for: error.command))\n"
        return text
    }
}

public enum ParseOutcome: Sendable {
    case run(Invocation)
    /// Help for a command (nil: the overview), from `help [COMMAND]` or `--help`.
    case help(CommandName?)
    /// Help for a group of two-word commands (`subs help store`).
    case groupHelp(String)
    case version
}
