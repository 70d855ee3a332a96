// Every environment variable subs reads, declared once. The options' own variables are in
// their OptionSpec (`--store` / SUBS_STORE); the others are here, with what they set. Nothing
// reads the environment by a name written anywhere else, and the man page's ENVIRONMENT
// section and the README's list are generated from, or checked against, `documented`.

import SubsStore
import SubsProviders

public struct EnvironmentVariable: Sendable {
    public typealias Store = @Sendable (String, inout GlobalOptions) throws -> Void

    public var name: String
    /// What it does, as the man page says it (a sentence, with its final period).
    public var help: String
    /// Whether an empty value counts as unset (SUBS_API_KEY= is a key, and an empty one).
    var emptyIsUnset: Bool
    /// Test hooks are read like the others and documented nowhere.
    var hidden: Bool
    /// Stores the value in `GlobalOptions` while options are resolved (throwing a ValueProblem
    /// for a bad one: exit 78); nil for a variable read where it is used (SUBS_NOW, HOME...).
    var store: Store?

    init(_ name: String, emptyIsUnset: Bool = true, hidden: Bool = false, help: String, store: Store? = nil) {
        self.name = name
        self.help = help
        self.emptyIsUnset = emptyIsUnset
        self.hidden = hidden
        self.store = store
    }

    /// Its value in `environment`, nil when unset (or empty, unless an empty value counts).
    public func value(in environment: [String: String]) -> String? {
        guard let value = environment[name] else { return nil }
        return value.isEmpty && emptyIsUnset ? nil : value
    }
}

public enum EnvironmentSpec {
    static let apiKey = EnvironmentVariable(
        "SUBS_API_KEY", emptyIsUnset: false,
        help: "The API key itself, when no key file is given. It is never printed, logged or cached.",
        store: { value, options in options.apiKey = value })
    static let now = EnvironmentVariable(
        "SUBS_NOW",
        help: "An ISO 8601 date-time that replaces the clock for the whole process: status, grant and revocation "
            + "dates, relative times. For reproducible scripts and tests.")
    static let user = EnvironmentVariable(
        "USER", help: "Who makes changes when neither --actor nor SUBS_ACTOR is given.")
    static let lockTimeout = EnvironmentVariable(
        "SUBS_LOCK_TIMEOUT",
        help: "Seconds a write waits for the store lock before exit status {exit:temporary}, 0 or more in plain decimal; "
            + "default 10, and 5 for serve, which then answers 503 busy before a client with the default "
            + "--timeout gives up. Anything else is exit status {exit:config}.",
        store: { value, options in
            guard let seconds = ValueCheck.seconds(value, allowingZero: true) else {
                throw ValueProblem(reason: "\(Terminal.quoted(value)) is not a number of seconds (0 or more, e.g. 10 or 0.5)")
            }
            options.lockTimeout = seconds
        })
    static let serverToken = EnvironmentVariable(
        "SUBS_SERVER_TOKEN", help: "The bearer token serve requires, when --token-file is not given.",
        store: { value, options in options.serverToken = value })
    static let noColor = EnvironmentVariable("NO_COLOR", help: "When set and not empty, --color auto prints no colour.")
    static let term = EnvironmentVariable("TERM", help: "When dumb, --color auto prints no colour.")
    static let columns = EnvironmentVariable(
        "COLUMNS", help: "Width of help text, tables and (on a terminal) error lines; default: the terminal's, else 80.")
    static let lines = EnvironmentVariable(
        "LINES", help: "Height of the terminal: output taller than it goes through the pager; default: the terminal's.")
    /// Empty counts (it turns the pager off, as GIT_PAGER= does).
    static let subsPager = EnvironmentVariable(
        "SUBS_PAGER", emptyIsUnset: false,
        help: "Same as --pager: the pager for output taller than the terminal; empty or cat: none.",
        store: { value, options in options.pager = value })
    /// Set for the pager when unset, as git does: less quits when the output fits one screen,
    /// keeps colours and leaves the screen as it was (LV the same for lv).
    static let less = EnvironmentVariable(
        "LESS", help: "Options of less when it is the pager; when unset, subs gives it FRX for the pager, as git does.")
    static let lv = EnvironmentVariable("LV", help: "Options of lv when it is the pager; when unset, subs gives it -c.")
    static let pager = EnvironmentVariable(
        "PAGER", emptyIsUnset: false,
        help: "The pager when neither --pager, SUBS_PAGER nor the config file names one; empty or cat: none. "
            + "Default less -FRX.")
    static let home = EnvironmentVariable(
        "HOME", help: "The home directory; when unset or empty, the one in the password database.")
    static let xdgDataHome = EnvironmentVariable(
        "XDG_DATA_HOME", help: "Base of the default store path; default ~/.local/share.")
    static let xdgConfigHome = EnvironmentVariable(
        "XDG_CONFIG_HOME", help: "Base of the default config file; default ~/.config.")
    static let xdgCacheHome = EnvironmentVariable(
        "XDG_CACHE_HOME", help: "Base of the remote answer cache; default ~/.cache.")
    static let httpsProxy = EnvironmentVariable(
        "https_proxy",
        help: "A proxy for https requests (also HTTPS_PROXY, ALL_PROXY and no_proxy, as libcurl reads them). "
            + "Plain http, sent only to loopback, never goes through a proxy.")
    /// Test hook: the store writer sleeps at this step (writing, syncing, renaming, renamed) so
    /// that a test can kill it exactly there; SUBS_TEST_PAUSE_FOR shortens the pause.
    static let testPauseAt = EnvironmentVariable(
        "SUBS_TEST_PAUSE_AT", hidden: true, help: "",
        store: { value, options in options.writePause = WritePause(step: value, seconds: options.writePause?.seconds ?? 30) })
    static let testPauseFor = EnvironmentVariable(
        "SUBS_TEST_PAUSE_FOR", hidden: true, help: "",
        store: { value, options in
            if let seconds = Double(value) { options.writePause?.seconds = seconds }
        })

