// The value type for the parts of a JSON document that a command materialises
// (a catalog, one customer record, a remote answer) — never a whole store.

/// A JSON value. Objects keep their members in document order, so a record
/// that is read, changed and written back keeps its key order and unknown fields.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number literal exactly as written (already checked against RFC 8259),
    /// so huge or very precise numbers survive a round trip untouched.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// An object's members in document order. Keys are unique (the parser rejects duplicates).
public struct JSONObject: Equatable, Sendable {
    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }

        /// Keys by their bytes, as the parser tells duplicates apart.
        public static func == (a: Member, b: Member) -> Bool {
            JSON.bytesEqual(a.key, b.key) && a.value == b.value
        }
    }

    public var members: [Member]

    public init(_ members: [Member] = []) {
        self.members = members
    }

    public init(_ pairs: [(String, JSONValue)]) {
        self.members = pairs.map { Member(key: $0.0, value: $0.1) }
    }

    /// The member whose key has exactly `key`'s UTF-8 bytes: JSON keys are compared by bytes
    /// (as the parser does for duplicates), never by Unicode canonical equivalence — a catalog or
    /// answer keyed by ids holds NFC and NFD `café` as two members.
    public subscript(key: String) -> JSONValue? {
        get {
            // Equal bytes imply Swift's `==`, which is cheap for the ASCII keys of the store and
            // copies nothing: only a key it accepts is compared byte by byte.
            for i in members.indices where members[i].key == key {
                if JSON.bytesEqual(members[i].key, key) { return members[i].value }
            }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { JSON.bytesEqual($0.key, key) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    public var keys: [String] { members.map(\.key) }
}

extension JSONValue {
    /// Strings (and keys) are equal when their UTF-8 bytes are: JSON text is compared by bytes,
    /// never by Unicode canonical equivalence as Swift's String is.
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return JSON.bytesEqual(x, y)
        case (.string(let x), .string(let y)): return JSON.bytesEqual(x, y)
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }

    public var objectValue: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The JSON type name used in error messages ("expected string, found number").
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    public subscript(key: String) -> JSONValue? { objectValue?[key] }
}
