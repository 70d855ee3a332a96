// A remote base URL, checked before anything is sent: absolute http(s), no user info, and
// plain http only to a loopback address written as one (or `localhost`, which subs pins to
// 127.0.0.1 and ::1 itself). Also how a URL is shown in messages (no secrets).

import Foundation
import SubsHTTP

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
        // Decided on the address connected to, never on a spelling a resolver would read.
        if scheme == "http" && RemoteURL.loopbackTarget(trimmed) == nil {
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

    /// Loopback by address (`Loopback.isLoopback`, shared with `subs serve`): 127.0.0.0/8 in
    /// canonical dotted-quad form, ::1, ::ffff:127.x.y.z and the name `localhost` exactly;
    /// every other spelling is refused.
    public static func isLoopback(host: String) -> Bool { Loopback.isLoopback(host: host) }

    /// Where a plain-http request may connect, or nil when it may not.
    public struct LoopbackTarget: Sendable, Equatable {
        /// The host as written in the URL (brackets of an IPv6 literal dropped).
        public let host: String
        /// The URL's port, or 80.
        public let port: Int
        /// Whether the host is the name `localhost`: then libcurl is given its addresses
        /// (CURLOPT_RESOLVE) so that no resolver is asked; a literal address is never resolved.
        public let isName: Bool

        /// The CURLOPT_RESOLVE entry that pins `localhost` to 127.0.0.1 and ::1 (libcurl tries
        /// both, like a resolver answering both), nil for a literal address.
        public var resolveEntry: String? { isName ? "\(host):\(port):127.0.0.1,[::1]" : nil }
    }

    /// The loopback target of a plain-http URL: the authority (what lies between `http://` and
    /// the first `/`) must be exactly a loopback host (`isLoopback`) and an optional decimal
    /// port — no user info, percent-escapes, backslashes or anything else that two URL parsers
    /// could read differently. nil for anything else, https included.
    public static func loopbackTarget(_ url: String) -> LoopbackTarget? {
        let bytes = Array(url.utf8)
        guard bytes.count > 7, String(decoding: bytes[0..<7], as: UTF8.self).lowercased() == "http://" else { return nil }
        let end = bytes[7...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        let authority = bytes[7..<end]
        let allowed: (UInt8) -> Bool = { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: ":") || b == UInt8(ascii: "[") || b == UInt8(ascii: "]")
        }
        guard !authority.isEmpty, authority.allSatisfy(allowed) else { return nil }
        let text = String(decoding: authority, as: UTF8.self)
        let host: String, portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if after.isEmpty { portText = nil } else if after.hasPrefix(":") { portText = after.dropFirst() } else { return nil }
            guard Loopback.isLoopbackIPv6(host) else { return nil }
        } else {
            let pieces = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = String(pieces[0])
            portText = pieces.count == 2 ? pieces[1] : nil
            guard !host.contains("["), !host.contains("]"), Loopback.isLocalhostName(host) || Loopback.canonicalIPv4(host).map({ $0 >> 24 == 127 }) == true
            else { return nil }
        }
        var port = 80
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let n = Int(portText), (1...65535).contains(n) else { return nil }
            port = n
        }
        return LoopbackTarget(host: host, port: port, isName: host.lowercased() == "localhost")
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
        // Controls (C0, DEL, C1) and invisible or reordering characters are percent-encoded, as
        // a URL spells them: the result holds nothing a terminal acts on, and no backslash that
        // a message escaper would double.
        return String(text.unicodeScalars.map { s -> String in
            switch s.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator:
                return String(s).utf8.map { "%" + ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
            default:
                return String(s)
            }
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

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
