// What the parser hands to a command: the command, resolved global options, its own options
// and positional arguments. Parser (CommandLine/) and commands (Commands/) meet only here.

import SubsModel
import SubsStore
import SubsRemote
import SubsProviders

/// A command's name as typed (`check`, `store init`). Each command's file declares its own
/// (`CommandName.check`); the parser answers `help` itself, so that one is declared here.
public struct CommandName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let help = CommandName("help")
}

public enum ColorMode: String, CaseIterable, Sendable {
    case auto, always, never
}

/// Where the customers are (`--provider`): the store or subs serve, or a platform's API — one of
/// the providers registered in SubsProviders (`ProviderDescriptor.registered`), named by its word.
public struct Provider: RawRepresentable, CaseIterable, Equatable, Sendable {
    public let descriptor: ProviderDescriptor

    public init(_ descriptor: ProviderDescriptor) { self.descriptor = descriptor }

    public init?(rawValue: String) {
        guard let descriptor = ProviderDescriptor.registered.first(where: { $0.name == rawValue }) else { return nil }
        self.init(descriptor)
    }

    public var rawValue: String { descriptor.name }

    public static var allCases: [Provider] { ProviderDescriptor.registered.map(Provider.init) }

    /// The default: the local store, or subs serve with --remote.
    public static let subs = Provider(.subs)

    public static func == (a: Provider, b: Provider) -> Bool { a.rawValue == b.rawValue }
}

/// Global options after precedence (flag > environment > config file > default) was applied,
/// and the settings only the environment gives (EnvironmentSpec). Each field is filled by its
/// entry in GlobalOptionTable or EnvironmentSpec.
public struct GlobalOptions: Equatable, Sendable {
    /// nil: the default path (`$XDG_DATA_HOME/subs/store.json`), which `Commands.storePath` computes.
    public var store: String?
    public var remote: String?
    public var provider: Provider = .subs
    public var apiKeyFile: String?
    /// `--at`, already parsed (`now` resolved against the clock).
    public var at: Instant?
    public var format: OutputFormat = .table
    public var color: ColorMode = .auto
    public var quiet: Bool = false
    public var timeout: Double = 10
    /// `--cache-max` (SUBS_CACHE_MAX): the bound of the answer cache in bytes; 0 turns it off.
    public var cacheMax: Int = ResponseCache.defaultMaxBytes
    public var offline: Bool = false
    public var maxAge: ISODuration?
    /// Seconds a write waits for the store lock (`SUBS_LOCK_TIMEOUT`: plain decimal, 0 = do not
    /// wait); nil: not set, and the command's default applies (`lockWait`).
    public var lockTimeout: Double?
    /// `SUBS_API_KEY`: the key itself, used when no key file is named.
    public var apiKey: String?
    /// The provider settings that were set (`--iaphub-platform`, `SUBS_IAPHUB_ENVIRONMENT`…), by
    /// `ProviderSetting.key`, for the provider's source to read.
    public var providerSettings: [String: String] = [:]
    /// `SUBS_SERVER_TOKEN`: the token `serve` requires when no --token-file is given.
    public var serverToken: String?
    /// Test hook (`SUBS_TEST_ANSWER_BYTES`): the bytes of remote answers a command may hold,
    /// lowered so that a test reaches the bound without sending 256 MiB.
    public var answerBytes: Int = RemoteBudget.defaultByteLimit
    /// Test hook (`SUBS_TEST_PAUSE_AT`, `SUBS_TEST_PAUSE_FOR`): where the store writer pauses.
    public var writePause: WritePause?
    /// The pager (`--pager`, `--no-pager`, SUBS_PAGER, the config file); nil: PAGER, else `less -FRX`.
    public var pager: String?
    /// The config file that was read, if any.
    public var configPath: String?
    /// Said on stderr before the command runs (`subs: warning: ...`): a default config file
    /// that exists but cannot be read.
    public var warnings: [String] = []

    public init() {}

