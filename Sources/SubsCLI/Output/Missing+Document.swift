// A USER asked and not found, as the command line's documents carry it in their arrays.

import SubsJSON
import SubsModel

extension Documents {
    /// A USER asked and not found, in an array: `{"requestedId", "customerId": null, "error": {"code", "message"}}`.
    static func missing(_ m: Missing) -> JSONValue {
        .object(JSONObject([
            ("requestedId", id(m.requestedId)),
            ("customerId", id(m.customerId)),
            ("error", .object(JSONObject([("code", .string(m.code)), ("message", .string(m.message))]))),
        ]))
    }
}
