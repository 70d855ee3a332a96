// `subs completion bash|zsh|fish`: prints the script, made from subs's command line. Reads no
// store, no config file and no clock: it works whatever the environment holds (SPEC section 7).

extension CommandName {
    static let completion = CommandName("completion")
}

enum CompletionCommand {
    static let spec = CommandSpec(
        .completion, abstract: "Print the shell completion script",
        arguments: [ArgumentSpec("SHELL", kind: .choice(["bash", "zsh", "fish"]), help: "The shell")],
        exitStatuses: CommandExitStatuses(readsCustomers: false),
        examples: [Example("source <(subs completion bash)", "Completion in the current bash")],
        readsSettings: false, readsClock: false, run: { run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) -> ExitCode {
        guard let shell = invocation.positionals.first, let text = script(for: shell) else {
            context.writeErr("subs: error: completion: missing or unknown SHELL\n")
            return .usage
        }
        context.writeOut(text)
        return .success
    }

    /// The script for `shell` (bash, zsh, fish); nil for any other name.
    static func script(for shell: String) -> String? {
        let model = CompletionModel(CommandLineSpec.subs)
        switch shell {
        case "bash": return BashCompletion(model: model).script()
        case "zsh": return ZshCompletion(model: model).script()
        case "fish": return FishCompletion(model: model).script()
        default: return nil
        }
    }
}
