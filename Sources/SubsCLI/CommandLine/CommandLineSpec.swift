// The description of a command line: the program's words, its global options, its commands and
// their groups. The parser, help, the completions, the man page and `commands --json` are all
// made from one; subs's own is `CommandLineSpec.subs` (Commands/SubsCommandLine.swift), which
// registers each command's spec, declared in the command's own file.

public struct CommandLineSpec: Sendable {
    public var version: String
    public var abstract: String
    public var discussion: String
    public var topUsage: String
    public var globalOptions: [OptionSpec]
    public var commands: [CommandSpec]
    public var groups: [CommandGroup]

    /// The commands' own options, named so that commands read their values through these entries
    /// (`invocation.instant(Options.grantUntil)`), never through strings: each command's file adds
    /// its own, and an option several commands share is in Commands.swift.
    public enum Options {}

    public init(version: String, abstract: String, discussion: String, topUsage: String, globalOptions: [OptionSpec],
                commands: [CommandSpec], groups: [CommandGroup]) {
        self.version = version
        self.abstract = abstract
        self.discussion = discussion
        self.topUsage = topUsage
        self.globalOptions = globalOptions
        self.commands = commands
        self.groups = groups
    }

    public func command(_ name: CommandName) -> CommandSpec {
        guard let spec = command(named: name.rawValue) else {
            preconditionFailure("command \(name.rawValue) missing from the command line")
        }
        return spec
    }

    /// The command whose name is `name` (`store init` as two words joined by a space), if any.
    public func command(named name: String) -> CommandSpec? {
        commands.first { $0.name.rawValue == name }
    }

    public var visibleCommands: [CommandSpec] { commands.filter { !$0.hidden } }

    public func globalOption(named long: String) -> OptionSpec? {
        globalOptions.first { $0.long == long }
    }

    /// Options valid after this command's name: its own, then the global ones.
    public func options(for name: CommandName?) -> [OptionSpec] {
        (name.map { command($0).options } ?? []) + globalOptions
    }

    /// Every option name it parses: `--store`, `-q`, a command's `--require`, a provider's
    /// `--iaphub-platform` (the names prose markup may use, ProseMarkup.resolve).
    public var flagNames: Set<String> {
        var names: Set<String> = []
        for option in globalOptions + commands.flatMap(\.options) {
            names.insert(option.longName)
            if let short = option.shortName { names.insert(short) }
        }
        return names
    }
}

/// Commands typed as two words share a group (`store init`, `store validate`).
public struct CommandGroup: Sendable {
    public var name: String
    public var abstract: String
    public var commands: [CommandName]

    public init(name: String, abstract: String, commands: [CommandName]) {
        self.name = name
        self.abstract = abstract
        self.commands = commands
    }
}
