// `--format json`: one pretty-printed document (2-space indent), or an array of them; the
// documents of a large array are written on all cores.

import SubsJSON
import SubsSystem

enum JSONFormat {
    static func render(_ output: JSONOutput) -> String {
        switch output {
        case .document(let document):
            return JSONWriter.pretty(document) + "\n"
        case .nothing:
            return ""
        case .array(let documents):
            // Elements of the top-level array sit one level deep.
            let elements = documents.concurrentMap { "  " + JSONWriter.pretty($0, level: 1) }
            return elements.isEmpty ? "[]\n" : "[\n" + elements.joined(separator: ",\n") + "\n]\n"
        }
    }
}
