// The global options, one entry each: the option as help, completions and the man page show it
// (its environment variable and default included), whether the config file may set it, and
// where its checked value lands in `GlobalOptions`. Adding a global option is one entry here
// and its field in `GlobalOptions`; parser, resolver, config file and documentation follow.

import SubsProviders

/// One global option and how its value, already checked against its kind, is stored.
struct GlobalOption: Sendable {
    typealias Store = @Sendable (OptionValue, inout GlobalOptions) -> Void

    var spec: OptionSpec
    /// Whether `long = value` may be written in the config file.
    var inConfigFile: Bool
    /// nil: the option sets no field (help, version, the aliases, the config file's own path).
    var store: Store?

    init(_ spec: OptionSpec, config: Bool = false, _ store: Store?) {
        self.spec = spec
        self.inConfigFile = config
        self.store = store
    }
}

enum GlobalOptionTable {
    static let entries: [GlobalOption] = common + providerOptions + [
        // Read before everything else (it says where the other settings are): ConfigFile.location.
        GlobalOption(OptionSpec("config", kind: .file, valueName: "PATH", environment: "SUBS_CONFIG",
                                defaultValue: "$XDG_CONFIG_HOME/subs/config", help: "Config file"), nil),
        GlobalOption(OptionSpec("help", short: "h", help: "Show help"), nil),
        GlobalOption(OptionSpec("version", help: "Show the version"), nil),
    ]

    private static let common: [GlobalOption] = [
        GlobalOption(OptionSpec("store", kind: .file, valueName: "PATH", environment: "SUBS_STORE",
                                defaultValue: "$XDG_DATA_HOME/subs/store.json", help: "The local JSON store"),
                     config: true, text { $0.store = $1 }),
        GlobalOption(OptionSpec("remote", kind: .url, valueName: "URL", environment: "SUBS_REMOTE",
                                help: "Use a remote REST endpoint instead of the local store (https, or http on loopback)"),
                     config: true, text { $0.remote = $1 }),
        GlobalOption(OptionSpec("provider", kind: .choice(Provider.allCases.map(\.rawValue)), valueName: "NAME",
                                environment: "SUBS_PROVIDER", defaultValue: Provider.subs.rawValue,
                                help: "Where the customers are: subs (store or subs serve), "
                                    + Provider.allCases.dropFirst().map(\.rawValue).joined(separator: ", ")),
                     config: true, word { $0.provider = $1 }),
        GlobalOption(OptionSpec("api-key-file", kind: .file, valueName: "PATH", environment: "SUBS_API_KEY_FILE",
                                help: "File holding the API key or token for --remote; SUBS_API_KEY is also read"),
                     config: true, text { $0.apiKeyFile = $1 }),
        GlobalOption(OptionSpec("at", kind: .date, valueName: "DATE", help: "Evaluate status as of DATE instead of now"),
                     typed({ $0.instant }) { $0.at = $1 }),
        GlobalOption(OptionSpec("format", kind: .choice(OutputFormat.allCases.map(\.rawValue)), valueName: "FORMAT",
                                environment: "SUBS_FORMAT", defaultValue: "table", help: "Output format"),
                     config: true, word { $0.format = $1 }),
        GlobalOption(OptionSpec("json", alias: OptionAlias("format", "json"), help: "Same as --format json"), nil),
        GlobalOption(OptionSpec("color", kind: .choice(ColorMode.allCases.map(\.rawValue)), valueName: "WHEN",
                                defaultValue: "auto",
                                help: "Colour; auto colours only a terminal, with NO_COLOR unset or empty "
                                    + "and TERM not dumb"),
                     config: true, word { $0.color = $1 }),
        GlobalOption(OptionSpec("no-color", alias: OptionAlias("color", "never"), help: "Same as --color never"), nil),
        GlobalOption(OptionSpec("quiet", short: "q", help: "Print nothing on standard output; the exit status tells"),
                     flag { $0.quiet = true }),
        // SUBS_PAGER is read as an EnvironmentSpec variable: an empty value turns the pager off.
        GlobalOption(OptionSpec("pager", kind: .text, valueName: "COMMAND", defaultValue: "$SUBS_PAGER, then $PAGER, then less -FRX",
                                help: "On a terminal, output taller than the screen goes through COMMAND; empty or cat: no pager"),
                     config: true, text { $0.pager = $1 }),
        GlobalOption(OptionSpec("no-pager", alias: OptionAlias("pager", "cat"), help: "Same as --pager cat: never a pager"), nil),
        GlobalOption(OptionSpec("timeout", kind: .seconds, valueName: "SECONDS", environment: "SUBS_TIMEOUT",
                                defaultValue: "10",
                                help: "Remote time budget in seconds, fractions allowed: every request of the command "
                                    + "ends within it"),
                     config: true, typed({ $0.seconds }) { $0.timeout = $1 }),
        GlobalOption(OptionSpec("cache-max", kind: .bytes, valueName: "SIZE", environment: "SUBS_CACHE_MAX",
                                defaultValue: "128M",
                                help: "Bound of the remote answer cache, in bytes or with K, M, G; the oldest "
                                    + "answers go first; 0 caches nothing"),
                     config: true, typed({ $0.count }) { $0.cacheMax = $1 }),
        GlobalOption(OptionSpec("offline", help: "Remote: answer from the local cache only"), flag { $0.offline = true }),
        GlobalOption(OptionSpec("max-age", kind: .duration, valueName: "DURATION",
                                help: "Remote: answer from the cache when it is younger than DURATION"),
                     typed({ $0.duration }) { $0.maxAge = $1 }),
    ]

