// `subs store init [--demo]` and `subs store validate`.

import SubsJSON
import SubsKit

enum StoreCommands {
    static let emptyStore = "{\n  \"schemaVersion\": 1,\n  \"products\": {},\n  \"customers\": {}\n}\n"

    static func initialize(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let demo = invocation.flag(CommandLineSpec.Options.demo)
        let text = demo ? DemoStore.json : emptyStore
        try StoreFiles.createStore(path: path, bytes: Array(text.utf8), lockTimeout: invocation.global.lockTimeout)
        guard !invocation.global.quiet else { return .success }
        switch invocation.global.format {
        case .json, .jsonl:
            let doc = JSONValue.object(JSONObject([("store", .string(path)), ("created", .bool(true)), ("demo", .bool(demo))]))
            context.writeOut(try Documents.render([doc], format: invocation.global.format, asArray: false))
        case .tsv:
            context.writeOut("store\tcreated\tdemo\n\(TextTable.tsvEscape(path))\ttrue\t\(demo)\n")
        case .table:
            context.writeOut("created \(demo ? "demo" : "empty") store \(Terminal.escape(path))\n")
        }
        return .success
    }

    static func validate(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let path = Commands.storePath(invocation, context)
        let problems = try StoreValidator.problems(path: path)
        if !invocation.global.quiet {
            switch invocation.global.format {
            case .json, .jsonl:
                let doc = JSONValue.object(JSONObject([
                    ("store", .string(path)),
                    ("valid", .bool(problems.isEmpty)),
                    ("problems", .array(problems.map {
                        .object(JSONObject([("path", .string($0.path)), ("message", .string($0.message))]))
                    })),
                ]))
                context.writeOut(try Documents.render([doc], format: invocation.global.format, asArray: false))
            case .tsv:
                context.writeOut(TextTable(headers: ["path", "message"],
                                           rows: problems.map { [Cell($0.path), Cell($0.message)] }).renderTSV())
            case .table:
                if problems.isEmpty {
                    context.writeOut("\(Terminal.escape(path)): valid\n")
                } else {
                    context.writeOut(problems.map { Terminal.escape("\(path): \($0)") + "\n" }.joined())
                }
            }
        }
        guard problems.isEmpty else {
            context.writeErr("subs: error: \(Terminal.escape(path)): \(problems.count) problem\(problems.count == 1 ? "" : "s") found\n")
            return .dataError
        }
        return .success
    }
}
