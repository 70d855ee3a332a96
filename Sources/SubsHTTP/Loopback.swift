// Which hosts are the loopback interface, decided one way for both ends: the remote client
// (plain http only to loopback, where a bearer key may travel unencrypted) and `subs serve`
// (no token needed only on loopback). Strict by design: one spelling per address, nothing a
// resolver would be asked about.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum Loopback {
    /// Loopback by address: 127.0.0.0/8 in canonical dotted-quad form, ::1 and ::ffff:127.x.y.z
    /// (the IPv4 loopback mapped into IPv6, however IPv6 writes it; brackets optional), and the
    /// name `localhost` exactly (ASCII case-insensitive), which subs resolves itself. Every other
    /// spelling is refused, not guessed at: a trailing dot (`localhost.`, `127.0.0.1.`), `127.1`,
    /// `0x7f.1`, `2130706433`, `127.000.0.1`, `localhost.localdomain`, names under `.localhost`,
    /// a zone (`::1%lo`), look-alike Unicode — a resolver would be asked about those, and
    /// whoever answers it would get the key.
    public static func isLoopback(host: String) -> Bool {
        var h = host
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if isLocalhostName(h) { return true }
        if let v4 = canonicalIPv4(h) { return v4 >> 24 == 127 }
        return isLoopbackIPv6(h)
    }

    /// `localhost`, in any ASCII case, and nothing else (not `localhost.`, no Unicode look-alike).
    public static func isLocalhostName(_ text: String) -> Bool {
        text.utf8.count == 9 && text.lowercasedASCII == "localhost"
    }

    /// The address of a dotted quad written the one canonical way (four decimal numbers 0–255,
    /// no leading zeros), else nil.
    public static func canonicalIPv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  part.utf8.count == 1 || part.utf8.first != 0x30, let n = UInt32(part), n <= 255 else { return nil }
            value = value << 8 | n
        }
        return value
    }

    /// ::1, or an IPv4-mapped address (::ffff:a.b.c.d) in 127.0.0.0/8, however written
    /// (no brackets, no zone).
    public static func isLoopbackIPv6(_ text: String) -> Bool {
        guard text.contains(":"), text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x25 }) else { return false }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return false }
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }
}
