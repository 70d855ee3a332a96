// Help text from CommandLineSpec, in swift-argument-parser's shape: OVERVIEW, USAGE, ARGUMENTS,
// OPTIONS, COMMANDS, then a pointer to per-command help; two-space indent, wrapped to the terminal.
// A command's help lists its own options, its exit statuses and examples; the global options
// are listed once, in `subs help`.

public enum HelpRenderer {
    /// Where help sentences start; longer labels put their sentence on the next line.
    static let helpColumn = 26

    /// Help for one command, or the overview (nil).
    public static func help(for command: CommandName?, columns: Int) -> String {
        guard let command else { return overview(columns: columns) }
        let spec = CommandLineSpec.command(command)
        var out = section("OVERVIEW: " + sentence(spec.abstract), columns: columns)
        if let discussion = spec.discussion { out += section(discussion, columns: columns) }
        out += usage(usageLine(for: command), columns: columns) + "\n"
        if !spec.arguments.isEmpty {
            out += "ARGUMENTS:\n"
            out += spec.arguments.map { row($0.name, sentence($0.fullHelp), columns: columns) }.joined()
            out += "\n"
        }
        let helpOption = CommandLineSpec.globalOption(named: "help").map { [$0] } ?? []
        out += "OPTIONS:\n" + optionRows(spec.options.filter { !$0.hidden } + helpOption, columns: columns) + "\n"
        out += wrap("The global options (--store, --remote, --format, --json, --at, --quiet, …) work with every "
                    + "command; 'subs help' lists them.", indent: 2, columns: columns) + "\n"
        out += "EXIT STATUS:\n" + exitRows(ExitStatusHelp.lines(for: command), columns: columns) + "\n"
        if !spec.examples.isEmpty {
            out += "EXAMPLES:\n"
            for example in spec.examples {
                out += "  " + example.command + "\n"
                out += wrap(sentence(example.explanation), indent: 6, columns: columns)
            }
            out += "\n"
        }
        return out + footer
    }

    /// Help for a group of two-word commands (`subs help store`).
    public static func help(forGroup name: String, columns: Int) -> String {
        guard let group = CommandLineSpec.groups.first(where: { $0.name == name }) else {
            return overview(columns: columns)
        }
        var out = section("OVERVIEW: " + sentence(group.abstract), columns: columns)
        for (index, command) in group.commands.enumerated() {
            let text = usage(usageLine(for: command), columns: columns)
            out += index == 0 ? text : "       " + text.dropFirst(7)
        }
        out += "\n"
        out += "COMMANDS:\n"
        out += group.commands.map {
            row($0.rawValue, sentence(CommandLineSpec.command($0).abstract), columns: columns)
        }.joined()
        return out + "\n" + footer
    }

    /// `subs check [options] USER...`; the top-level usage for nil.
    public static func usageLine(for command: CommandName?) -> String {
        guard let command else { return CommandLineSpec.topUsage }
        return CommandLineSpec.command(command).usage
    }

    static let footer = "See 'subs help <command>' for more.\n"

    static func overview(columns: Int) -> String {
        var out = section("OVERVIEW: " + sentence(CommandLineSpec.abstract), columns: columns)
        out += section(CommandLineSpec.discussion, columns: columns)
        out += usage(CommandLineSpec.topUsage, columns: columns) + "\n"
        out += "OPTIONS:\n" + optionRows(CommandLineSpec.globalOptions.filter { !$0.hidden }, columns: columns) + "\n"
        out += "COMMANDS:\n"
        out += CommandLineSpec.visibleCommands.map {
            row($0.name.rawValue, sentence($0.abstract), columns: columns)
        }.joined()
        out += "\nEXIT STATUS:\n" + exitRows(overviewExitStatuses, columns: columns)
        return out + "\n" + footer
    }

    /// `USAGE: subs …`, continued lines aligned under the command.
    static func usage(_ line: String, columns: Int) -> String {
        "USAGE: " + wrap(line, indent: 7, columns: columns).dropFirst(7)
    }

    /// The exit status table (ExitCode.meanings), one line each; man subs says more.
    static var overviewExitStatuses: [(String, String)] {
        ExitCode.meanings.map { (String($0.code.rawValue), $0.summary) }
    }

    /// `  64      Usage error…`: status codes are short, so their sentences start at column 10.
    static func exitRows(_ statuses: [(String, String)], columns: Int) -> String {
        statuses.map { code, meaning in
            let label = "  " + code
            return label + String(repeating: " ", count: max(1, 10 - label.count))
                + wrap(sentence(meaning), indent: 10, columns: columns).dropFirst(10)
        }.joined()
    }

    static func optionRows(_ options: [OptionSpec], columns: Int) -> String {
        options.map { row($0.label, sentence($0.fullHelp), columns: columns) }.joined()
    }

    /// `  LABEL                   help text wrapped under itself`
    static func row(_ label: String, _ text: String, columns: Int) -> String {
        let first = "  " + label
        if first.count + 2 <= helpColumn {
            let padded = first + String(repeating: " ", count: helpColumn - first.count)
            return padded + wrap(text, indent: helpColumn, columns: columns).dropFirst(helpColumn)
        }
        return first + "\n" + wrap(text, indent: helpColumn, columns: columns)
    }

    static func section(_ text: String, columns: Int) -> String {
        wrap(text, indent: 0, columns: columns) + "\n"
    }

    /// Greedy word wrap; every line starts with `indent` spaces and ends with a newline.
    /// A word longer than the line stays whole rather than being cut. Prose markup
    /// ({flag:--remote}, {exit:usage}) is resolved first: all help text passes here.
    static func wrap(_ prose: String, indent: Int, columns: Int) -> String {
        let text = ProseMarkup.render(prose)
        let width = max(columns - indent, 20)
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines.map { pad + $0 + "\n" }.joined()
    }

    /// Table entries are kept without a final period; help prints them as sentences.
    static func sentence(_ text: String) -> String {
        guard let last = text.last else { return text }
        return ".!?".contains(last) ? text : text + "."
    }
}

