// What the three completion scripts complete, read off a command line (CommandLineSpec) once, so
// that bash, zsh and fish offer the same commands, options and values.

import SubsModel

/// How one value (an option's or a positional argument's) is completed.
enum CompletionAction: Equatable {
    case nothing
    case words([String])
    case files
    /// Ids listed by `subs __complete KIND PREFIX`: "customers", "entitlements".
    case ids([String])
    case commandNames

    init(_ kind: ValueKind) {
        switch kind {
        case .choice(let words): self = .words(words)
        case .file: self = .files
        case .customer: self = .ids(["customers"])
        case .entitlement: self = .ids(["entitlements"])
        case .date: self = .words(["now"])
        case .command: self = .commandNames
        case .text, .nonEmptyText, .url, .duration, .count, .seconds, .bytes, .hostPort: self = .nothing
        }
    }

    /// Both: where the last positional may be a user or the entitlement (`grant alice |`).
    func merged(with other: CompletionAction) -> CompletionAction {
        switch (self, other) {
        case (.ids(let a), .ids(let b)): return .ids(b + a.filter { !b.contains($0) })
        case (.nothing, _): return other
        default: return self
        }
    }
}

/// Positional completion of one command: position `from`...`through` (nil: any later one).
struct PositionRule {
    var from: Int
    var through: Int?
    var action: CompletionAction
}

struct CompletionModel {
    let commandLine: CommandLineSpec

    init(_ commandLine: CommandLineSpec) {
        self.commandLine = commandLine
    }

    /// Text with its markup ({flag:--remote}, {exit:usage}) rendered.
    func prose(_ text: String) -> String {
        ProseMarkup.render(text, flags: commandLine.flagNames)
    }

    /// A word typed as the first positional: a command or a group (`store`), with its abstract.
    var topWords: [(word: String, abstract: String)] {
        var out: [(String, String)] = []
        for spec in commandLine.visibleCommands {
            if spec.words.count == 1 {
                out.append((spec.name.rawValue, prose(spec.abstract)))
            } else if let group = commandLine.groups.first(where: { $0.name == spec.words[0] }),
                      !out.contains(where: { $0.0 == group.name }) {
                out.append((group.name, prose(group.abstract)))
            }
        }
        return out
    }

    /// Subcommand words of each group (`store` → init, validate), with abstracts.
    func subcommands(of group: CommandGroup) -> [(word: String, abstract: String)] {
        group.commands.map(commandLine.command).map { ($0.words.last ?? "", prose($0.abstract)) }
    }

    var globalOptions: [OptionSpec] { commandLine.globalOptions.filter { !$0.hidden } }

    static func commandOptions(_ spec: CommandSpec) -> [OptionSpec] { spec.options.filter { !$0.hidden } }

    /// Every option that takes a value, once by long name (for skipping values while scanning).
    var valueOptions: [OptionSpec] {
        var seen: Set<String> = []
        return (globalOptions + commandLine.visibleCommands.flatMap(Self.commandOptions)).filter {
            !$0.isFlag && seen.insert($0.long).inserted
        }
    }

    /// Value options grouped by how their value completes, in table order, one option name once.
    /// Options of the same long name share a kind across commands (`--until` is a DATE everywhere).
    var valueActions: [(action: CompletionAction, options: [String])] {
        var groups: [(CompletionAction, [String])] = []
        for option in valueOptions {
            let action = CompletionAction(option.kind!)
            if let index = groups.firstIndex(where: { $0.0 == action }) {
                groups[index].1.append(option.longName)
            } else {
                groups.append((action, [option.longName]))
            }
        }
        return groups
    }

    /// How each position completes, from the command's ArgumentSpecs (see CommandLineParser.assign).
    static func positionRules(_ spec: CommandSpec) -> [PositionRule] {
        let arguments = spec.arguments
        guard let many = arguments.firstIndex(where: { $0.arity == .oneOrMore }) else {
            return arguments.enumerated().map { PositionRule(from: $0.offset, through: $0.offset,
                                                              action: CompletionAction($0.element.kind)) }
        }
        var rules = arguments[..<many].enumerated().map {
            PositionRule(from: $0.offset, through: $0.offset, action: CompletionAction($0.element.kind))
        }
        let repeating = CompletionAction(arguments[many].kind)
        if many + 1 == arguments.count {
            rules.append(PositionRule(from: many, through: nil, action: repeating))
        } else {
            // The arguments after USER... are only known once the line is complete: from the
            // second position on, offer both.
            let later = arguments[(many + 1)...].map { CompletionAction($0.kind) }.reduce(repeating) { $0.merged(with: $1) }
            rules.append(PositionRule(from: many, through: many, action: repeating))
            rules.append(PositionRule(from: many + 1, through: nil, action: later))
        }
        return rules
    }

    /// Text inside single quotes for sh-like shells (bash, zsh).
    static func shQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }

    /// Text inside single quotes for fish, where \ and ' are escaped with a backslash.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    /// The shell `case` pattern of a command ("store init" quoted, as one word of the script).
    static func casePattern(_ spec: CommandSpec) -> String {
        spec.words.count > 1 ? "\"\(spec.name.rawValue)\"" : spec.name.rawValue
    }

    /// The `case` arms (bash and zsh alike) that complete each command's arguments by position:
    /// `indent` before each pattern and `indent` + `step` before the lines under it; `test`
    /// wraps the arithmetic test in the shell's brackets.
    func positionArms(indent: String, step: String, test: (String) -> String,
                      code: (CompletionAction) -> String) -> String {
        var s = ""
        for spec in commandLine.visibleCommands {
            let rules = Self.positionRules(spec)
            if rules.isEmpty { continue }
            s += "\(indent)\(Self.casePattern(spec)))\n"
            for rule in rules {
                s += "\(indent)\(step)if \(test(Self.positionTest(rule))); then \(code(rule.action)); fi\n"
            }
            s += "\(indent)\(step);;\n"
        }
        return s
    }

    /// The arithmetic test (bash and zsh alike) for the positions a rule covers.
    static func positionTest(_ rule: PositionRule) -> String {
        guard let through = rule.through else { return "npos >= \(rule.from)" }
        return through == rule.from ? "npos == \(through)" : "npos >= \(rule.from) && npos <= \(through)"
    }
}
