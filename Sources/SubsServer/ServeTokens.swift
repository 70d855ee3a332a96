// The tokens `subs serve` accepts (SPEC section 6 rev. 4, "Tokens"): one per person, each with a
// name (what grantedBy, revokedBy and the request log say) and scopes. A token file holds one
// per line, `NAME SCOPES TOKEN` separated by spaces or tabs, SCOPES a comma-separated subset of
// read, write, admin; `#` starts a comment line; blank lines are skipped. A file of one bare
// token (and SUBS_SERVER_TOKEN) is one token named `default` with every scope, as before.

import SubsHTTP

public struct ServeToken: Sendable {
    public let name: String
    public let scopes: Set<TokenScope>
    let secret: [UInt8]
    /// The single-token form, shared by a team: it names nobody, so a body's grantedBy or
    /// revokedBy is kept as the grant's (as before tokens had names); the audit line's actor is
    /// `default`, with the body's name as onBehalfOf.
    public let isShared: Bool

    public init(name: String, scopes: Set<TokenScope>, secret: String, isShared: Bool = false) {
        self.name = name
        self.scopes = scopes
        self.secret = Array(secret.utf8)
        self.isShared = isShared
    }

    /// The single-token form: `default`, every scope.
    public static func single(_ secret: String) -> ServeToken {
        ServeToken(name: "default", scopes: Set(TokenScope.allCases), secret: secret, isShared: true)
    }
}

public struct ServeTokens: Sendable {
    public let tokens: [ServeToken]

    public init(_ tokens: [ServeToken]) {
        self.tokens = tokens
    }

    /// Why a token file is refused: the line and what is wrong with it.
    public struct FormatError: Error, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { line > 0 ? "line \(line): \(reason)" : reason }
    }

    /// A token file's text: `NAME SCOPES TOKEN` lines, or one bare token.
    public static func parse(_ text: String) throws(FormatError) -> ServeTokens {
        var lines: [(number: Int, fields: [Substring])] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            lines.append((index + 1, line.split(whereSeparator: { $0 == " " || $0 == "\t" })))
        }
        guard !lines.isEmpty else { throw FormatError(line: 0, reason: "no token in it") }
        if lines.count == 1, lines[0].fields.count == 1 {
            return ServeTokens([.single(String(lines[0].fields[0]))])
        }
        var tokens: [ServeToken] = []
        for (number, fields) in lines {
            guard fields.count == 3 else {
                throw FormatError(line: number, reason: "expected NAME SCOPES TOKEN (e.g. dana read,write 3f9c…), found \(fields.count) field\(fields.count == 1 ? "" : "s")")
            }
            let name = String(fields[0])
            var scopes: Set<TokenScope> = []
            for word in fields[1].split(separator: ",", omittingEmptySubsequences: false) {
                guard let scope = TokenScope(rawValue: String(word)) else {
                    throw FormatError(line: number, reason: "'\(word)' is not a scope (read, write, admin, separated by commas)")
                }
                scopes.insert(scope)
            }
            // Names are compared by their bytes, as ids are.
            if tokens.contains(where: { Array($0.name.utf8) == Array(name.utf8) }) {
                throw FormatError(line: number, reason: "the name '\(name)' is already given to another token")
            }
            let secret = String(fields[2])
            if tokens.contains(where: { $0.secret == Array(secret.utf8) }) {
                throw FormatError(line: number, reason: "this token is already \(name == "" ? "used" : "another name's"): give each person their own")
            }
            tokens.append(ServeToken(name: name, scopes: scopes, secret: secret))
        }
        return ServeTokens(tokens)
    }

    /// The token a request's `Authorization: Bearer …` carries, compared in constant time with
    /// every token (the time does not say which one nor how much matched).
    func token(for header: [UInt8]?) -> ServeToken? {
        guard let header, header.count > 7,
              String(decoding: header.prefix(7), as: UTF8.self).lowercased() == "bearer " else { return nil }
        let presented = Array(header.dropFirst(7))
        var found: ServeToken?
        for token in tokens where constantTimeEquals(presented, token.secret) && found == nil { found = token }
        return found
    }
}
