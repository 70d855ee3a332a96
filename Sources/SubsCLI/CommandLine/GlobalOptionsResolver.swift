// Global options after precedence: flag > environment > config file > default.

import SubsKit

enum GlobalOptionsResolver {
    /// `flags`: the global options given on the command line (aliases already turned into the
    /// option they stand for), by long name, last one winning, as the parser checked and typed
    /// them (paths with `~` expanded).
    static func resolve(flags: [String: OptionValue], environment: [String: String], now: Instant) throws -> GlobalOptions {
        var options = GlobalOptions()
        let configFlag = flags["config"]?.text
        if let location = ConfigFile.location(flag: configFlag, environment: environment) {
            do {
                if let config = try ConfigFile.load(path: location.path, explicit: location.explicit,
                                                    environment: environment) {
                    options.configPath = config.path
                    for key in ConfigFile.keys {
                        if let entry = config.entries[key] { apply(key, entry.value, to: &options) }
                    }
                }
            } catch let unreadable as ConfigFile.Unreadable {
                // A config file you named must be read; the default one (say, under a home
                // directory you may not read) is only a convenience.
                guard !location.explicit else { throw ConfigError(unreadable.message) }
                options.warnings.append(unreadable.message + "; going on without it")
            }
        }
        if let text = environment["SUBS_LOCK_TIMEOUT"], !text.isEmpty {
            guard let seconds = ValueCheck.seconds(text, allowingZero: true) else {
                throw ConfigError("SUBS_LOCK_TIMEOUT: \(Terminal.quoted(text)) is not a number of seconds (0 or more, e.g. 10 or 0.5)")
            }
            options.lockTimeout = seconds
        }
        for spec in CommandLineSpec.globalOptions where flags[spec.long] == nil && spec.long != "config" {
            guard let variable = spec.environment, var value = environment[variable], !value.isEmpty,
                  let kind = spec.kind else { continue }
            if kind == .file { value = ValueCheck.expandingTilde(value, environment: environment) }
            do {
                apply(spec.long, try ValueCheck.value(value, kind: kind, now: now), to: &options)
            } catch let problem as ValueProblem {
                throw ConfigError("\(variable): \(problem.reason)")
            }
        }
        for (name, value) in flags {
            apply(name, value, to: &options)
        }
        return options
    }

    /// Stores one already-checked value in its field of GlobalOptions.
    private static func apply(_ name: String, _ value: OptionValue, to options: inout GlobalOptions) {
        // Every global option of CommandLineSpec is a case here: GlobalOptionName is checked
        // against the spec by a test, and the switch is exhaustive.
        guard let option = GlobalOptionName(rawValue: name) else { return }
        switch (option, value) {
        case (.store, .text(let path)): options.store = path
        case (.remote, .text(let url)): options.remote = url
        case (.provider, .text(let name)): options.provider = name
        case (.apiKeyFile, .text(let path)): options.apiKeyFile = path
        case (.at, .instant(let instant)): options.at = instant
        case (.format, .text(let word)): options.format = OutputFormat(rawValue: word) ?? options.format
        case (.color, .text(let word)): options.color = ColorMode(rawValue: word) ?? options.color
        case (.quiet, _): options.quiet = true
        case (.timeout, .seconds(let seconds)): options.timeout = seconds
        case (.offline, _): options.offline = true
        case (.maxAge, .duration(let duration)): options.maxAge = duration
        case (.iaphubPlatform, .text(let platform)): options.iaphubPlatform = platform
        case (.config, _), (.help, _), (.version, _), (.json, _), (.noColor, _): break
        default: break   // a value of another kind than the spec says cannot come from ValueCheck
        }
    }
}

/// The global options by name, one case each (the spec's `--json` and `--no-color` are aliases
/// the parser turns into `--format`/`--color`).
enum GlobalOptionName: String, CaseIterable {
    case store, remote, provider
    case apiKeyFile = "api-key-file"
    case at, format, json, color
    case noColor = "no-color"
    case quiet, timeout, offline
    case maxAge = "max-age"
    case iaphubPlatform = "iaphub-platform"
    case config, help, version
}
