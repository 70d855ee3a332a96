// `subs store compact`: the journal (STORE.journal) folded into the store now, with the crash-safe
// rewrite; the journal is empty after it. Writes do it themselves past the journal's bound; this
// is for a person about to edit or copy the store file by hand.

import SubsStore

extension CommandName {
    static let storeCompact = CommandName("store compact")
}

enum StoreCompactCommand {
    static let spec = CommandSpec(
        .storeCompact, abstract: "Fold the journal into the store file (before editing the store by hand)",
        exitStatuses: CommandExitStatuses([
            (.success, "The journal is folded into the store (or was empty)"),
            (.dataError, "The store or its journal is not valid, or the journal was written for another version of the store"),
            (.noInput, "No store at the path, or it cannot be read"),
            (.cannotWrite, "The new store cannot be written; store and journal left as they were"),
            (.temporaryFailure, "Another writer held the store's lock too long"),
        ]),
        examples: [Example("subs store compact && $EDITOR store.json", "Fold the journal in, then edit the store by hand")],
        run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let store = LocalStore(path: path, lockTimeout: invocation.global.lockWait, writePause: invocation.global.writePause)
        let summary = try store.compact()
        guard !invocation.global.quiet else { return .success }
        Commands.write(StoreCompactResult(path: path, summary: summary), invocation, context)
        return .success
    }
}
