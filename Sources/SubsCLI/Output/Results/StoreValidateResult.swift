// What `store validate` answers, in every format.

import SubsJSON
import SubsStore

/// `store validate`: every problem with its path.
struct StoreValidateResult: CommandResult {
    var path: String
    var problems: [StoreProblem]

    var document: JSONOutput {
        .document(.object(JSONObject([
            ("store", .string(path)),
            ("valid", .bool(problems.isEmpty)),
            ("problems", .array(problems.map {
                .object(JSONObject([("path", .string($0.path)), ("message", .string($0.message))]))
            })),
        ])))
    }

    var rows: Rows {
        Rows(headers: ["path", "message"], values: problems.map { [$0.path, $0.message] })
    }

    func table(_ style: OutputStyle) -> String {
        if problems.isEmpty { return "\(Terminal.escape(path)): valid\n" }
        // A syntax error has no JSON path: `store.json:1:22: …`, as an editor reads it.
        return problems.map { Terminal.escape($0.path.isEmpty ? "\(path):\($0.message)" : "\(path): \($0)") + "\n" }.joined()
    }
}
