// Prose that names an option or an exit status does it through markup, resolved where the text
// is rendered (help, man page, messages, the generated docs, `commands --json`), so that no
// hand-written flag or number can drift from the code: `{flag:--remote}` names an option (a
// global one, a command's, or a provider's setting), `{flag:--remote URL}` the option with its
// value (one code span in markdown), and `{exit:not-offered}` an exit status by one of its names
// in ExitCode.meanings. The options are checked against the command line's (its flagNames):
// `resolve` fails on an unknown name; `render` leaves such markup as written, which the tests of
// every generated text reject.


enum ProseMarkup {
    enum Target {
        /// Help, messages and the man page (which escapes the text itself).
        case plain
        /// The generated regions of README.md and docs/: options as code spans.
        case markdown
    }

    struct UnknownName: Error, Equatable, CustomStringConvertible {
        var markup: String
        var description: String { "unknown name in prose markup: \(markup)" }
    }

    static let kinds = ["flag", "exit"]

    /// The text with every markup replaced; throws UnknownName for an option `flags` does not
    /// hold (the command line's CommandLineSpec.flagNames) or an exit status ExitCode.meanings
    /// does not name.
    static func resolve(_ text: String, for target: Target = .plain, flags: Set<String>) throws -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let kind = kinds.first(where: { after.hasPrefix($0 + ":") }),
                  let close = after.firstIndex(of: "}") else {
                out += "{"
                rest = after
                continue
            }
            let name = String(after[after.index(after.startIndex, offsetBy: kind.count + 1)..<close])
            guard let value = replacement(kind: kind, name: name, for: target, flags: flags) else {
                throw UnknownName(markup: "{\(kind):\(name)}")
            }
            out += value
            rest = after[after.index(after: close)...]
        }
        return out + rest
    }

    /// As `resolve`, leaving unknown markup as written (never at run time: a test resolves all prose).
    static func render(_ text: String, for target: Target = .plain, flags: Set<String>) -> String {
        guard text.contains("{") else { return text }
        if let resolved = try? resolve(text, for: target, flags: flags) { return resolved }
        return text
    }

    /// Every markup in `text`, as written (`{flag:--remote}`).
    static func markups(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            if kinds.contains(where: { after.hasPrefix($0 + ":") }), let close = after.firstIndex(of: "}") {
                found.append("{" + after[..<close] + "}")
                rest = after[after.index(after: close)...]
            } else {
                rest = after
            }
        }
        return found
    }

    static func replacement(kind: String, name: String, for target: Target, flags: Set<String>) -> String? {
        switch kind {
        case "flag":
            let option = String(name.prefix { $0 != " " })
            guard flags.contains(option) else { return nil }
            return target == .markdown ? "`\(name)`" : name
        default:
            return ExitCode.named(name).map { String($0.rawValue) }
        }
    }
}
