// The one typed reader of a platform's JSON answer: absent or null is nil, any other type is a
// WireFormatError at the member's path. Every provider's decoder reads through it; what differs
// between providers is only the wording of a wrong type (`WireWords`), kept as each has always
// said it, since users and tests read those messages.

import SubsJSON
import SubsModel
import SubsSource

/// How a provider's messages name the JSON types it expected.
public struct WireWords: Sendable {
    /// `expected \(object), found …` and so on.
    public var object: String
    public var string: String
    public var boolean: String
    /// What a date member should have been (`an ISO 8601 date-time in years 0001-9999`).
    public var date: String
    /// Whether a date shown cut to 40 characters ends with "…".
    public var marksClippedDate: Bool

    public init(object: String, string: String, boolean: String, date: String, marksClippedDate: Bool) {
        self.object = object
        self.string = string
        self.boolean = boolean
        self.date = date
        self.marksClippedDate = marksClippedDate
    }
}

/// Typed reads of one JSON object's members, each error at the member's path.
public struct WireFields {
    public let object: JSONObject
    public let path: String
    public let words: WireWords

    public init(_ object: JSONObject, path: String, words: WireWords) {
        self.object = object
        self.path = path
        self.words = words
    }

    /// `value` read as an object: anything else is an error at `path`.
    public init(_ value: JSONValue, path: String, words: WireWords) throws(WireFormatError) {
        guard let object = value.objectValue else {
            throw WireFormatError(path: path, message: "expected \(words.object), found \(value.typeName)")
        }
        self.init(object, path: path, words: words)
    }

    /// A whole answer body as JSON; the parser's own words (with its position) when it is not.
    public static func parse(_ bytes: [UInt8]) throws(WireFormatError) -> JSONValue {
        do { return try JSON.parse(bytes) } catch let error as JSONError {
            throw WireFormatError(path: "", message: "the answer is not JSON: \(error)")
        } catch {
            throw WireFormatError(path: "", message: "the answer is not JSON")
        }
    }

    public subscript(_ key: String) -> JSONValue? { object[key] }

    /// The member, unless absent or null.
    public func present(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    public func at(_ key: String) -> String { JSONPath.member(path, key) }

    public func wrongType(_ key: String, expected: String, _ value: JSONValue) -> WireFormatError {
        WireFormatError(path: at(key), message: "expected \(expected), found \(value.typeName)")
    }

    /// A string member; nil when absent or null (`missing` then, when `required`).
    public func string(_ key: String, required: Bool = false) throws(WireFormatError) -> String? {
        guard let value = present(key) else {
            if required { throw WireFormatError(path: at(key), message: "missing") }
            return nil
        }
        guard let text = value.stringValue else { throw wrongType(key, expected: words.string, value) }
        return text
    }

    /// An identifier the API documents as a string but may send as a number.
    public func identifier(_ key: String) throws(WireFormatError) -> String? {
        guard let value = present(key) else { return nil }
        switch value {
        case .string(let text): return text
        case .number(let text): return text
        default: throw wrongType(key, expected: words.string, value)
        }
    }

    /// A customer, product, entitlement or transaction id (a string, or a number sent for one):
    /// compared by its bytes from here on (SPEC section 7).
    public func id(_ key: String) throws(WireFormatError) -> ID? {
        try identifier(key).map { ID($0) }
    }

    /// A string member that is an id (`string`, as an `ID`).
    public func stringID(_ key: String, required: Bool = false) throws(WireFormatError) -> ID? {
        try string(key, required: required).map { ID($0) }
    }

    public func bool(_ key: String) throws(WireFormatError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let flag = value.boolValue else { throw wrongType(key, expected: words.boolean, value) }
        return flag
    }

    /// An object member, read with the same words; nil when absent or null.
    public func fields(_ key: String) throws(WireFormatError) -> WireFields? {
        guard let value = present(key) else { return nil }
        guard let inner = value.objectValue else { throw wrongType(key, expected: words.object, value) }
        return WireFields(inner, path: at(key), words: words)
    }

    /// The members of an object member (absent or null: none), each with its path.
    public func members(_ key: String) throws(WireFormatError) -> [(String, JSONValue, String)] {
        guard let inner = try fields(key) else { return [] }
        return inner.object.members.map { ($0.key, $0.value, inner.at($0.key)) }
    }

    /// An ISO 8601 / RFC 3339 date-time string in years 0001–9999 (absent or null: nil).
    public func date(_ key: String) throws(WireFormatError) -> Instant? {
        guard let text = try string(key) else { return nil }
        guard let instant = ISODate.parse(text) else {
            let shown = words.marksClippedDate && text.count > 40 ? String(text.prefix(40)) + "…" : String(text.prefix(40))
            throw WireFormatError(path: at(key), message: "expected \(words.date), found \(JSON.quote(shown))")
        }
        return instant
    }

    /// Milliseconds since 1970, an integer, in years 0001–9999.
    public func milliseconds(_ key: String) throws(WireFormatError) -> Instant? {
        guard let value = present(key) else { return nil }
        let problem = WireFormatError(path: at(key), message: "expected milliseconds since 1970 in years 0001-9999, found \(value.typeName)")
        guard case .number(let text) = value, let ms = Int64(text) else { throw problem }
        let (seconds, rest) = ms.quotientAndRemainder(dividingBy: 1000)
        let instant = rest < 0 ? Instant(seconds: seconds - 1, nanoseconds: Int32(rest + 1000) * 1_000_000)
            : Instant(seconds: seconds, nanoseconds: Int32(rest) * 1_000_000)
        guard instant.isSupported else { throw problem }
        return instant
    }
}
