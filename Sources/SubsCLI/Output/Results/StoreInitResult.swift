// What `store init` answers, in every format.

import SubsJSON

/// `store init`: which store was created.
struct StoreInitResult: CommandResult {
    var path: String
    var demo: Bool

    var document: JSONOutput {
        .document(.object(JSONObject([("store", .string(path)), ("created", .bool(true)), ("demo", .bool(demo))])))
    }

    var rows: Rows {
        Rows(headers: ["store", "created", "demo"], values: [[path, "true", String(demo)]])
    }

    func table(_ style: OutputStyle) -> String {
        "created \(demo ? "demo" : "empty") store \(Terminal.escape(path))\n"
    }
}

