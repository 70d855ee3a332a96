// What commands share: the USER and ENTITLEMENT arguments and the options of several commands,
// where the data comes from, the users named on the command line or stdin, how failures are
// said, and how a result is printed.

import SubsSystem
import SubsModel
import SubsStore
import SubsRemote
import SubsSource
import SubsProviders

extension ArgumentSpec {
    static let users = ArgumentSpec("USER", kind: .customer, arity: .oneOrMore,
                                    help: "A customer id or alias; '-' reads ids from standard input, "
                                        + "one per line (blank lines and # comments skipped)")
    static let entitlement = ArgumentSpec("ENTITLEMENT", kind: .entitlement, help: "An entitlement id")
}

extension CommandLineSpec.Options {
    static let wide = OptionSpec("wide", help: "Tables add the id columns (transactions, grants, products)")
    static let reason = OptionSpec("reason", kind: .nonEmptyText, valueName: "TEXT",
                                   help: "Why, recorded with the change")
    static let actor = OptionSpec("actor", kind: .nonEmptyText, valueName: "NAME", environment: "SUBS_ACTOR",
                                  defaultValue: "$SUBS_ACTOR, then $USER", help: "Who made the change")
    static let dryRun = OptionSpec("dry-run", help: "Print the result, write nothing")
}

enum Commands {
    /// One `subs: error:` line on stderr, and the status it stands for.
    static func report(_ error: Error, _ context: Context) -> ExitCode {
        let (code, message) = describe(error)
        context.writeErr("subs: error: \(Terminal.message(message))\n")
        return code
    }

    /// The status of `error` (ExitCode(for:)) and the words it is said with.
    static func describe(_ error: Error) -> (ExitCode, String) {
        guard let code = ExitCode.known(error) else { return (.internalError, "internal error: \(error)") }
        switch error {
        case let own as ExitStatusError:
            return (code, own.message)
        case StoreError.missing(let path):
            // A newcomer's first run: say how to point subs at a store, or get one to try.
            return (code, "\(path): no such store; name one with --store PATH or SUBS_STORE, create one with "
                        + "'subs store init', or try the demo customers: 'subs store init --demo' "
                        + "(the same store as examples/store.json)")
        case let notOffered as NotOffered:
            return (code, ProseMarkup.render(notOffered.reason, flags: CommandLineSpec.subs.flagNames))
        default:
            // The library's errors say themselves.
            return (code, String(describing: error))
        }
    }

    // MARK: shared by commands

    /// `--store`, else `$XDG_DATA_HOME/subs/store.json`, else `~/.local/share/subs/store.json`.
    static func storePath(_ invocation: Invocation, _ context: Context) -> String {
        if let store = invocation.global.store { return store }
        let env = context.environment
        if let data = EnvironmentSpec.xdgDataHome.value(in: env), data.hasPrefix("/") { return data + "/subs/store.json" }
        return (EnvironmentSpec.home.value(in: env) ?? "") + "/.local/share/subs/store.json"
    }

    static func source(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        try SourceFactory.make(invocation, context)
    }

    /// Says, in one line for all of them, which customers of a batch the remote budget left
    /// unanswered (`unanswered`: their ids and errors, in order); returns the status they stand
    /// for (69 for a timeout, 76 for answers too large), `.success` when there are none.
    static func reportUnanswered(_ unanswered: [(id: ID, error: RemoteError)], of total: Int, _ context: Context) -> ExitCode {
        guard let first = unanswered.first else { return .success }
        let names = unanswered.prefix(3).map { Terminal.quoted($0.id, escaping: false) }.joined(separator: ", ")
            + (unanswered.count > 3 ? ", …" : "")
        let message = "\(unanswered.count) of \(total) customers not answered (\(names)): \(first.error.budgetReason); "
            + "the others are answered"
        context.writeErr("subs: error: \(Terminal.message(message))\n")
        return ExitCode(for: first.error)
    }

    /// Notes of an answer, on stderr.
    static func say(_ notes: [String], _ context: Context) {
        for note in notes { context.writeErr(Terminal.message("subs: note: \(note)") + "\n") }
    }

