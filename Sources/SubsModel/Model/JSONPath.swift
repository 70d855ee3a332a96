// Where in a document a problem is, as every message of the store and the platforms' decoders
// names it.

import SubsJSON

/// Builds JSON paths in the spec's notation: `customers.alice.transactions[3]`.
public enum JSONPath {
    public static func member(_ base: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { s in
            (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || (s >= "0" && s <= "9") || s == "_" || s == "-" || s == "$" || s == ":"
        }
        let part = plain ? key : "[\(JSON.quote(key))]"
        if base.isEmpty { return part }
        return plain ? "\(base).\(part)" : "\(base)\(part)"
    }

    /// The member an id names (a customer, a product): the id as written.
    public static func member(_ base: String, _ key: ID) -> String { member(base, key.string) }

    public static func index(_ base: String, _ i: Int) -> String { "\(base)[\(i)]" }
}
