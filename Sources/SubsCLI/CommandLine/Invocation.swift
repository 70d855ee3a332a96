// What the parser hands to a command: the command, resolved global options, its own options
// and positional arguments. Parser (CommandLine/) and commands (Commands/) meet only here.

import SubsKit

public enum CommandName: String, CaseIterable, Sendable {
    case check, grant, revoke, history
    case renewCount = "renew-count"
    case find
    case storeInit = "store init"
    case storeValidate = "store validate"
    case serve, completion, help
    /// Hidden: `subs __complete customers|entitlements [PREFIX]` lists ids for the completion scripts.
    case complete = "__complete"

    /// Commands that need neither the clock, the config file nor the environment's settings
    /// (SPEC 7: completion works whatever they hold).
    var worksWhateverTheEnvironment: Bool { self == .completion || self == .complete }
}

public enum OutputFormat: String, CaseIterable, Sendable {
    case table, json, jsonl, tsv
}

public enum ColorMode: String, CaseIterable, Sendable {
    case auto, always, never
}

/// Global options after precedence (flag > environment > config file > default) was applied.
public struct GlobalOptions: Sendable {
    /// nil: the default path (`$XDG_DATA_HOME/subs/store.json`), which `Commands.storePath` computes.
    public var store: String?
    public var remote: String?
    public var provider: String = "subs"
    public var apiKeyFile: String?
    /// `--at`, already parsed (`now` resolved against the clock).
    public var at: Instant?
    public var format: OutputFormat = .table
    public var color: ColorMode = .auto
    public var quiet: Bool = false
    public var timeout: Double = 10
    public var offline: Bool = false
    public var maxAge: ISODuration?
    /// IAPHUB's `platform` query value (`--iaphub-platform`).
    public var iaphubPlatform: String = IAPHUBSource.defaultPlatform
    /// Seconds a write waits for the store lock (`SUBS_LOCK_TIMEOUT`: plain decimal, 0 = do not wait).
    public var lockTimeout: Double = 10
    /// The config file that was read, if any.
    public var configPath: String?
    /// Said on stderr before the command runs (`subs: warning: ...`): a default config file
    /// that exists but cannot be read.
    public var warnings: [String] = []

    public init() {}
}

/// An option value as checked against its kind: commands never parse option text again.
public enum OptionValue: Equatable, Sendable {
    /// Text of any textual kind (a path with `~` expanded, a URL, an id, one of a choice's words).
    case text(String)
    case instant(Instant)
    case duration(ISODuration)
    case count(Int)
    case seconds(Double)
    case hostPort(host: String, port: Int)
    /// A flag that was given.
    case flag

    var text: String? { if case .text(let s) = self { return s }; return nil }
}

public struct Invocation: Sendable {
    public var command: CommandName
    public var global: GlobalOptions
    /// Positional arguments after the command name (a `-` stays "-": commands read stdin).
    public var positionals: [String]
    /// Command options by long name without dashes, typed. Repeatable options keep every value
    /// in order. Commands read them through their spec entries (`invocation.instant(Options.until)`).
    public var options: [String: [OptionValue]]

    public init(command: CommandName, global: GlobalOptions = GlobalOptions(),
                positionals: [String] = [], options: [String: [OptionValue]] = [:]) {
        self.command = command
        self.global = global
        self.positionals = positionals
        self.options = options
    }

    public func text(_ option: OptionSpec) -> String? { options[option.long]?.last?.text }
    public func texts(_ option: OptionSpec) -> [String] { options[option.long]?.compactMap(\.text) ?? [] }
    public func flag(_ option: OptionSpec) -> Bool { options[option.long] != nil }

    public func instant(_ option: OptionSpec) -> Instant? {
        if case .instant(let value)? = options[option.long]?.last { return value }
        return nil
    }

    public func duration(_ option: OptionSpec) -> ISODuration? {
        if case .duration(let value)? = options[option.long]?.last { return value }
        return nil
    }

    public func count(_ option: OptionSpec) -> Int? {
        if case .count(let value)? = options[option.long]?.last { return value }
        return nil
    }

    public func hostPort(_ option: OptionSpec) -> (host: String, port: Int)? {
        if case .hostPort(let host, let port)? = options[option.long]?.last { return (host, port) }
        return nil
    }
}

/// A usage error (exit 64): printed as `subs: error: MESSAGE`, then `did you mean 'X'?`
/// when there is a suggestion, then `usage: ...`.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String
    public var suggestion: String?
    /// The command whose usage line to print (nil: the top-level usage).
    public var command: CommandName?

    public init(_ message: String, suggestion: String? = nil, command: CommandName? = nil) {
        self.message = message
        self.suggestion = suggestion
        self.command = command
    }
}

/// A bad config file (exit 78): "PATH:LINE: unknown key 'x'".
public struct ConfigError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
