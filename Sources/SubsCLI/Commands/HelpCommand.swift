// `subs help [COMMAND]`: the parser answers it (as it answers --help), before any command runs;
// this is its entry in the command line, for help, the completions and the man page.

enum HelpCommand {
    static let spec = CommandSpec(
        .help, abstract: "Show help; same as COMMAND --help",
        arguments: [ArgumentSpec("COMMAND", kind: .command, arity: .optional, help: "The command to describe")],
        exitStatuses: CommandExitStatuses(readsCustomers: false),
        examples: [Example("subs help check", "check's options, exit statuses and examples")],
        run: { _, _ in throw CommandFailure(.internalError, "help is answered before commands run") })
}