    /// Test hook: the bytes of remote answers a command may hold (RemoteBudget), lowered.
    static let testAnswerBytes = EnvironmentVariable(
        "SUBS_TEST_ANSWER_BYTES", hidden: true, help: "",
        store: { value, options in
            if let bytes = ValueCheck.bytes(value) { options.answerBytes = bytes }
        })

    /// The variables without an option of their own, in the order the man page lists them;
    /// the resolver reads those with a `store` in this order.
    static let variables: [EnvironmentVariable] = [apiKey] + providerVariables + [
        now, user, lockTimeout, serverToken, noColor, term, columns, lines, subsPager, pager, less, lv, home,
        xdgDataHome, xdgConfigHome, xdgCacheHome, httpsProxy, testPauseAt, testPauseFor, testAnswerBytes,
    ]

    /// The variables a provider reads without an option (ProviderDescriptor.settings).
    static let providerVariables: [EnvironmentVariable] = ProviderDescriptor.registered.flatMap(\.settings).compactMap { setting in
        guard setting.option == nil else { return nil }
        return EnvironmentVariable(setting.environment, help: setting.help,
                                   store: { value, options in options.providerSettings[setting.key] = value })
    }

    /// Every documented variable of `commandLine`: the global options' (`As --store: ...`), the
    /// command options' (SUBS_ACTOR), then the others.
    public static func documented(in commandLine: CommandLineSpec) -> [(name: String, help: String)] {
        var list: [(name: String, help: String)] = []
        for option in commandLine.globalOptions {
            if let name = option.environment { list.append((name, "Same as \(option.longName): \(lowerFirst(option.help)).")) }
        }
        var seen = Set(list.map(\.name))
        for command in commandLine.visibleCommands {
            for option in command.options {
                guard let name = option.environment, !seen.contains(name) else { continue }
                seen.insert(name)
                let users = commandLine.visibleCommands.filter { $0.option(named: option.long) != nil }
                    .map(\.name.rawValue).joined(separator: " and ")
                list.append((name, "Same as \(option.longName) of \(users): \(lowerFirst(option.help))."))
            }
        }
        return list + variables.filter { !$0.hidden }.map { ($0.name, $0.help) }
    }

    /// "The local JSON store" → "the local JSON store"; "IAPHUB: ..." stays as it is.
    private static func lowerFirst(_ text: String) -> String {
        guard let first = text.first, let second = text.dropFirst().first, second.isLowercase else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
