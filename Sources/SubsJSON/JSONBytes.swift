// Token-level reading of a JSON buffer for the scanner: whitespace, strings (with full UTF-8
// validation), numbers and literals, checked byte by byte without building anything.

/// A read-only view of the buffer being scanned. Offsets are always relative to `base`, the start
/// of the whole buffer, so errors point into the whole document even when only a range is read.
struct JSONBytes {
    let base: UnsafePointer<UInt8>
    /// One past the last byte that may be read.
    let end: Int

    @inline(__always)
    subscript(offset: Int) -> UInt8 { base[offset] }

    // MARK: Errors (cold)

    /// Builds the error; line and column are counted only now, so the hot loop never tracks lines.
    @inline(never)
    func error(_ message: String, at offset: Int) -> JSONError {
        JSONError.at(offset, message, in: base)
    }

    @inline(never)
    func endOfInput() -> JSONError { error("unexpected end of input", at: end) }

    @inline(never)
    func controlCharacter(at offset: Int) -> JSONError {
        error("control character U+\(JSONBytes.hex(base[offset], digits: 4)) in string", at: offset)
    }

    @inline(never)
    func unexpected(at offset: Int) -> JSONError {
        error("unexpected \(JSONBytes.describe(base[offset]))", at: offset)
    }

    /// "character 'x'", "character U+0001" or "byte 0xFF" (a byte that cannot start UTF-8 text here).
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte <= 0x7E { return "character '\(Character(Unicode.Scalar(byte)))'" }
        if byte < 0x80 { return "character U+\(hex(byte, digits: 4))" }
        return "byte 0x\(hex(byte, digits: 2))"
    }

    static func hex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    // MARK: Whitespace

    @inline(__always)
    func skipWhitespace(_ p: inout Int) {
        var i = p
        while i < end {
            let c = base[i]
            if c > 0x20 { break }
            if c == 0x20 || c == 0x0D || c == 0x09 {
                i &+= 1
            } else if c == 0x0A {
                i &+= 1
                // Pretty-printed stores indent every line: take the indentation a word at a time.
                #if _endian(little)
                while i &+ 8 <= end {
                    let notSpace = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
                    if notSpace != 0 {
                        i &+= notSpace.trailingZeroBitCount &>> 3
                        break
                    }
                    i &+= 8
                }
                #endif
            } else {
                break
            }
        }
        p = i
    }

    // MARK: Strings

    /// Nonzero when `word` holds a byte that ends the plain run of a string: '"', '\\', a control
    /// character or a non-ASCII byte. The lowest set bit marks exactly the first such byte
    /// (borrows only travel upwards), which is all the caller uses.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & (ones &* 0x80)
    }

    /// Skips the string whose opening quote is at `p`; leaves `p` after the closing quote.
    /// Returns true when the string contains a backslash escape.
    @inline(__always)
    func skipString(_ p: inout Int) throws -> Bool {
        var i = p &+ 1
        var escaped = false
        while true {
            #if _endian(little)
            while i &+ 8 <= end {
                let special = JSONBytes.specialBytes(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                if special != 0 {
                    i &+= special.trailingZeroBitCount &>> 3
                    break
                }
                i &+= 8
            }
            #endif
            guard i < end else { throw endOfInput() }
            let c = base[i]
            if c == 0x22 {
                p = i &+ 1
                return escaped
            } else if c == 0x5C {
                i = try skipEscape(at: i)
                escaped = true
            } else if c >= 0x80 {
                i = try skipUTF8(at: i)
            } else if c < 0x20 {
                throw controlCharacter(at: i)
            } else {
                i &+= 1
            }
        }
    }

    /// Checks the escape whose backslash is at `i`; returns the offset after it.
    /// Out of line, like skipUTF8, so that the loop over plain ASCII stays small.
    @inline(never)
    func skipEscape(at i: Int) throws -> Int {
        guard i + 1 < end else { throw endOfInput() }
        switch base[i + 1] {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: // " \ / b f n r t
            return i + 2
        case 0x75: // u
            let unit = try hexUnit(at: i)
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error("lone surrogate \\u\(JSONBytes.hex(unit, digits: 4))", at: i)
            }
            guard unit >= 0xD800 && unit <= 0xDBFF else { return i + 6 }
            // A high surrogate must be followed at once by an escaped low surrogate.
            func lone() -> JSONError { error("lone surrogate \\u\(JSONBytes.hex(unit, digits: 4))", at: i) }
            guard i + 6 < end else { throw endOfInput() }
            guard base[i + 6] == 0x5C else { throw lone() }
            guard i + 7 < end else { throw endOfInput() }
            guard base[i + 7] == 0x75 else { throw lone() }
            let low = try hexUnit(at: i + 6)
            guard low >= 0xDC00 && low <= 0xDFFF else { throw lone() }
            return i + 12
        default:
            let c = base[i + 1]
            if c >= 0x20 && c < 0x7F {
                throw error("invalid escape '\\\(Character(Unicode.Scalar(c)))'", at: i)
            }
            throw error("invalid escape '\\' followed by \(JSONBytes.describe(c))", at: i)
        }
    }

    /// The code unit of the `\uXXXX` escape whose backslash is at `i`.
    func hexUnit(at i: Int) throws -> UInt32 {
        var unit: UInt32 = 0
        for k in 2..<6 {
            guard i + k < end else { throw endOfInput() }
            let c = base[i + k]
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x41...0x46: digit = c - 0x41 + 10
            case 0x61...0x66: digit = c - 0x61 + 10
            default: throw error("invalid \\u escape: expected 4 hex digits", at: i)
            }
            unit = unit << 4 | UInt32(digit)
        }
        return unit
    }

    /// Validates the UTF-8 sequence starting at `i` (Unicode Table 3-7: no overlong forms,
    /// no encoded surrogates, nothing above U+10FFFF); returns the offset after it.
    @inline(never)
    func skipUTF8(at i: Int) throws -> Int {
        let lead = base[i]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xED: length = 3; high = 0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; low = 0x90
        case 0xF4: length = 4; high = 0x8F
        case 0xF1...0xF3: length = 4
        default: throw error("invalid UTF-8", at: i)
        }
        for k in 1..<length {
            guard i + k < end else { throw endOfInput() }
            let c = base[i + k]
            let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard c >= lo && c <= hi else { throw error("invalid UTF-8", at: i) }
        }
        return i + length
    }

    // MARK: Numbers and literals

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// Checks the RFC 8259 number grammar without converting anything, so 1e999999 and
    /// 200-digit integers are fine: the literal is kept as written.
    @inline(__always)
    func skipNumber(_ p: inout Int) throws {
        let start = p
        var i = p
        if base[i] == 0x2D { // -
            i &+= 1
            guard i < end else { throw endOfInput() }
        }
        let first = base[i]
        if first == 0x30 {
            i &+= 1
            if i < end && JSONBytes.isDigit(base[i]) { throw error("leading zero in number", at: start) }
        } else if JSONBytes.isDigit(first) {
            i &+= 1
            while i < end && JSONBytes.isDigit(base[i]) { i &+= 1 }
        } else {
            throw error("invalid number", at: start)
        }
        if i < end && base[i] == 0x2E { // .
            i &+= 1
            guard i < end else { throw endOfInput() }
            guard JSONBytes.isDigit(base[i]) else { throw error("invalid number", at: start) }
            while i < end && JSONBytes.isDigit(base[i]) { i &+= 1 }
        }
        if i < end && (base[i] | 0x20) == 0x65 { // e E
            i &+= 1
            guard i < end else { throw endOfInput() }
            if base[i] == 0x2B || base[i] == 0x2D { i &+= 1 }
            guard i < end else { throw endOfInput() }
            guard JSONBytes.isDigit(base[i]) else { throw error("invalid number", at: start) }
            while i < end && JSONBytes.isDigit(base[i]) { i &+= 1 }
        }
        p = i
    }

    /// Skips `true`, `false` or `null` starting at `p` (whose first byte is t, f or n).
    @inline(__always)
    func skipLiteral(_ p: inout Int) throws {
        let i = p
        if i &+ 4 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self).littleEndian
            if word == 0x6575_7274 || word == 0x6C6C_756E { // "true", "null"
                p = i &+ 4
                return
            }
            if word == 0x736C_6166 && i &+ 4 < end && base[i &+ 4] == 0x65 { // "fals" "e"
                p = i &+ 5
                return
            }
        }
        try literalError(at: i)
    }

    @inline(never)
    func literalError(at i: Int) throws -> Never {
        let word: [UInt8] = base[i] == 0x74 ? Array("true".utf8) : base[i] == 0x66 ? Array("false".utf8) : Array("null".utf8)
        for (k, expected) in word.enumerated() {
            guard i + k < end else { throw endOfInput() }
            if base[i + k] != expected { throw error("invalid literal", at: i) }
        }
        throw error("invalid literal", at: i)
    }
}

extension JSONError {
    /// The error at `offset` of the buffer starting at `base`, with its line and column.
    /// Lines are counted only here, a word at a time, so an error deep in a large store costs
    /// one quick pass and the scan itself never tracks them.
    static func at(_ offset: Int, _ message: String, in base: UnsafePointer<UInt8>?) -> JSONError {
        guard let base, offset > 0 else { return JSONError(message: message, offset: offset, line: 1, column: 1) }
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var newlines = 0
        var i = 0
        while i + 8 <= offset {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
            // Exactly the zero bytes of x (the newlines) get their high bit set; no borrows.
            let zero = ~(((x & low) &+ low) | x | low)
            newlines += zero.nonzeroBitCount
            i += 8
        }
        while i < offset {
            if base[i] == 0x0A { newlines += 1 }
            i += 1
        }
        var lineStart = offset
        while lineStart > 0 && base[lineStart - 1] != 0x0A { lineStart -= 1 }
        return JSONError(message: message, offset: offset, line: newlines + 1, column: offset - lineStart + 1)
    }
}
