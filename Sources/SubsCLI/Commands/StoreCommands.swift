// `subs store init [--demo]` and `subs store validate`.

import SubsJSON
import SubsStore

enum StoreCommands {
    static let emptyStore = "{\n  \"schemaVersion\": 1,\n  \"products\": {},\n  \"customers\": {}\n}\n"

    static func initialize(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let demo = invocation.flag(CommandLineSpec.Options.demo)
        let text = demo ? DemoStore.json : emptyStore
        try StoreFiles.createStore(path: path, bytes: Array(text.utf8), lockTimeout: invocation.global.lockWait,
                                    pause: invocation.global.writePause)
        guard !invocation.global.quiet else { return .success }
        context.writeOut(try Output.render(StoreInitResult(path: path, demo: demo), style: Commands.style(invocation, context)))
        return .success
    }

    static func validate(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let problems = try StoreValidator.problems(path: path)
        if !invocation.global.quiet {
            let result = ValidateResult(path: path, problems: problems)
            context.writeOut(try Output.render(result, style: Commands.style(invocation, context)))
        }
        guard problems.isEmpty else {
            context.writeErr("subs: error: \(Terminal.escape(path)): \(problems.count) problem\(problems.count == 1 ? "" : "s") found\n")
            return .dataError
        }
        return .success
    }
}

/// `store init`: which store was created.
struct StoreInitResult: CommandResult {
    var path: String
    var demo: Bool

    var json: JSONOutput {
        .document(.object(JSONObject([("store", .string(path)), ("created", .bool(true)), ("demo", .bool(demo))])))
    }

    var tsv: TextTable {
        TextTable(headers: ["store", "created", "demo"], rows: [[Cell(path), Cell("true"), Cell(String(demo))]])
    }

    func table(_ style: OutputStyle) -> String {
        "created \(demo ? "demo" : "empty") store \(Terminal.escape(path))\n"
    }
}

/// `store validate`: every problem with its path.
struct ValidateResult: CommandResult {
    var path: String
    var problems: [StoreProblem]

    var json: JSONOutput {
        .document(.object(JSONObject([
            ("store", .string(path)),
            ("valid", .bool(problems.isEmpty)),
            ("problems", .array(problems.map {
                .object(JSONObject([("path", .string($0.path)), ("message", .string($0.message))]))
            })),
        ])))
    }

    var tsv: TextTable {
        TextTable(headers: ["path", "message"], rows: problems.map { [Cell($0.path), Cell($0.message)] })
    }

    func table(_ style: OutputStyle) -> String {
        if problems.isEmpty { return "\(Terminal.escape(path)): valid\n" }
        // A syntax error has no JSON path: `store.json:1:22: …`, as an editor reads it.
        return problems.map { Terminal.escape($0.path.isEmpty ? "\(path):\($0.message)" : "\(path): \($0)") + "\n" }.joined()
    }
}
