// Global options after precedence: flag > environment > config file > default, each stored by
// its GlobalOptionTable entry; then the settings only the environment gives (EnvironmentSpec).
// A bad value from the environment or the config file is a configuration error (78); the
// parser has already refused a bad flag (64).

import SubsModel

enum GlobalOptionsResolver {
    /// `flags`: the global options given on the command line (aliases already turned into the
    /// option they stand for), by long name, last one winning, as the parser checked and typed
    /// them (paths with `~` expanded).
    static func resolve(flags: [String: OptionValue], environment: [String: String], now: Instant) throws -> GlobalOptions {
        var options = GlobalOptions()
        if let location = ConfigFile.location(flag: flags["config"]?.text, environment: environment) {
            do {
                if let config = try ConfigFile.load(path: location.path, explicit: location.explicit,
                                                    environment: environment) {
                    options.configPath = config.path
                    for entry in GlobalOptionTable.entries {
                        if let setting = config.entries[entry.spec.long] { entry.store?(setting.value, &options) }
                    }
                }
            } catch let unreadable as ConfigFile.Unreadable {
                // A config file you named must be read; the default one (say, under a home
                // directory you may not read) is only a convenience.
                guard !location.explicit else { throw ConfigError(unreadable.message) }
                options.warnings.append(unreadable.message + "; going on without it")
            }
        }
        for variable in EnvironmentSpec.variables {
            guard let store = variable.store, let value = variable.value(in: environment) else { continue }
            do {
                try store(value, &options)
            } catch let problem as ValueProblem {
                throw ConfigError("\(variable.name): \(problem.reason)")
            }
        }
        for entry in GlobalOptionTable.entries where flags[entry.spec.long] == nil {
            guard let store = entry.store, let variable = entry.spec.environment, var value = environment[variable],
                  !value.isEmpty, let kind = entry.spec.kind else { continue }
            if kind == .file { value = ValueCheck.expandingTilde(value, environment: environment) }
            do {
                store(try ValueCheck.value(value, kind: kind, now: now), &options)
            } catch let problem as ValueProblem {
                throw ConfigError("\(variable): \(problem.reason)")
            }
        }
        for entry in GlobalOptionTable.entries {
            if let value = flags[entry.spec.long] { entry.store?(value, &options) }
        }
        return options
    }
}
