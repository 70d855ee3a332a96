// The JSON bodies of the subs REST API's POSTs, read strictly (SPEC section 6): an object whose
// every member is a field the request knows. A misspelt field is refused with the nearest known
// name, never ignored — `{"expiresAt": …}` must not turn into a lifetime grant.

import SubsJSON
import SubsModel

enum RequestBody {
    static let grantFields = ["entitlement", "expirationDate", "reason", "grantedBy", "create"]
    static let revokeFields = ["reason", "revokedBy"]

    /// The body as an object, refused when it is not one or holds a member not in `fields`.
    static func object(_ body: [UInt8], fields: [String], of request: String) throws -> JSONObject {
        guard let object = try JSON.parse(body).objectValue else { throw Problem.notAnObject }
        // By bytes, as JSON keys are: a key that only looks like a field is not one.
        for key in object.keys where !fields.contains(where: { JSON.bytesEqual($0, key) }) {
            throw Problem.unknownField(key, nearest: nearest(to: key, among: fields), request: request, fields: fields)
        }
        return object
    }

    /// A string field; nil when absent, null or empty; an error when it has another type.
    static func text(_ fields: JSONObject, _ key: String) throws -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        default: throw Problem.notAString(key)
        }
    }

    /// A true/false field; false when absent or null.
    static func flag(_ fields: JSONObject, _ key: String) throws -> Bool {
        switch fields[key] {
        case nil, .null?: return false
        case .bool(let value)?: return value
        default: throw Problem.notABool(key)
        }
    }

    /// The known name closest to `key`: the same name in another case; else what other APIs
    /// call it (`until`, `actor`, `note`…); else the field sharing the longest start of at least
    /// three characters (`expiresAt` → `expirationDate`); else the smallest edit distance.
    /// Always one: the message names what was probably meant.
    static func nearest(to key: String, among fields: [String]) -> String {
        // A key far longer than any field is compared by its start only: bounded work.
        let probe = String(key.lowercased().prefix(64))
        if let same = fields.first(where: { $0.lowercased() == probe }) { return same }
        if let meant = synonyms[probe], let field = fields.first(where: meant.contains) { return field }
        func shared(_ field: String) -> Int { zip(probe, field.lowercased()).prefix { $0 == $1 }.count }
        if let best = fields.max(by: { shared($0) < shared($1) }), shared(best) >= 3 { return best }
        return fields.min { EditDistance.distance(probe, $0.lowercased()) < EditDistance.distance(probe, $1.lowercased()) }
            ?? fields[0]
    }

    /// Names other APIs use for these fields (lowercased), and the fields they stand for.
    private static let synonyms: [String: [String]] = {
        var table: [String: [String]] = [:]
        for name in ["until", "end", "ends", "endsat", "enddate", "end_time", "end_time_ms", "expires", "expiry",
                     "expires_at", "expiration_date", "duration", "lifetime"] {
            table[name] = ["expirationDate"]
        }
        for name in ["actor", "by", "user", "author", "agent", "granted_by", "revoked_by"] {
            table[name] = ["grantedBy", "revokedBy"]
        }
        for name in ["note", "notes", "comment", "why", "message", "revokereason", "revoke_reason"] { table[name] = ["reason"] }
        for name in ["id", "entitlement_id", "entitlementid"] { table[name] = ["entitlement"] }
        for name in ["createmissing", "create_missing", "upsert"] { table[name] = ["create"] }
        return table
    }()

    enum Problem: Error, CustomStringConvertible {
        case notAnObject
        case unknownField(String, nearest: String, request: String, fields: [String])
        case notAString(String)
        case notABool(String)

        var description: String {
            switch self {
            case .notAnObject: return "the body must be a JSON object"
            case .unknownField(let key, let nearest, let request, let fields):
                let shown = key.count > 80 ? String(key.prefix(80)) + "…" : key
                return "'\(shown)' is not a field of \(request); did you mean '\(nearest)'? "
                    + "(fields: \(fields.joined(separator: ", ")))"
            case .notAString(let key): return "\(key): a string when given"
            case .notABool(let key): return "\(key): true or false when given"
            }
        }
    }
}
