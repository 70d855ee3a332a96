// Terminal safety: data never drives the terminal, never reorders or hides text, and a huge value
// never floods a message.

public enum Terminal {
    /// Escapes what must not reach a terminal raw: every control character (C0, DEL, C1, and so
    /// ESC) as `\xHH`; bidirectional and invisible format characters as `\uHHHH`; and the
    /// backslash as `\\`, so an escape sequence spelled out in the data (`\x1b`) is never
    /// mistaken for an escaped control character.
    public static func escape(_ text: String) -> String {
        // Almost all text has nothing to escape: C0, DEL and `\` are single bytes, every C1
        // control is encoded as 0xC2 0x80...0x9F, and the format characters below start with
        // 0xD8 (U+061C), 0xE2 (U+2xxx) or 0xEF (U+FEFF), so a byte scan decides.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0x5C || $0 == 0xC2
                                        || $0 == 0xD8 || $0 == 0xE2 || $0 == 0xEF }) { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v == 0x5C {
                out += "\\\\"
            } else if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + String(v, radix: 16, uppercase: false).leftPadded(to: 2)
            } else if isHiddenFormatCharacter(v) {
                out += "\\u" + String(v, radix: 16, uppercase: false).leftPadded(to: 4)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Characters that reorder the line around them or are invisible: the bidi marks, embeddings,
    /// overrides and isolates (U+061C, U+200E/F, U+202A–E, U+2066–9), zero-width space and word
    /// joiner (U+200B, U+2060–4), line and paragraph separators (U+2028/9) and the byte order
    /// mark / zero-width no-break space (U+FEFF). The joiners U+200C/D are left alone: they are
    /// part of ordinary Persian and Indic words and of emoji sequences, and move nothing.
    static func isHiddenFormatCharacter(_ v: UInt32) -> Bool {
        switch v {
        case 0x061C, 0x200B, 0x200E, 0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF:
            return true
        default:
            return false
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
}
