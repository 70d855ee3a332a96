// The hand-rolled parser: arguments → ParseOutcome, driven by a command line's description
// (CommandLineSpec; subs's is CommandLineSpec.subs).
// Structure first (command, options, values), then values by kind, then per-command rules,
// then the global options with their environment and config file.

import SubsModel

public enum ParseOutcome: Sendable {
    case run(Invocation)
    /// Help for a command (nil: the overview), from `help [COMMAND]` or `--help`.
    case help(CommandName?)
    /// Help for a group of two-word commands (`subs help store`).
    case groupHelp(String)
    case version
}

public enum CommandLineParser {
    public static func parse(arguments: [String], of commandLine: CommandLineSpec, environment: [String: String],
                             now: Instant) throws -> ParseOutcome {
        try parse(ArgumentScan(arguments, of: commandLine), environment: environment, now: now)
    }

    /// The outcome of arguments already scanned (CLI.run scans once and looks at the command first).
    static func parse(_ scan: ArgumentScan, environment: [String: String], now: Instant) throws -> ParseOutcome {
        let commandLine = scan.commandLine
        if scan.wantsHelp {
            if scan.command == .help, !scan.positionals.isEmpty { return try helpTopic(scan.positionals, of: commandLine) }
            if let group = scan.group, scan.command == nil { return .groupHelp(group.name) }
            return .help(scan.command)
        }
        if let error = scan.firstError { throw error }
        if scan.wantsVersion { return .version }
        guard let command = scan.command else {
            if let group = scan.group {
                throw UsageError("\(group.name): missing subcommand: "
                                 + subcommandWords(group, of: commandLine).joined(separator: " or "))
            }
            throw UsageError("missing command")
        }
        if command == .help { return try helpTopic(scan.positionals, of: commandLine) }

        let spec = commandLine.command(command)
        var globalFlags: [String: OptionValue] = [:]
        var options: [String: [OptionValue]] = [:]
        for given in scan.options {
            if let alias = given.spec.alias {
                globalFlags[alias.long] = .text(alias.value)
                continue
            }
            var value = OptionValue.flag
            if let kind = given.spec.kind {
                var text = given.value ?? ""
                if kind == .file { text = ValueCheck.expandingTilde(text, environment: environment) }
                do {
                    value = try ValueCheck.value(text, kind: kind, now: now)
                } catch let problem as ValueProblem {
                    throw UsageError("option '\(given.name)': \(problem.reason)",
                                     suggestion: problem.suggestion, command: command)
                }
            }
            if spec.option(named: given.spec.long) != nil {
                options[given.spec.long, default: []].append(value)
            } else {
                globalFlags[given.spec.long] = value
            }
        }
        try checkPositionals(scan.positionals, of: spec, now: now)
        for group in spec.exactlyOneOf where group.filter({ options[$0] != nil }).count != 1 {
            throw UsageError("\(command.rawValue): give exactly one of "
                             + group.map { "--" + $0 }.joined(separator: ", "), command: command)
        }
        // A command option not given takes its environment variable (SUBS_ACTOR for --actor).
        for option in spec.options where options[option.long] == nil {
            guard let variable = option.environment, var text = environment[variable], !text.isEmpty,
                  let kind = option.kind else { continue }
            if kind == .file { text = ValueCheck.expandingTilde(text, environment: environment) }
            do {
                options[option.long] = [try ValueCheck.value(text, kind: kind, now: now)]
            } catch let problem as ValueProblem {
                throw ConfigError("\(variable): \(problem.reason)")
            }
        }
        // `completion` prints a fixed script: no config file or environment setting can break it.
        let global = !spec.readsSettings ? GlobalOptions()
            : try GlobalOptionsResolver.resolve(flags: globalFlags, environment: environment, now: now)
        return .run(Invocation(command: command, global: global, positionals: scan.positionals, options: options))
    }

    /// `help [COMMAND...]`: the words name a command or a group.
    static func helpTopic(_ words: [String], of commandLine: CommandLineSpec) throws -> ParseOutcome {
        let topic = words.joined(separator: " ")
        if words.isEmpty { return .help(nil) }
        if let group = commandLine.groups.first(where: { $0.name == topic }) { return .groupHelp(group.name) }
        if let spec = commandLine.command(named: topic) { return .help(spec.name) }
        throw UsageError("unknown command \(Terminal.quoted(topic))",
                         suggestion: EditDistance.closest(to: topic, among: ArgumentScan.commandWords(of: commandLine)),
                         command: .help)
    }

    /// Counts and kinds of positional arguments against the command's ArgumentSpecs.
    static func checkPositionals(_ positionals: [String], of spec: CommandSpec, now: Instant) throws {
        let command = spec.name
        let required = spec.arguments.filter { $0.arity != .optional }
        if positionals.count < required.count {
            throw UsageError("\(command.rawValue): missing \(required[positionals.count].name)", command: command)
        }
        let unbounded = spec.arguments.contains { $0.arity == .oneOrMore }
        if !unbounded && positionals.count > spec.arguments.count {
            throw UsageError("\(command.rawValue): too many arguments", command: command)
        }
        for (value, argument) in zip(positionals, assign(positionals.count, to: spec.arguments)) {
            do {
                try ValueCheck.value(value, kind: argument.kind, now: now)
            } catch let problem as ValueProblem {
                throw UsageError("\(command.rawValue): \(argument.name) \(problem.reason)",
                                 suggestion: problem.suggestion, command: command)
            }
        }
    }

