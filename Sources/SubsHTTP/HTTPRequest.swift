// One parsed HTTP/1.x request as the server engine hands it to a handler: method, target split
// into path and query, headers looked up without regard to case, and the body bytes.

public enum HTTPVersion: String, Sendable {
    case http10 = "HTTP/1.0"
    case http11 = "HTTP/1.1"
}

/// Header fields in the order received. Names compare without regard to ASCII case; values are
/// the bytes received with surrounding spaces and tabs removed.
public struct HTTPHeaders: Sendable, Sequence {
    public struct Field: Sendable {
        public var name: String
        public var value: [UInt8]
        /// The value as text (invalid UTF-8 replaced with U+FFFD).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    public private(set) var fields: [Field] = []

    public init() {}

    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { append(name: name, value: Array(value.utf8)) }
    }

    public mutating func append(name: String, value: [UInt8]) {
        fields.append(Field(name: name, value: value))
    }

    /// The first value of `name`, as text.
    public subscript(name: String) -> String? {
        fields.first { $0.name.lowercasedASCII == name.lowercasedASCII }?.text
    }

    /// The first value of `name`, as received (compare secrets with `constantTimeEquals`).
    public func bytes(_ name: String) -> [UInt8]? {
        fields.first { $0.name.lowercasedASCII == name.lowercasedASCII }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercasedASCII == name.lowercasedASCII }.map(\.text)
    }

    /// The comma-separated tokens of every `name` field, lowercased (`Connection`, `Transfer-Encoding`).
    public func tokens(_ name: String) -> [String] {
        values(name).flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpacesAndTabs.lowercasedASCII }
            .filter { !$0.isEmpty }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target as received: `/v1/customers/a%2Fb?x=1`.
    public var target: String
    /// The target before `?`, still percent-encoded.
    public var path: String
    /// The target after the first `?`, still percent-encoded; nil when there is no `?`.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: String, target: String, version: HTTPVersion = .http11,
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.target = target
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = String(target[target.index(after: q)...])
        } else {
            path = target
            query = nil
        }
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Whether the connection may carry another request after this one: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        let tokens = headers.tokens("Connection")
        switch version {
        case .http11: return !tokens.contains("close")
        case .http10: return tokens.contains("keep-alive") && !tokens.contains("close")
        }
    }

    /// The path split at its literal `/` and each segment percent-decoded as UTF-8, so that an
    /// encoded `/` (`%2F`) stays inside its segment: `/v1/customers/a%2Fb` → ["v1", "customers",
    /// "a/b"]. `.` and `..` are kept as ordinary segments (ids may be `..`). Nil when a segment
    /// has a malformed escape or does not decode to valid UTF-8.
    public var pathSegments: [String]? {
        var segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if segments.first?.isEmpty == true { segments.removeFirst() }
        var decoded: [String] = []
        decoded.reserveCapacity(segments.count)
        for segment in segments {
            guard let text = HTTPRequest.percentDecode(segment) else { return nil }
            decoded.append(text)
        }
        return decoded
    }

    /// `%XX` escapes decoded (`+` stays `+`: this is a path, not a form); nil when an escape is
    /// malformed or the bytes are not UTF-8.
    public static func percentDecode<S: Collection>(_ encoded: S) -> String? where S.Element == UInt8 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var i = encoded.startIndex
        while i != encoded.endIndex {
            let byte = encoded[i]
            if byte == UInt8(ascii: "%") {
                let h = encoded.index(after: i)
                guard h != encoded.endIndex else { return nil }
                let l = encoded.index(after: h)
                guard l != encoded.endIndex, let high = hexValue(encoded[h]), let low = hexValue(encoded[l]) else { return nil }
                bytes.append(high << 4 | low)
                i = encoded.index(after: l)
            } else {
                bytes.append(byte)
                i = encoded.index(after: i)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension StringProtocol {
    /// ASCII-only lowercasing: header names and tokens are ASCII, and locale rules must not apply.
    var lowercasedASCII: String {
        String(decoding: utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    var trimmingSpacesAndTabs: Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = s.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return s[first...last]
    }
}

/// Compares two byte strings in time that depends only on their lengths, never on where they
/// first differ (bearer tokens: a timing side channel must not reveal a prefix).
public func constantTimeEquals<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
where A.Element == UInt8, B.Element == UInt8 {
    let x = Array(a), y = Array(b)
    var difference: UInt8 = x.count == y.count ? 0 : 1
    // Always walk the longer of the two so that the work does not reveal which is shorter.
    let n = max(x.count, y.count)
    for i in 0..<n {
        let p = i < x.count ? x[i] : 0
        let q = i < y.count ? y[i] : 0
        difference |= p ^ q
    }
    return difference == 0
}