    /// The options a provider declares (ProviderDescriptor.settings), which the config file may
    /// also set; their values reach the provider's source as they are.
    private static let providerOptions: [GlobalOption] = ProviderDescriptor.registered.flatMap(\.settings).compactMap { setting in
        guard let long = setting.option else { return nil }
        let spec = OptionSpec(long, kind: setting.choices.map { .choice($0) } ?? .nonEmptyText, valueName: setting.valueName,
                              environment: setting.environment, defaultValue: setting.defaultValue, help: setting.help)
        return GlobalOption(spec, config: true, text { $0.providerSettings[setting.key] = $1 })
    }

    static func entry(named long: String) -> GlobalOption? { entries.first { $0.spec.long == long } }

    /// `--config`, which says where the other settings are.
    static var configFile: OptionSpec {
        guard let entry = entry(named: "config") else { preconditionFailure("--config missing from the table") }
        return entry.spec
    }

    // One helper per shape of value, so that an entry says only which field it sets.

    private static func text(_ set: @escaping @Sendable (inout GlobalOptions, String) -> Void) -> GlobalOption.Store {
        typed({ $0.text }, set)
    }

    private static func flag(_ set: @escaping @Sendable (inout GlobalOptions) -> Void) -> GlobalOption.Store {
        { _, options in set(&options) }
    }

    /// The value as the option's kind types it. Another shape is an entry whose kind and field
    /// disagree: a programming error, which GlobalOptionTableTests finds by giving every entry a value.
    private static func typed<Value>(_ read: @escaping @Sendable (OptionValue) -> Value?,
                                     _ set: @escaping @Sendable (inout GlobalOptions, Value) -> Void) -> GlobalOption.Store {
        { value, options in
            guard let typed = read(value) else { preconditionFailure("\(value) does not fit its field") }
            set(&options, typed)
        }
    }

    /// A choice whose words are an enum's raw values (the spec lists `allCases`).
    private static func word<Word: RawRepresentable & CaseIterable & Sendable>(
        _ set: @escaping @Sendable (inout GlobalOptions, Word) -> Void) -> GlobalOption.Store where Word.RawValue == String {
        let words = Word.allCases.map { ($0.rawValue, $0) }
        return typed({ value in words.first { $0.0 == value.text }?.1 }, set)
    }
}
