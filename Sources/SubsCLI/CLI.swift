// The entry point of the command line: parse subs's command line (CommandLineSpec.subs), run the
// command its spec names, turn failures into wording and exit statuses.

import SubsSystem
import SubsModel

public enum CLI {
    public static let version = CommandLineSpec.subs.version

    /// Runs one invocation of `subs` and returns its exit status. Never exits, never touches
    /// the real process: everything goes through `context`.
    public static func run(arguments: [String], context: Context) -> ExitCode {
        var context = context
        if context.stderrIsTerminal {
            // On a terminal an error line wraps at its width, on word boundaries (tables already do).
            let write = context.writeErr, columns = context.columns
            context.writeErr = { write(Paging.wrapped($0, columns: columns)) }
        }
        var paged: PagedOutput?
        let status = execute(arguments, context: &context, paged: &paged)
        if let paged, let lines = context.lines {
            paged.finish(lines: lines, columns: context.columns, environment: context.environment) { warning in
                context.writeErr("subs: warning: \(warning)\n")
            }
        }
        switch context.finishOut() {
        case .delivered:
            return status
        case .closedPipe:
            // Whoever read the output went away (`subs check alice | head -1`): nothing to say.
            return status.combined(with: .brokenPipe)
        case .failed(let reason):
            context.writeErr("subs: error: cannot write standard output: \(reason)\n")
            return status.combined(with: .cannotWriteOutput)
        }
    }

    private static func execute(_ arguments: [String], context: inout Context, paged: inout PagedOutput?) -> ExitCode {
        if let raw = context.rawArguments, let (index, bytes) = raw.enumerated().first(where: {
            String(validating: $0.element, as: UTF8.self) == nil
        }).map({ ($0.offset, $0.element) }) {
            context.writeErr(usageErrorText(UsageError(
                "argument \(index + 1) is not valid UTF-8: '\(Terminal.showingInvalidUTF8(bytes))'")))
            return .usage
        }
        // The completion scripts run `subs __complete` at TAB time: whatever goes wrong, the
        // user's prompt gets no error lines (the status still tells).
        let commandLine = CommandLineSpec.subs
        let scan = Result { try ArgumentScan(arguments, of: commandLine) }
        if case .success(let scanned) = scan, let name = scanned.command, commandLine.command(name).silent {
            context.writeErr = { _ in }
        }
        // A bad SUBS_NOW matters only to commands that read the clock; help, --version and the
        // completion scripts work whatever the environment holds.
        var clockProblem: String?
        if let now = EnvironmentSpec.now.value(in: context.environment) {
            do {
                context.clock = FixedClock(try ISODate.read(now))
            } catch {
                let why = error as? ISODateProblem == .outOfRange
                    ? "is outside years 0001-9999" : "is not an ISO 8601 date-time (2026-03-01T12:00:00Z)"
                clockProblem = "\(EnvironmentSpec.now.name): \(Terminal.quoted(now)) \(why)"
            }
        }
        let outcome: ParseOutcome
        do {
            outcome = try CommandLineParser.parse(scan.get(), environment: context.environment, now: context.clock.now())
        } catch let error as UsageError {
            context.writeErr(usageErrorText(error))
            return .usage
        } catch let error as ConfigError {
            context.writeErr("subs: error: \(Terminal.shortened(error.message))\n")
            return .configError
        } catch let error as SecretFileError {
            // A config file another user owns or may write: refused (77), whatever the command.
            context.writeErr("subs: error: \(Terminal.message(error.message))\n")
            return ExitCode(for: error)
        } catch {
            context.writeErr("subs: error: \(Terminal.message("\(error)"))\n")
            return .internalError
        }
        switch outcome {
        case .version:
            context.writeOut("subs \(version)\n")
            return .success
        case .help(let command):
            context.writeOut(HelpRenderer(commandLine).help(for: command, columns: context.columns))
            return .success
        case .groupHelp(let group):
            context.writeOut(HelpRenderer(commandLine).help(forGroup: group, columns: context.columns))
            return .success
        case .run(let invocation):
            let spec = commandLine.command(invocation.command)
            if let clockProblem, spec.readsClock {
                context.writeErr("subs: error: \(clockProblem)\n")
                return .configError
            }
            for warning in invocation.global.warnings { context.writeErr("subs: warning: \(Terminal.shortened(warning))\n") }
            if let pager = Paging.command(for: invocation, of: spec, context: context) {
                // The whole answer is made before any of it is shown: held back, then paged or not.
                let held = PagedOutput(command: pager, write: context.writeOut)
                context.writeOut = { held.add($0) }
                paged = held
            }
            do {
                return try spec.run(invocation, context)
            } catch {
                return Commands.report(error, context)
            }
        }
    }

    static func usageErrorText(_ error: UsageError) -> String {
        var text = "subs: error: \(Terminal.shortened(error.message))\n"
        if let suggestion = error.suggestion { text += "did you mean '\(suggestion)'?\n" }
        text += "usage: \(HelpRenderer(.subs).usageLine(for: error.command))\n"
        return text
    }
}
