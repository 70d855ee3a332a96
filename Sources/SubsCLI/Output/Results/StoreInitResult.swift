// What `store init` answers, in every format.

import SubsJSON

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

