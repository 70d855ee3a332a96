// What `commands` answers, in every format.

/// `subs commands`: the document in json (and on one line in jsonl); the table lists the commands.
struct CommandsResult: CommandResult {
    var document: JSONOutput { .document(CommandLineDocument.document) }

    var rows: Rows {
        Rows(headers: ["name", "abstract"], values: CommandLineSpec.visibleCommands.map {
            [$0.name.rawValue, ProseMarkup.render($0.abstract)]
        })
    }

    /// Help's COMMANDS rows: wrapped to the terminal, never wider than COLUMNS.
    func table(_ style: OutputStyle) -> String {
        let columns = style.terminal ? style.columns : Int.max / 2
        return CommandLineSpec.visibleCommands.map {
            HelpRenderer.row($0.name.rawValue, HelpRenderer.sentence($0.abstract), columns: columns)
        }.joined() + "\n" + HelpRenderer.wrap("'subs commands --json' prints the whole command line as one JSON document.",
                                               indent: 0, columns: columns)
    }
}
