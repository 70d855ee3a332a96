// `subs store init [--demo]`: a new store at the store path, empty or with the demo customers.

import SubsStore

extension CommandName {
    static let storeInit = CommandName("store init")
}

extension CommandLineSpec.Options {
    static let demo = OptionSpec("demo", help: "Fill it with demo customers")
}

enum StoreInitCommand {
    static let spec = CommandSpec(
        .storeInit, abstract: "Create a new store at the store path",
        options: [CommandLineSpec.Options.demo],
        exitStatuses: CommandExitStatuses([
            (.success, "The store was created"),
            (.cannotWrite, "A store already exists there, or the file cannot be written"),
        ]),
        examples: [Example("subs --store demo.json store init --demo", "A store to try subs on")],
        run: { try run($0, $1) })

    static let emptyStore = "{\n  \"schemaVersion\": 1,\n  \"products\": {},\n  \"customers\": {}\n}\n"

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let demo = invocation.flag(CommandLineSpec.Options.demo)
        let text = demo ? DemoStore.json : emptyStore
        try StoreFiles.createStore(path: path, bytes: Array(text.utf8), lockTimeout: invocation.global.lockWait,
                                    pause: invocation.global.writePause)
        guard !invocation.global.quiet else { return .success }
        Commands.write(StoreInitResult(path: path, demo: demo), invocation, context)
        return .success
    }
}
