// `subs store validate`: the whole store checked, every problem listed with its path.

import SubsStore

extension CommandName {
    static let storeValidate = CommandName("store validate")
}

enum StoreValidateCommand {
    static let spec = CommandSpec(
        .storeValidate, abstract: "Check the whole store and list every problem with its path",
        exitStatuses: CommandExitStatuses([
            (.success, "The store is valid"),
            (.dataError, "Not valid: one line per problem, with its path"),
            (.noInput, "No store at the path, or it cannot be read"),
        ]),
        examples: [Example("subs store validate", "Exit {exit:data} and one line per problem when invalid")],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let (problems, notes) = try StoreValidator.check(path: path)
        // What a crash dropped from the journal's end is said, not counted a problem: it was
        // never acknowledged, and the store reads whole without it.
        for note in notes { context.writeErr("subs: note: \(Terminal.escape(note))\n") }
        if !invocation.global.quiet {
            Commands.write(StoreValidateResult(path: path, problems: problems), invocation, context)
        }
        guard problems.isEmpty else {
            context.writeErr("subs: error: \(Terminal.escape(path)): \(problems.count) problem\(problems.count == 1 ? "" : "s") found\n")
            return .dataError
        }
        return .success
    }
}
