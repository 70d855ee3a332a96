// A remote base URL, checked before anything is sent: absolute http(s), no user info, and
// plain http only to loopback hosts. Also how a URL is shown in messages (no secrets).

import Foundation

public struct RemoteURL: Sendable, Equatable {
    public let scheme: String
    public let host: String
    /// The URL as given, without a trailing slash.
    public let base: String

    /// Checks `text`; throws `RemoteError.invalidURL` or `.insecureURL`.
    public init(_ text: String) throws {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else {
            throw RemoteError.invalidURL(url: RemoteURL.display(text), reason: "expected an absolute http or https URL")
        }
        guard let host = components.host, !host.isEmpty else {
            throw RemoteError.invalidURL(url: RemoteURL.display(text), reason: "no host")
        }
        if components.user != nil || components.password != nil {
            throw RemoteError.invalidURL(url: RemoteURL.display(text), reason: "credentials in the URL; use --api-key-file")
        }
        if components.query != nil || components.fragment != nil {
            throw RemoteError.invalidURL(url: RemoteURL.display(text), reason: "a base URL takes no query or fragment")
        }
        if scheme == "http" && !RemoteURL.isLoopback(host: host) {
            throw RemoteError.insecureURL(url: RemoteURL.display(text))
        }
        self.scheme = scheme
        self.host = host
        self.base = trimmed
    }

    /// The base joined with `path` ("/subscribers/alice", may carry a query).
    public func appending(_ path: String) -> String {
        path.isEmpty ? base : base + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Loopback: localhost, 127.0.0.0/8 in dotted-quad form, ::1 (also written out in full).
    /// Other spellings (127.1, 0x7f000001, names under .localhost) are refused, not guessed at.
    public static func isLoopback(host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h = String(h.dropLast()) }
        if h == "localhost" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isASCIIDigit) && Int(p)! <= 255 }) {
            return parts[0] == "127" || Int(parts[0]) == 127
        }
        var address = in6_addr()
        if h.contains(":"), inet_pton(AF_INET6, h, &address) == 1 {
            var loopback = in6_addr()
            _ = inet_pton(AF_INET6, "::1", &loopback)
            return withUnsafeBytes(of: &address) { a in withUnsafeBytes(of: &loopback) { b in a.elementsEqual(b) } }
        }
        return false
    }

    /// `url` for messages and logs: scheme, host, port and path only (no user info, query or
    /// fragment, which may hold secrets); control characters escaped.
    public static func display(_ url: String) -> String {
        var text = url
        if let c = URLComponents(string: url), c.scheme != nil, let host = c.host {
            var shown = "\(c.scheme!)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)"
            if let port = c.port { shown += ":\(port)" }
            shown += c.percentEncodedPath
            text = shown
        } else {
            // Not parseable: keep what cannot hold a secret (drop from '?', '#' and before '@').
            if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<cut]) }
            if let at = text.lastIndex(of: "@") {
                let start = text.range(of: "://").map(\.upperBound) ?? text.startIndex
                if start <= at { text = String(text[..<start]) + String(text[text.index(after: at)...]) }
            }
        }
        return String(text.unicodeScalars.map { s -> String in
            s.value < 0x20 || s.value == 0x7F ? "\\u{\(String(s.value, radix: 16))}" : String(s)
        }.joined().prefix(300))
    }

    /// One path segment, percent-encoded (RFC 3986 unreserved characters stay as they are).
    public static func segment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        // "." and ".." would be read as path navigation.
        if out == "." { return "%2E" }
        if out == ".." { return "%2E%2E" }
        return out
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