    /// Which ArgumentSpec each of `count` positionals fills: fixed ones from both ends, the
    /// repeating one (`USER...`) takes what is left, optional ones fill in order.
    static func assign(_ count: Int, to arguments: [ArgumentSpec]) -> [ArgumentSpec] {
        guard let many = arguments.firstIndex(where: { $0.arity == .oneOrMore }) else {
            return Array(arguments.prefix(count))
        }
        let before = Array(arguments[..<many]), after = Array(arguments[(many + 1)...])
        let middle = max(0, count - before.count - after.count)
        return Array((before + Array(repeating: arguments[many], count: middle) + after).prefix(count))
    }

    static func subcommandWords(_ group: CommandGroup, of commandLine: CommandLineSpec) -> [String] {
        group.commands.map { commandLine.command($0).words.last ?? "" }
    }
}

/// One pass over the arguments: finds the command, sorts options from positionals, and records
/// the first structural error (unknown option, missing value) without stopping, so that a
/// `--help` later on still wins.
struct ArgumentScan {
    struct GivenOption {
        var spec: OptionSpec
        /// As typed (`-q`, `--quiet`), for messages.
        var name: String
        var value: String?
    }

    let commandLine: CommandLineSpec
    var command: CommandName?
    var group: CommandGroup?
    var options: [GivenOption] = []
    var positionals: [String] = []
    var wantsHelp = false
    var wantsVersion = false
    var firstError: UsageError?

    /// What a user may type as a command (hidden ones excluded), for suggestions.
    static func commandWords(of commandLine: CommandLineSpec) -> [String] {
        var words: [String] = []
        for spec in commandLine.visibleCommands {
            let first = spec.words[0]
            if !words.contains(first) { words.append(first) }
            if spec.words.count > 1 { words.append(spec.name.rawValue) }
        }
        return words
    }

    init(_ arguments: [String], of commandLine: CommandLineSpec) throws {
        self.commandLine = commandLine
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded && argument == "--" {
                optionsEnded = true
            } else if !optionsEnded && argument.hasPrefix("-") && argument != "-" {
                readOption(argument, arguments: arguments, index: &index)
            } else if command == nil {
                do {
                    try readCommandWord(argument)
                } catch {
                    // An earlier mistake (`--stroe x check`) explains a bad command word better.
                    throw firstError ?? error
                }
            } else {
                positionals.append(argument)
            }
        }
    }

    private mutating func readOption(_ argument: String, arguments: [String], index: inout Int) {
        var name = argument
        var inlineValue: String?
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inlineValue = String(argument[argument.index(after: eq)...])
        }
        let candidates = commandLine.options(for: command).filter { !$0.hidden }
        guard let spec = candidates.first(where: { $0.longName == name || $0.shortName == name }) else {
            let names = candidates.flatMap { [$0.longName] + ($0.shortName.map { [$0] } ?? []) }
            fail(UsageError("unknown option \(Terminal.quoted(name))",
                            suggestion: EditDistance.closest(to: name, among: names), command: command))
            return
        }
        if spec.isFlag {
            if inlineValue != nil {
                fail(UsageError("option '\(name)' takes no value", command: command))
                return
            }
            if spec.long == "help" { wantsHelp = true }
            if spec.long == "version" { wantsVersion = true }
            options.append(GivenOption(spec: spec, name: name, value: nil))
            return
        }
        if let inlineValue {
            options.append(GivenOption(spec: spec, name: name, value: inlineValue))
        } else if index < arguments.count, Self.canBeValue(arguments[index]) {
            options.append(GivenOption(spec: spec, name: name, value: arguments[index]))
            index += 1
        } else if index < arguments.count, !Self.namesOption(arguments[index], among: candidates) {
            // `--reason "-50% promo"`: the value was there but starts with "-"; say how to give it.
            fail(UsageError("option '\(name)' needs a value; to give one that starts with '-', write it "
                            + "after '=': --\(spec.long)=\(Terminal.escape(Terminal.cut(arguments[index], to: 40)))", command: command))
        } else {
            fail(UsageError("option '\(name)' needs a value", command: command))
        }
    }

    /// Whether `argument` is (or starts like `--name=…`) one of the options `candidates` lists.
    static func namesOption(_ argument: String, among candidates: [OptionSpec]) -> Bool {
        let name = argument.hasPrefix("--") ? String(argument.prefix { $0 != "=" }) : argument
        return candidates.contains { $0.longName == name || $0.shortName == name }
    }

    /// The next argument is taken as a value unless it looks like an option, so that
    /// `--reason --dry-run` complains instead of recording "--dry-run" as the reason.
    /// `--reason=-x` passes such a value.
    static func canBeValue(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument != "-" else { return true }
        return argument.dropFirst().first?.isASCIIDigit ?? false
    }

    private mutating func readCommandWord(_ word: String) throws {
        if let group {
            guard let name = group.commands.first(where: { commandLine.command($0).words.last == word }) else {
                let words = CommandLineParser.subcommandWords(group, of: commandLine)
                let suggestion = EditDistance.closest(to: word, among: words).map { group.name + " " + $0 }
                throw UsageError("\(group.name): unknown subcommand \(Terminal.quoted(word)) (use "
                                 + words.joined(separator: " or ") + ")", suggestion: suggestion)
            }
            command = name
        } else if let found = commandLine.groups.first(where: { $0.name == word }) {
            group = found
        } else if let spec = commandLine.command(named: word), !word.contains(" ") {
            command = spec.name
        } else {
            throw UsageError("unknown command \(Terminal.quoted(word))",
                             suggestion: EditDistance.closest(to: word, among: Self.commandWords(of: commandLine)))
        }
    }

    private mutating func fail(_ error: UsageError) {
        if firstError == nil { firstError = error }
    }
}
