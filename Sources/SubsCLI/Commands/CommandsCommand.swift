// `subs commands [--json]`: subs's command line described (CommandLineDocument), for scripts and
// agents; the table lists the commands.

extension CommandName {
    static let commands = CommandName("commands")
}

enum CommandsCommand {
    static let spec = CommandSpec(
        .commands, abstract: "Describe the whole command line: with --json, as one JSON document",
        discussion: "With {flag:--json} (or {flag:--format} json): every command with its arguments, "
            + "options, exit statuses and examples; the global options; the environment variables; the "
            + "config file keys; the exit statuses; and each provider's APIs with what they offer. "
            + "It is made from the same description as help, the man page and the completions, for "
            + "scripts and agents to discover subs; docs/reference.md describes its keys. "
            + "The table lists the commands.",
        exitStatuses: CommandExitStatuses(readsCustomers: false),
        examples: [Example("subs commands --json | jq -r '.commands[].name'", "Every command's name"),
                   Example("subs commands --json | jq '.providers[].apis[] | {title, notOffered}'",
                           "What each provider's API refuses, and why")],
        run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        guard !invocation.global.quiet else { return .success }
        let commandLine = CommandLineSpec.subs
        let flags = commandLine.flagNames
        let result = CommandsResult(document: CommandLineDocument(commandLine).document,
                                    commands: commandLine.visibleCommands.map {
                                        ($0.name.rawValue, ProseMarkup.render($0.abstract, flags: flags))
                                    })
        Commands.write(result, invocation, context)
        return .success
    }
}
