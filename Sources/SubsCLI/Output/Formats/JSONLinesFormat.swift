// `--format jsonl`: one compact JSON document per line (per customer, per history entry).

import SubsJSON
import SubsSystem

enum JSONLinesFormat {
    static func render(_ documents: [JSONValue]) -> String {
        documents.concurrentMap { JSONWriter.compact($0) + "\n" }.joined()
    }
}
