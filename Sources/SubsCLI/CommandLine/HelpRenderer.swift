// Help text from a command line's description (CommandLineSpec), in swift-argument-parser's
// shape: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, COMMANDS, then a pointer to per-command help;
// two-space indent, wrapped to the terminal (HelpLayout). A command's help lists its own options,
// its exit statuses and examples; the global options are listed once, in `subs help`.

public struct HelpRenderer: Sendable {
    public let commandLine: CommandLineSpec

    public init(_ commandLine: CommandLineSpec) {
        self.commandLine = commandLine
    }

    /// Text with its markup ({flag:--remote}, {exit:usage}) rendered: all help text passes here.
    func prose(_ text: String) -> String {
        ProseMarkup.render(text, flags: commandLine.flagNames)
    }

    /// Help for one command, or the overview (nil).
    public func help(for command: CommandName?, columns: Int) -> String {
        guard let command else { return overview(columns: columns) }
        let spec = commandLine.command(command)
        var out = HelpLayout.section(prose("OVERVIEW: " + HelpLayout.sentence(spec.abstract)), columns: columns)
        if let discussion = spec.discussion { out += HelpLayout.section(prose(discussion), columns: columns) }
        out += Self.usage(usageLine(for: command), columns: columns) + "\n"
        if !spec.arguments.isEmpty {
            out += "ARGUMENTS:\n"
            out += spec.arguments.map { HelpLayout.row($0.name, prose(HelpLayout.sentence($0.fullHelp)), columns: columns) }.joined()
            out += "\n"
        }
        let helpOption = commandLine.globalOption(named: "help").map { [$0] } ?? []
        out += "OPTIONS:\n" + optionRows(spec.options.filter { !$0.hidden } + helpOption, columns: columns) + "\n"
        out += HelpLayout.wrap("The global options (--store, --remote, --format, --json, --at, --quiet, …) work with every "
                               + "command; 'subs help' lists them.", indent: 2, columns: columns) + "\n"
        out += "EXIT STATUS:\n" + exitRows(spec.exitStatuses.lines, columns: columns) + "\n"
        if !spec.examples.isEmpty {
            out += "EXAMPLES:\n"
            for example in spec.examples {
                out += "  " + example.command + "\n"
                out += HelpLayout.wrap(prose(HelpLayout.sentence(example.explanation)), indent: 6, columns: columns)
            }
            out += "\n"
        }
        return out + Self.footer
    }

    /// Help for a group of two-word commands (`subs help store`).
    public func help(forGroup name: String, columns: Int) -> String {
        guard let group = commandLine.groups.first(where: { $0.name == name }) else {
            return overview(columns: columns)
        }
        var out = HelpLayout.section(prose("OVERVIEW: " + HelpLayout.sentence(group.abstract)), columns: columns)
        for (index, command) in group.commands.enumerated() {
            let text = Self.usage(usageLine(for: command), columns: columns)
            out += index == 0 ? text : "       " + text.dropFirst(7)
        }
        out += "\n"
        out += "COMMANDS:\n"
        out += group.commands.map {
            HelpLayout.row($0.rawValue, prose(HelpLayout.sentence(commandLine.command($0).abstract)), columns: columns)
        }.joined()
        return out + "\n" + Self.footer
    }

    /// `subs check [options] USER...`; the top-level usage for nil.
    public func usageLine(for command: CommandName?) -> String {
        guard let command else { return commandLine.topUsage }
        return commandLine.command(command).usage
    }

    static let footer = "See 'subs help <command>' for more.\n"

    func overview(columns: Int) -> String {
        var out = HelpLayout.section(prose("OVERVIEW: " + HelpLayout.sentence(commandLine.abstract)), columns: columns)
        out += HelpLayout.section(prose(commandLine.discussion), columns: columns)
        out += Self.usage(commandLine.topUsage, columns: columns) + "\n"
        out += "OPTIONS:\n" + optionRows(commandLine.globalOptions.filter { !$0.hidden }, columns: columns) + "\n"
        out += "COMMANDS:\n"
        out += commandLine.visibleCommands.map {
            HelpLayout.row($0.name.rawValue, prose(HelpLayout.sentence($0.abstract)), columns: columns)
        }.joined()
        out += "\nEXIT STATUS:\n" + exitRows(Self.overviewExitStatuses, columns: columns)
        return out + "\n" + Self.footer
    }

    /// `USAGE: subs …`, continued lines aligned under the command.
    static func usage(_ line: String, columns: Int) -> String {
        "USAGE: " + HelpLayout.wrap(line, indent: 7, columns: columns).dropFirst(7)
    }

    /// The exit status table (ExitCode.meanings), one line each; man subs says more.
    static var overviewExitStatuses: [(String, String)] {
        ExitCode.meanings.map { (String($0.code.rawValue), $0.summary) }
    }

    /// `  64      Usage error…`: status codes are short, so their sentences start at column 10.
    func exitRows(_ statuses: [(String, String)], columns: Int) -> String {
        statuses.map { code, meaning in
            let label = "  " + code
            return label + String(repeating: " ", count: max(1, 10 - label.count))
                + HelpLayout.wrap(prose(HelpLayout.sentence(meaning)), indent: 10, columns: columns).dropFirst(10)
        }.joined()
    }

    func optionRows(_ options: [OptionSpec], columns: Int) -> String {
        options.map { HelpLayout.row($0.label, prose(HelpLayout.sentence($0.fullHelp)), columns: columns) }.joined()
    }
}
