// Global options after precedence: flag > environment > config file > default.

import SubsKit

enum GlobalOptionsResolver {
    /// `flags`: the global options given on the command line (aliases already turned into the
    /// option they stand for), by long name, last one winning; flags hold "". Flag values were
    /// checked by the parser already.
    static func resolve(flags: [String: String], environment: [String: String], now: Instant) throws -> GlobalOptions {
        var options = GlobalOptions()
        var configFlag = flags["config"]
        if let c = configFlag { configFlag = ValueCheck.expandingTilde(c, environment: environment) }
        if let location = ConfigFile.location(flag: configFlag, environment: environment) {
            do {
                if let config = try ConfigFile.load(path: location.path, explicit: location.explicit,
                                                    environment: environment) {
                    options.configPath = config.path
                    for key in ConfigFile.keys {
                        if let entry = config.entries[key] { apply(key, entry.value, to: &options, now: now) }
                    }
                }
            } catch let unreadable as ConfigFile.Unreadable {
                // A config file you named must be read; the default one (say, under a home
                // directory you may not read) is only a convenience.
                guard !location.explicit else { throw ConfigError(unreadable.message) }
                options.warnings.append(unreadable.message + "; going on without it")
            }
        }
        if let text = environment["SUBS_LOCK_TIMEOUT"], !text.isEmpty, lockTimeout(text) == nil {
            throw ConfigError("SUBS_LOCK_TIMEOUT: \(Terminal.quoted(text)) is not a number of seconds (0 or more, e.g. 10 or 0.5)")
        }
        for spec in CommandLineSpec.globalOptions where flags[spec.long] == nil && spec.long != "config" {
            guard let variable = spec.environment, var value = environment[variable], !value.isEmpty,
                  let kind = spec.kind else { continue }
            if kind == .file { value = ValueCheck.expandingTilde(value, environment: environment) }
            do {
                try ValueCheck.check(value, kind: kind, now: now)
            } catch let problem as ValueProblem {
                throw ConfigError("\(variable): \(problem.reason)")
            }
            apply(spec.long, value, to: &options, now: now)
        }
        for (name, value) in flags {
            var value = value
            if CommandLineSpec.globalOption(named: name)?.kind == .file {
                value = ValueCheck.expandingTilde(value, environment: environment)
            }
            apply(name, value, to: &options, now: now)
        }
        return options
    }

    /// `SUBS_LOCK_TIMEOUT`: like `--timeout`, plain decimal seconds, but 0 (do not wait) is allowed.
    static func lockTimeout(_ text: String) -> Double? {
        ValueCheck.seconds(text, allowingZero: true)
    }

    /// Stores one already-checked value.
    private static func apply(_ name: String, _ value: String, to options: inout GlobalOptions, now: Instant) {
        switch name {
        case "store": options.store = value
        case "remote": options.remote = value
        case "provider": options.provider = value
        case "api-key-file": options.apiKeyFile = value
        case "at": options.at = ISODate.parseInput(value, now: now)
        case "format": options.format = OutputFormat(rawValue: value) ?? options.format
        case "color": options.color = ColorMode(rawValue: value) ?? options.color
        case "quiet": options.quiet = true
        case "timeout": options.timeout = ValueCheck.seconds(value) ?? options.timeout
        case "offline": options.offline = true
        case "max-age": options.maxAge = ISODuration.parse(value)
        case "config", "help", "version": break
        default: preconditionFailure("global option --\(name) has no field in GlobalOptions")
        }
    }
}
