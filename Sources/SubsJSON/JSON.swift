// Entry points of SubsJSON: strict parsing into JSONValue, the validating scan with a visitor,
// and string quoting. The contract is described in JSONAPI.swift.

#if canImport(Glibc)
import Glibc
#endif

public enum JSON {
    /// Strict RFC 8259 parse of a whole (small) document into a JSONValue.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        try parse(bytes, range: 0..<bytes.count)
    }

    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try bytes.withUnsafeBytes { try parse($0) }
    }

    public static func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { try parse(UnsafeRawBufferPointer($0)) }
    }

    /// Parses the one value occupying exactly `range` of `bytes` (surrounding whitespace allowed),
    /// e.g. a customer found by a scan. Errors carry offsets and line:column in the whole buffer.
    public static func parse(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) throws -> JSONValue {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "range outside the buffer")
        guard let base = bytes.baseAddress else {
            throw JSONError(message: "unexpected end of input", offset: 0, line: 1, column: 1)
        }
        let start = base.assumingMemoryBound(to: UInt8.self)
        var builder = JSONValueBuilder(base: start)
        try JSONScanner.scan(JSONBytes(base: start, end: range.upperBound), from: range.lowerBound,
                             visitor: &builder)
        return builder.result ?? .null
    }

    /// Validates the whole document strictly (exactly what `parse` accepts) without building
    /// values, and reports every value at depth <= visitor.reportDepth.
    public static func scan<V: JSONScanVisitor>(_ bytes: UnsafeRawBufferPointer, visitor: inout V) throws {
        guard let base = bytes.baseAddress else {
            throw JSONError(message: "unexpected end of input", offset: 0, line: 1, column: 1)
        }
        let start = base.assumingMemoryBound(to: UInt8.self)
        try JSONScanner.scan(JSONBytes(base: start, end: bytes.count), from: 0, visitor: &visitor)
    }

    /// The JSON string literal for `s`: escapes '"', '\\' and control characters, keeps all
    /// other characters as UTF-8.
    public static func quote(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        // Almost every string needs no escape: copied whole (the byte loop below was a tenth
        // of the server's time per GET).
        let copiedWhole: Bool? = s.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copiedWhole == true {
            out.append(0x22)
            return
        }
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x08: out.append(0x5C); out.append(0x62)
            case 0x0C: out.append(0x5C); out.append(0x66)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0x00..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30])
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0F))
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }

    /// Whether two strings have the same UTF-8 bytes — not Swift's `==`, which is Unicode
    /// canonical equivalence (NFC and NFD `café` are equal to it, never to JSON or to subs).
    @inlinable
    public static func bytesEqual(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        // O(1) for native strings: most unequal strings stop here.
        guard x.count == y.count else { return false }
        let compared: Bool?? = x.withContiguousStorageIfAvailable { x in
            y.withContiguousStorageIfAvailable { y in
                x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
        if let compared, let compared { return compared }
        return x.elementsEqual(y)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10 }
}
