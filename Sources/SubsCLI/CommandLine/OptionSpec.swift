// The shapes of the command-line description: options, positional arguments, commands.
// `CommandLineSpec` holds them; parser, help, completions and man page read them.

/// What an option value or positional argument is; drives validation and completion.
public enum ValueKind: Equatable, Sendable {
    /// Free text.
    case text
    /// Free text that must say something (a reason, an actor name).
    case nonEmptyText
    /// A file path (completed as a file name).
    case file
    case url
    /// DATE: `2026-03-01T12:00:00Z`, `2026-03-01` or `now`.
    case date
    /// DURATION: ISO 8601 (`P3M`, `PT12H`).
    case duration
    /// A non-negative integer.
    case count
    /// A positive number of seconds, fractions allowed.
    case seconds
    /// A size in bytes: digits, optionally followed by K, M or G (powers of 1024; `KiB`, `MB`…
    /// read alike); 0 allowed.
    case bytes
    /// One of a fixed list of words.
    case choice([String])
    /// A customer id or alias (completed from the store).
    case customer
    /// An entitlement id (completed from the store's catalog).
    case entitlement
    /// `HOST:PORT` (`127.0.0.1:8787`, `[::1]:8787`).
    case hostPort
    /// A command name (`help COMMAND`).
    case command

    public var choices: [String]? {
        if case .choice(let words) = self { return words }
        return nil
    }
}

public struct OptionSpec: Sendable {
    /// Long name without the dashes (`format`).
    public var long: String
    public var short: Character?
    /// nil: a flag that takes no value.
    public var kind: ValueKind?
    /// How the value is shown in help (`PATH`, `DATE`).
    public var valueName: String
    public var repeatable: Bool
    /// The environment variable documented for this option. For global options the parser reads
    /// it (flag > environment > config file > default); for command options the command does.
    public var environment: String?
    /// The default, as documented in help and the man page.
    public var defaultValue: String?
    public var help: String
    /// A shorthand for another option's value (`--json` is `--format json`).
    public var alias: OptionAlias?
    public var hidden: Bool

    public init(_ long: String, short: Character? = nil, kind: ValueKind? = nil, valueName: String = "",
                repeatable: Bool = false, environment: String? = nil, defaultValue: String? = nil,
                alias: OptionAlias? = nil, hidden: Bool = false, help: String) {
        self.long = long
        self.short = short
        self.kind = kind
        self.valueName = valueName
        self.repeatable = repeatable
        self.environment = environment
        self.defaultValue = defaultValue
        self.help = help
        self.alias = alias
        self.hidden = hidden
    }

    public var isFlag: Bool { kind == nil }
    public var longName: String { "--" + long }
    public var shortName: String? { short.map { "-\($0)" } }

    /// `-q, --quiet` or `--store PATH`, as help and the man page show it.
    public var label: String {
        var text = shortName.map { $0 + ", " } ?? ""
        text += longName
        if !isFlag { text += " " + valueName }
        return text
    }

    /// The help sentence with the choices, default and environment variable appended.
    public var fullHelp: String {
        var text = help
        var notes: [String] = []
        if let choices = kind?.choices {
            notes.append("one of " + choices.joined(separator: ", "))
        }
        if let d = defaultValue { notes.append("default " + d) }
        if let e = environment { notes.append("env " + e) }
        if repeatable { notes.append("repeatable") }
        if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
        return text
    }
}

public struct OptionAlias: Sendable {
    public var long: String
    public var value: String
    public init(_ long: String, _ value: String) {
        self.long = long
        self.value = value
    }
}

public struct ArgumentSpec: Sendable {
    public enum Arity: Sendable { case one, optional, oneOrMore }
    /// Upper case, as in usage lines (`USER`).
    public var name: String
    public var kind: ValueKind
    public var arity: Arity
    public var help: String

    public init(_ name: String, kind: ValueKind, arity: Arity = .one, help: String) {
        self.name = name
        self.kind = kind
        self.arity = arity
        self.help = help
    }

    /// The help sentence with the choices appended.
    public var fullHelp: String {
        guard let choices = kind.choices else { return help }
        return help + " (one of " + choices.joined(separator: ", ") + ")"
    }

    /// `USER`, `[ENTITLEMENT]`, `USER...`
    public var usage: String {
        switch arity {
        case .one: return name
        case .optional: return "[\(name)]"
        case .oneOrMore: return name + "..."
        }
    }
}

public struct Example: Sendable {
    public var command: String
    public var explanation: String
    public init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}

/// A command: what help, the completions, the man page and `commands --json` say of it, what
/// the parser checks, and the code that runs it. Each command's file declares its spec, and one
/// line registers it in the command line (CommandLineSpec.subs).
public struct CommandSpec: Sendable {
    public typealias Runner = @Sendable (Invocation, Context) throws -> ExitCode

    public var name: CommandName
    /// One sentence, no final period (lists); help adds it.
    public var abstract: String
    public var discussion: String?
    public var arguments: [ArgumentSpec]
    public var options: [OptionSpec]
    /// Groups of options of which exactly one must be given (`grant`'s expiry).
    public var exactlyOneOf: [[String]]
    /// What each exit status means for this command (`subs help COMMAND`, `commands --json`).
    public var exitStatuses: CommandExitStatuses
    public var examples: [Example]
    /// Hidden commands (`__complete`) are left out of help, completions and the man page.
    public var hidden: Bool
    /// Its answer may be long: on a terminal, output taller than the screen goes through the pager.
    public var paged: Bool
    /// Whether it reads the config file and the environment's settings: `completion` prints a
    /// fixed script that none of them may break.
    public var readsSettings: Bool
    /// Whether it reads the clock: a bad SUBS_NOW fails only the commands that do (SPEC section 7:
    /// completion works whatever the environment holds).
    public var readsClock: Bool
    /// Says nothing on standard error, whatever goes wrong (the status still tells): `__complete`
    /// runs at TAB time, inside the user's prompt.
    public var silent: Bool
    /// Runs the command on a parsed invocation; errors it throws become `subs: error:` lines
    /// with their status (Commands.describe).
    public var run: Runner

    public init(_ name: CommandName, abstract: String, discussion: String? = nil,
                arguments: [ArgumentSpec] = [], options: [OptionSpec] = [], exactlyOneOf: [[String]] = [],
                exitStatuses: CommandExitStatuses = CommandExitStatuses(), examples: [Example] = [],
                hidden: Bool = false, paged: Bool = false, readsSettings: Bool = true, readsClock: Bool = true,
                silent: Bool = false, run: @escaping Runner) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.exactlyOneOf = exactlyOneOf
        self.exitStatuses = exitStatuses
        self.examples = examples
        self.hidden = hidden
        self.paged = paged
        self.readsSettings = readsSettings
        self.readsClock = readsClock
        self.silent = silent
        self.run = run
    }

    /// The words typed to run it (`["store", "init"]`).
    public var words: [String] { name.rawValue.split(separator: " ").map(String.init) }

    /// `subs check [options] USER...`
    public var usage: String {
        (["subs", name.rawValue, "[options]"] + arguments.map(\.usage)).joined(separator: " ")
    }

    public func option(named long: String) -> OptionSpec? { options.first { $0.long == long } }
}
