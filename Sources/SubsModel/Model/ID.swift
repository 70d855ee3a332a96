// The one type of a customer id, an alias, a product, entitlement, transaction or grant id
// (SPEC section 7, "Ids are bytes"): two ids are equal when their UTF-8 bytes are equal.
// Swift's String compares and hashes by Unicode canonical equivalence, so NFC `café`
// (63 61 66 c3 a9) and NFD `café` (63 61 66 65 cc 81) would be one key of a Set<String> or a
// [String: …] — one customer answered for another. Ids are kept in this type wherever they are
// compared, hashed or sorted, so that the compiler refuses a String comparison of two ids;
// `string` is for display, serialisation and the wire only.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON

public struct ID: Hashable, Comparable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    /// The id as written (its bytes are the id): for display, JSON and URLs, never to compare.
    public let string: String

    public init(_ string: String) {
        self.string = string
    }

    public init(stringLiteral value: String) {
        self.string = value
    }

    public init(stringInterpolation: DefaultStringInterpolation) {
        self.string = String(stringInterpolation: stringInterpolation)
    }

    public var description: String { string }

    /// Quoted, every scalar outside printable ASCII as `\u{…}`: NFC and NFD `café` look
    /// different here ("caf\u{e9}", "cafe\u{301}").
    public var debugDescription: String {
        var out = "\""
        for scalar in string.unicodeScalars {
            if scalar.isASCII, scalar.value >= 0x20, scalar.value != 0x7F, scalar != "\"", scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out + "\""
    }

    public var isEmpty: Bool { string.isEmpty }

    /// The id's UTF-8 bytes.
    public var utf8: String.UTF8View { string.utf8 }

    public static func == (a: ID, b: ID) -> Bool { ID.bytesEqual(a.string, b.string) }

    /// Byte order (for UTF-8 that is code point order): deterministic, and the order of
    /// Swift's `<` for ASCII and NFC ids.
    public static func < (a: ID, b: ID) -> Bool { ID.bytesCompare(a.string, b.string) < 0 }

    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if hashed == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
        // A byte no UTF-8 text holds ends the id (as String's own hash does): ids side by side in
        // one key (a chain of an entitlement) stay apart.
        hasher.combine(0xFF as UInt8)
    }

    /// Whether two strings have the same UTF-8 bytes (not canonical equivalence).
    public static func bytesEqual(_ a: String, _ b: String) -> Bool { JSON.bytesEqual(a, b) }

    /// Negative, zero or positive as `a`'s bytes sort before, with or after `b`'s.
    public static func bytesCompare(_ a: String, _ b: String) -> Int {
        let a = a.utf8, b = b.utf8
        let compared: Int?? = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in
                let common = min(x.count, y.count)
                let c = common == 0 ? 0 : Int(memcmp(x.baseAddress!, y.baseAddress!, common))
                return c != 0 ? c : x.count - y.count
            }
        }
        if let compared, let compared { return compared }
        for (x, y) in zip(a, b) where x != y { return Int(x) - Int(y) }
        return a.count - b.count
    }

    /// Whether `other` is this id written in another Unicode form (canonically equivalent, other
    /// bytes): what an error says when it suggests the one for the other, as they look alike.
    public func isOtherSpelling(of other: ID) -> Bool {
        self != other && string == other.string
    }

    /// Whether the id's bytes begin with `prefix`'s bytes.
    public func hasPrefix(_ prefix: String) -> Bool {
        string.utf8.starts(with: prefix.utf8)
    }
}

extension Sequence where Element == ID {
    /// The ids as written (display, JSON).
    public var strings: [String] { map(\.string) }
}

extension Sequence where Element == String {
    /// The strings as ids (compared by their bytes from here on).
    public var ids: [ID] { map { ID($0) } }
}
