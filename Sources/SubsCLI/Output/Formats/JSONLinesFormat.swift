// `--format jsonl`: one compact JSON document per line (per customer, per history entry).

import SubsJSON
import SubsSystem

struct JSONLinesFormat: OutputFormatter {
    func render(_ result: CommandResult, style: OutputStyle) throws -> String {
        result.jsonLines.concurrentMap { JSONWriter.compact($0) + "\n" }.joined()
    }
}