    /// The one sentence an incomplete answer is said with (nil: complete); a source that says
    /// incomplete without a reason still gets one, so `complete: false` never comes without it.
    static func incompleteReason(complete: Bool, _ reason: String?) -> String? {
        guard !complete else { return nil }
        return reason.flatMap { $0.isEmpty ? nil : $0 } ?? "the provider did not give the whole history"
    }

    /// At most this many warnings of one answer are said one by one: a server that sends a
    /// hundred thousand malformed items must not bury the terminal (the rest are counted).
    static let warningLimit = 20

    /// Warnings of an answer (parts of a provider's answer left out as malformed), on stderr.
    static func warn(_ warnings: [String], _ context: Context) {
        for warning in warnings.prefix(warningLimit) { context.writeErr(Terminal.message("subs: warning: \(warning)") + "\n") }
        if warnings.count > warningLimit {
            context.writeErr("subs: warning: \(warnings.count - warningLimit) more warnings like these, not shown\n")
        }
    }

    /// The USER arguments with `-` replaced by the ids read from stdin (one per line; blank lines
    /// and `#` comments skipped). Stdin is read once, so `-` may appear once. `requiringIds`: a
    /// `-` that reads no id is a usage error (a write or a gate must not pass on an empty list,
    /// say when the program feeding the ids failed).
    static func users(_ arguments: [String], _ context: Context, requiringIds: Bool = false,
                      command: CommandName? = nil) throws -> [ID] {
        try terms(arguments, context, requiringIds: requiringIds, command: command).ids
    }

    /// `users` as typed (find's terms, which are not all ids).
    static func terms(_ arguments: [String], _ context: Context, requiringIds: Bool = false,
                      command: CommandName? = nil) throws -> [String] {
        guard arguments.contains("-") else { return arguments }
        guard arguments.filter({ $0 == "-" }).count == 1 else {
            throw UsageError("'-' (ids from standard input) may appear only once")
        }
        let fromStdin = try StdinIds.read(context)
        if requiringIds && fromStdin.isEmpty {
            throw UsageError("'-' read no customer ids from standard input", command: command)
        }
        return arguments.flatMap { $0 == "-" ? fromStdin : [$0] }
    }

    /// How output looks on this run: colour (`--color`, then the terminal, NO_COLOR and TERM),
    /// the terminal's width, `--wide`.
    static func style(_ invocation: Invocation, _ context: Context) -> OutputStyle {
        let env = context.environment
        let color: Bool
        switch invocation.global.color {
        case .always: color = true
        case .never: color = false
        case .auto:
            color = context.stdoutIsTerminal && EnvironmentSpec.noColor.value(in: env) == nil
                && EnvironmentSpec.term.value(in: env) != "dumb"
        }
        var style = OutputStyle(color: color, terminal: context.stdoutIsTerminal, columns: context.columns,
                                now: context.clock.now())
        style.wide = invocation.flag(CommandLineSpec.Options.wide)
        return style
    }

    /// `result` on standard output, in the format asked for; `now`: the instant relative dates
    /// count from, when the answer says it (else the clock's).
    static func write(_ result: CommandResult, _ invocation: Invocation, _ context: Context, now: Instant? = nil) {
        var style = style(invocation, context)
        if let now { style.now = now }
        // Written as the result makes it: a large result (a history of a whole listing) a piece at a time.
        result.write(invocation.global.format, style, to: context.writeOut)
    }

    /// `--at`, whenever it is given: tables then say at which instant they judged. Always, not only
    /// when it differs from now, so that a command pinned to an instant prints the same on any date
    /// (the README's examples are).
    static func judgedAt(_ invocation: Invocation, _ context: Context) -> Instant? {
        invocation.global.at
    }

    /// An entitlement no product unlocks is a typo, not a customer without it: exit 3, with the
    /// nearest known id as a suggestion. The same check serves every command that names one.
    static func checkEntitlementExists(_ entitlement: ID, known: Set<ID>) throws {
        guard !known.contains(entitlement) else { return }
        var message = "no product unlocks entitlement \(Terminal.quoted(entitlement, escaping: false))"
        if let near = EditDistance.closest(to: entitlement, among: known.sorted()) {
            message += " (did you mean \(Terminal.quoted(near, escaping: false))?\(ChangeError.otherSpelling(near, entitlement)))"
        }
        throw CommandFailure(.notFound, message)
    }
}
