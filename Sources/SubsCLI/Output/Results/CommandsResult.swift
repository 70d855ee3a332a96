// What `commands` answers, in every format: the command line's document in json (on one line in
// jsonl), its commands as rows, and as help's COMMANDS rows in the table.

import SubsJSON

struct CommandsResult: CommandResult {
    /// The whole command line (CommandLineDocument).
    var document: JSONOutput
    /// Each visible command's name and abstract (markup rendered), in help's order.
    var commands: [(name: String, abstract: String)]

    init(document: JSONValue, commands: [(name: String, abstract: String)]) {
        self.document = .document(document)
        self.commands = commands
    }

    var rows: Rows {
        Rows(headers: ["name", "abstract"], values: commands.map { [$0.name, $0.abstract] })
    }

    /// Help's COMMANDS rows: wrapped to the terminal, never wider than COLUMNS.
    func table(_ style: OutputStyle) -> String {
        let columns = style.terminal ? style.columns : Int.max / 2
        return commands.map { HelpLayout.row($0.name, HelpLayout.sentence($0.abstract), columns: columns) }.joined()
            + "\n" + HelpLayout.wrap("'subs commands --json' prints the whole command line as one JSON document.",
                                     indent: 0, columns: columns)
    }
}
