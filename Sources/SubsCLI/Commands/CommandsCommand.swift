// `subs commands [--json]`: the command line described (CommandLineDocument).

enum CommandsCommand {
    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        guard !invocation.global.quiet else { return .success }
        Commands.write(CommandsResult(), invocation, context)
        return .success
    }
}
