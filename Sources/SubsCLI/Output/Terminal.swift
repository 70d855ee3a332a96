// Terminal safety: data never drives the terminal.

public enum Terminal {
    /// Escapes every control character (C0, DEL, C1, and so ESC) as \xHH.
    public static func escape(_ text: String) -> String {
        // Almost all text has nothing to escape: C0 and DEL are single bytes, and every C1
        // control is encoded as 0xC2 0x80...0x9F, so a byte scan decides.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }) { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + String(v, radix: 16, uppercase: false).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
