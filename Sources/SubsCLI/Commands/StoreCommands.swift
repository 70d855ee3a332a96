// `subs store init [--demo]` and `subs store validate`.

import SubsJSON
import SubsKit

enum StoreCommands {
    static let emptyStore = "{\n  \"schemaVersion\": 1,\n  \"products\": {},\n  \"customers\": {}\n}\n"

    static func initialize(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let demo = invocation.flag(CommandLineSpec.Options.demo)
        let text = demo ? DemoStore.json : emptyStore
        try StoreFiles.createStore(path: path, bytes: Array(text.utf8), lockTimeout: invocation.global.lockWait,
                                    pause: invocation.global.writePause)
        guard !invocation.global.quiet else { return .success }
        Commands.write(StoreInitResult(path: path, demo: demo), invocation, context)
        return .success
    }

    static func validate(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let problems = try StoreValidator.problems(path: path)
        if !invocation.global.quiet {
            let result = StoreValidateResult(path: path, problems: problems)
            Commands.write(result, invocation, context)
        }
        guard problems.isEmpty else {
            context.writeErr("subs: error: \(Terminal.escape(path)): \(problems.count) problem\(problems.count == 1 ? "" : "s") found\n")
            return .dataError
        }
        return .success
    }
}
