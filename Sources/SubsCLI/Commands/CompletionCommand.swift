// `subs completion bash|zsh|fish`: prints the script. Needs no store, so CLI runs it directly.

enum CompletionCommand {
    static func run(_ invocation: Invocation, context: Context) -> ExitCode {
        guard let shell = invocation.positionals.first, let text = script(for: shell) else {
            context.writeErr("subs: error: completion: missing or unknown SHELL\n")
            return .usage
        }
        context.writeOut(text)
        return .success
    }

    /// The script for `shell` (bash, zsh, fish); nil for any other name.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": return BashCompletion.script()
        case "zsh": return ZshCompletion.script()
        case "fish": return FishCompletion.script()
        default: return nil
        }
    }
}
