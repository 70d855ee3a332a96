// Terminal safety: data never drives the terminal, never reorders or hides text, and a huge value
// never floods a message.

import SubsModel

public enum Terminal {
    /// Escapes what must not reach a terminal raw: every control character (C0, DEL, C1, and so
    /// ESC) as `\xHH`; bidirectional and invisible format characters as `\uHHHH`; and the
    /// backslash as `\\`, so an escape sequence spelled out in the data (`\x1b`) is never
    /// mistaken for an escaped control character.
    /// An id as written, escaped for the screen.
    public static func escape(_ id: ID) -> String { escape(id.string) }

    public static func escape(_ text: String) -> String {
        // Almost all text has nothing to escape: C0, DEL and `\` are single bytes, every C1
        // control (and U+00AD) is encoded as 0xC2 0x80...0xAD, and the format characters start
        // with one of the lead bytes `mayStartAnEscape` lists, so a byte scan decides.
        if !text.utf8.contains(where: mayStartAnEscape) { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v == 0x5C {
                out += "\\\\"
            } else if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + String(v, radix: 16, uppercase: false).leftPadded(to: 2)
            } else if isHiddenFormatCharacter(v) {
                // Beyond U+FFFF, eight digits, so `\ue0001` is never read as U+E000 then "1".
                out += v > 0xFFFF ? "\\U" + String(v, radix: 16, uppercase: false).leftPadded(to: 8)
                                  : "\\u" + String(v, radix: 16, uppercase: false).leftPadded(to: 4)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Characters that reorder the line around them or are invisible: every format character
    /// (Unicode general category Cf) — the bidi marks, embeddings, overrides and isolates, the
    /// zero-width space and word joiner, the soft hyphen, U+180E, the deprecated U+206A–F, the
    /// interlinear annotation marks, the tag characters U+E0001–E007F (which can spell hidden
    /// ASCII after a visible id) — and the line and paragraph separators U+2028/9. Left alone:
    /// the joiners U+200C/D, part of ordinary Persian and Indic words and of emoji sequences, and
    /// the prepended concatenation marks (U+0600–5, U+06DD, U+070F, U+0890–1, U+08E2, U+110BD,
    /// U+110CD), which are drawn as visible signs.
    static func isHiddenFormatCharacter(_ v: UInt32) -> Bool {
        switch v {
        case 0x2028, 0x2029: return true
        case 0x200C, 0x200D, 0x0600...0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD: return false
        default: return Unicode.Scalar(v)?.properties.generalCategory == .format
        }
    }

    /// The first UTF-8 byte of every format character (and of U+2028/9): U+00AD (0xC2), U+061C
    /// (0xD8), U+06DD (0xDB), U+070F (0xDC), U+0890–U+08E2 (0xE0), U+180E (0xE1), U+2xxx (0xE2),
    /// U+FEFF and U+FFF9–B (0xEF), U+110BD…U+1D17A (0xF0), U+E0001–E007F (0xF3).
    /// Whether a byte is a C0 control, DEL, `\` or one of those lead bytes: a switch, not a set
    /// lookup, since every cell of every table goes through it.
    @inline(__always)
    static func mayStartAnEscape(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00..<0x20, 0x7F, 0x5C, 0xC2, 0xD8, 0xDB, 0xDC, 0xE0, 0xE1, 0xE2, 0xEF, 0xF0, 0xF3: return true
        default: return false
        }
    }

    /// The most characters of one value quoted in a message.
    static let quotedLimit = 80

    /// A value from the user or the data as it appears in a message: cut to `quotedLimit`
    /// characters with "…", escaped, in single quotes. Every message quotes values this way.
    /// `escaping: false` is for messages that `Commands.report` escapes as a whole when it prints.
    public static func quoted(_ value: String, escaping: Bool = true) -> String {
        let short = cut(value, to: quotedLimit)
        return "'" + (escaping ? escape(short) : short) + "'"
    }

    /// An id as written, quoted (its bytes are shown, escaped like any value).
    public static func quoted(_ id: ID, escaping: Bool = true) -> String {
        quoted(id.string, escaping: escaping)
    }

    /// A value cut to `limit` characters, the last of them "…" when it was longer.
    static func cut(_ value: String, to limit: Int) -> String {
        guard let end = value.index(value.startIndex, offsetBy: limit, limitedBy: value.endIndex),
              end != value.endIndex else { return value }
        return String(value.prefix(limit - 1)) + "…"
    }

    /// Bytes that are not valid UTF-8, for a message: the valid parts escaped as usual, each
    /// invalid byte as `\xHH`, cut like a quoted value.
    static func showingInvalidUTF8(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        var shown = 0
        while index < bytes.count {
            if shown == quotedLimit - 1 { return out + "…" }
            shown += 1
            if let length = (1...4).first(where: { index + $0 <= bytes.count
                                                && String(validating: bytes[index..<index + $0], as: UTF8.self) != nil }) {
                out += escape(String(decoding: bytes[index..<index + length], as: UTF8.self))
                index += length
            } else {
                out += "\\x" + String(bytes[index], radix: 16, uppercase: false).leftPadded(to: 2)
                index += 1
            }
        }
        return out
    }

    /// The most characters of a whole message line (a long path or JSON path from the store
    /// layer, which quotes nothing itself).
    static let messageLimit = 400

    /// Raw text (a store error, say) made fit for stderr: escaped, then shortened.
    public static func message(_ text: String) -> String {
        shortened(escape(text))
    }

    /// An already escaped message line longer than `messageLimit` characters with its middle
    /// replaced by "…", so both what failed (the start) and why (the end) stay.
    static func shortened(_ escaped: String) -> String {
        guard escaped.utf8.count > messageLimit, escaped.count > messageLimit else { return escaped }
        let keep = (messageLimit - 1) / 2
        return String(escaped.prefix(keep)) + "…" + String(escaped.suffix(keep))
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }

    /// The text with every `target` replaced by `replacement`.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
