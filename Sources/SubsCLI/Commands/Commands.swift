// Dispatch from a parsed invocation to the command that runs it.

public enum Commands {
    public static func run(_ invocation: Invocation, context: Context) -> ExitCode {
        context.writeErr("subs: error: \(invocation.command.rawValue) is not implemented yet\n")
        return .unavailable
    }
}
