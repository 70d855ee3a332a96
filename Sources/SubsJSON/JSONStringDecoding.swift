// Turning the raw bytes of a JSON string (between its quotes) into the text they stand for,
// and the text helpers JSONKey offers to store readers.

enum JSONStringDecoding {
    /// The UTF-8 bytes of the string whose raw content (escapes not decoded) is `raw`.
    /// Scanned strings are valid; anything malformed (a hand-made JSONKey) becomes U+FFFD.
    static func decode(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        let n = raw.count
        while i < n {
            let c = raw[i]
            guard c == 0x5C else {
                out.append(c)
                i += 1
                continue
            }
            guard i + 1 < n else { appendScalar(0xFFFD, to: &out); break }
            let e = raw[i + 1]
            i += 2
            switch e {
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                guard let unit = hexUnit(raw, at: i) else { appendScalar(0xFFFD, to: &out); continue }
                i += 4
                if unit >= 0xD800 && unit <= 0xDBFF, i + 1 < n, raw[i] == 0x5C, raw[i + 1] == 0x75,
                   let low = hexUnit(raw, at: i + 2), low >= 0xDC00 && low <= 0xDFFF {
                    i += 6
                    appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), to: &out)
                } else if unit >= 0xD800 && unit <= 0xDFFF {
                    appendScalar(0xFFFD, to: &out)
                } else {
                    appendScalar(unit, to: &out)
                }
            default: out.append(e) // " \ /
            }
        }
        return out
    }

    private static func hexUnit(_ raw: UnsafeRawBufferPointer, at i: Int) -> UInt32? {
        guard i + 4 <= raw.count else { return nil }
        var unit: UInt32 = 0
        for k in i..<(i + 4) {
            let c = raw[k]
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x41...0x46: digit = c - 0x41 + 10
            case 0x61...0x66: digit = c - 0x61 + 10
            default: return nil
            }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    private static func appendScalar(_ value: UInt32, to out: inout [UInt8]) {
        let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
        out.append(contentsOf: UTF8.encode(scalar)!)
    }

    /// The String for the raw content of a scanned string.
    static func string(_ raw: UnsafeRawBufferPointer, escaped: Bool) -> String {
        escaped ? String(decoding: decode(raw), as: UTF8.self) : String(decoding: raw, as: UTF8.self)
    }
}

extension JSONKey {
    /// The key's text, escapes decoded.
    public var string: String { JSONStringDecoding.string(raw, escaped: hasEscapes) }

    /// True when the key's text is `s`; allocates nothing unless the key contains escapes.
    public func equals(_ s: String) -> Bool {
        guard !hasEscapes else { return string == s }
        let raw = self.raw
        if let same = s.utf8.withContiguousStorageIfAvailable({ text -> Bool in
            guard text.count == raw.count else { return false }
            guard let a = text.baseAddress, let b = raw.baseAddress else { return true }
            return JSONKeySet.bytesEqual(a, b.assumingMemoryBound(to: UInt8.self), text.count)
        }) {
            return same
        }
        return s.utf8.elementsEqual(raw)
    }
}