    /// What a command writing the store waits for its lock: SUBS_LOCK_TIMEOUT, else 10 s.
    public var lockWait: Double { lockTimeout ?? 10 }
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

    // One accessor per case: nil when the value has another shape.
    var text: String? { if case .text(let s) = self { return s }; return nil }
    var instant: Instant? { if case .instant(let v) = self { return v }; return nil }
    var duration: ISODuration? { if case .duration(let v) = self { return v }; return nil }
    var count: Int? { if case .count(let v) = self { return v }; return nil }
    var seconds: Double? { if case .seconds(let v) = self { return v }; return nil }
    var hostPort: (host: String, port: Int)? { if case .hostPort(let h, let p) = self { return (h, p) }; return nil }
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

    // Typed accessors. Asking for another shape than the option's kind gives is a programming
    // error: it stops here instead of reading nil (OptionTableTests checks every option of the
    // spec against ValueCheck's shapes). An option the command lacks reads as not given.

    public func text(_ option: OptionSpec) -> String? { last(option, .text)?.text }
    public func texts(_ option: OptionSpec) -> [String] { all(option, .text).compactMap(\.text) }
    public func flag(_ option: OptionSpec) -> Bool { last(option, .flag) != nil }
    public func instant(_ option: OptionSpec) -> Instant? { last(option, .instant)?.instant }
    public func duration(_ option: OptionSpec) -> ISODuration? { last(option, .duration)?.duration }
    public func count(_ option: OptionSpec) -> Int? { last(option, .count)?.count }
    public func hostPort(_ option: OptionSpec) -> (host: String, port: Int)? { last(option, .hostPort)?.hostPort }

    private func last(_ option: OptionSpec, _ shape: OptionValue.Shape) -> OptionValue? { all(option, shape).last }

    private func all(_ option: OptionSpec, _ shape: OptionValue.Shape) -> [OptionValue] {
        precondition(OptionValue.Shape(option.kind) == shape,
                     "--\(option.long) is read as \(shape), but its kind gives \(OptionValue.Shape(option.kind))")
        let values = options[option.long] ?? []
        precondition(values.allSatisfy { OptionValue.Shape($0) == shape }, "--\(option.long) holds \(values), not \(shape)")
        return values
    }
}

extension OptionValue {
    /// Which case of OptionValue an option's kind gives (ValueCheck), and which accessor reads it.
    enum Shape: Equatable {
        case text, instant, duration, count, seconds, hostPort, flag

        init(_ kind: ValueKind?) {
            switch kind {
            case nil: self = .flag
            case .date?: self = .instant
            case .duration?: self = .duration
            case .count?, .bytes?: self = .count
            case .seconds?: self = .seconds
            case .hostPort?: self = .hostPort
            case .text?, .nonEmptyText?, .file?, .url?, .choice?, .customer?, .entitlement?, .command?: self = .text
            }
        }

        init(_ value: OptionValue) {
            switch value {
            case .text: self = .text
            case .instant: self = .instant
            case .duration: self = .duration
            case .count: self = .count
            case .seconds: self = .seconds
            case .hostPort: self = .hostPort
            case .flag: self = .flag
            }
        }
    }
}

/// A usage error (exit 64): printed as `subs: error: MESSAGE`, then `did you mean 'X'?`
/// when there is a suggestion, then `usage: ...`.
public struct UsageError: ExitStatusError, Equatable, Sendable {
    public var message: String
    public var suggestion: String?
    /// The command whose usage line to print (nil: the top-level usage).
    public var command: CommandName?

    public init(_ message: String, suggestion: String? = nil, command: CommandName? = nil) {
        self.message = message
        self.suggestion = suggestion
        self.command = command
    }

    var exitCode: ExitCode { .usage }
}

/// A bad config file (exit 78): "PATH:LINE: unknown key 'x'".
public struct ConfigError: ExitStatusError, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }

    var exitCode: ExitCode { .configError }
}
