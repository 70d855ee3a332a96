// STUB — help text from the command description (CLI helper).

public enum HelpRenderer {
    public static func help(for command: CommandName?, columns: Int) -> String { "subs\n" }
    public static func usageLine(for command: CommandName?) -> String { "subs [options] COMMAND" }
}
