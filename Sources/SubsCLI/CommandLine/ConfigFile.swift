// The config file: `key = value` lines whose keys are long option names, `#` comments.
// Which file is read, and what a broken one means (exit 78), is decided here.

#if canImport(Glibc)
import SubsSystem
import SubsModel
import Glibc
#endif

struct ConfigFile {
    struct Entry: Equatable {
        /// Checked and typed when the file was read.
        var value: OptionValue
        var line: Int
    }

    /// The global options GlobalOptionTable lets the file set, by long name.
    static let keys = GlobalOptionTable.entries.filter(\.inConfigFile).map(\.spec.long)

    var path: String
    /// Key → its last setting in the file.
    var entries: [String: Entry] = [:]

    /// Where the config file is: `--config` > `SUBS_CONFIG` > `$XDG_CONFIG_HOME/subs/config`
    /// (`~/.config/subs/config`). `explicit` is false for the default location, which may be missing.
    static func location(flag: String?, environment: [String: String]) -> (path: String, explicit: Bool)? {
        if let flag { return (flag, true) }
        if let variable = GlobalOptionTable.configFile.environment, let env = environment[variable], !env.isEmpty {
            return (ValueCheck.expandingTilde(env, environment: environment), true)
        }
        // The XDG spec says a relative XDG_CONFIG_HOME is to be ignored.
        if let xdg = EnvironmentSpec.xdgConfigHome.value(in: environment), xdg.hasPrefix("/") {
            return (xdg + "/subs/config", false)
        }
        if let home = EnvironmentSpec.home.value(in: environment) { return (home + "/.config/subs/config", false) }
        return nil
    }

    /// The largest config file read (a handful of lines is all it ever needs): a bigger one, or
    /// one that never ends (`--config /dev/zero`), is refused after reading this much.
    static let sizeLimit = 64 * 1024

    /// A config file that cannot be opened or read: exit 78 when it was named (`--config`,
    /// `SUBS_CONFIG`), a warning for the default one.
    struct Unreadable: Error {
        var message: String
    }

    /// Reads and checks the file; nil when the default file does not exist. The file decides
    /// where the API key goes (`remote`, `api-key-file`), so it must be the user's own or root's
    /// and writable by nobody else (`SecretFile`): else `SecretFileError` (exit 77), for the
    /// default file too.
    static func load(path: String, explicit: Bool, environment: [String: String]) throws -> ConfigFile? {
        let shownPath = Terminal.escape(path)
        let fd: Int32
        do {
            fd = try SecretFile.open(path, kind: .config)
        } catch {
            switch error.problem {
            case .unsafe: throw error
            case .missing where !explicit: return nil
            case .missing, .notAFile, .unreadable, .permissionDenied:
                throw Unreadable(message: "\(shownPath): cannot read config file: \(error.reason)")
            }
        }
        defer { close(fd) }
        guard let (bytes, tooLarge) = readAll(fd: fd, limit: sizeLimit) else {
            throw Unreadable(message: "\(shownPath): cannot read config file: \(errorText(errno))")
        }
        if tooLarge {
            throw ConfigError("\(shownPath): config file is too large (more than \(sizeLimit / 1024) KiB)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError("\(shownPath): config file is not UTF-8 text")
        }
        return try parse(text, path: path, environment: environment)
    }

    static func parse(_ text: String, path: String, environment: [String: String]) throws -> ConfigFile {
        var file = ConfigFile(path: path)
        let shownPath = Terminal.escape(path)
        // Lines end with LF or CRLF (split on scalars: as Characters, "\r\n" is one and would
        // not split on "\n"); a CR left at the end of a line is trimmed as whitespace.
        // A UTF-8 byte order mark (what some Windows editors put first) is not part of the first key.
        let scalars = text.unicodeScalars.first == "\u{FEFF}" ? Substring(text).unicodeScalars.dropFirst()
                                                               : Substring(text).unicodeScalars[...]
        for (index, rawLine) in scalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = "\(shownPath):\(index + 1)"
            let line = stripComment(String(String.UnicodeScalarView(rawLine))).trimmingBlanks()
            if line.isEmpty { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw ConfigError("\(place): expected 'key = value', got \(Terminal.quoted(line))")
            }
            let key = String(line[..<eq]).trimmingBlanks()
            var value = String(line[line.index(after: eq)...]).trimmingBlanks()
            guard keys.contains(key), let spec = GlobalOptionTable.entry(named: key)?.spec, let kind = spec.kind else {
                let hint = EditDistance.closest(to: key, among: keys).map { " (did you mean '\($0)'?)" } ?? ""
                throw ConfigError("\(place): unknown key \(Terminal.quoted(key))\(hint)")
            }
            if let q = value.first, q == "\"" || q == "'" {
                // A value that opens a quote is the text up to the same quote, and nothing but a
                // comment may follow: `"a` or `"a" b` is not silently a path with quotes in it.
                guard value.count >= 2, value.last == q else {
                    throw ConfigError("\(place): \(key): the quoted value \(Terminal.quoted(value)) does not end with its quote (\(q))")
                }
                value = String(value.dropFirst().dropLast())
            }
            if kind == .file { value = ValueCheck.expandingTilde(value, environment: environment) }
            do {
                // Config keys are never dates or durations, so "now" plays no part here.
                file.entries[key] = Entry(value: try ValueCheck.value(value, kind: kind, now: .init(seconds: 0)),
                                          line: index + 1)
            } catch let problem as ValueProblem {
                throw ConfigError("\(place): \(key): \(problem.reason)")
            }
        }
        return file
    }

    /// A `#` starts a comment at the start of a line or after a blank, so paths may hold `#`; a
    /// `#` inside a quoted value (a quote right after the `=`) is part of the value.
    static func stripComment(_ line: String) -> String {
        var previous: Character = " "
        var lastNonBlank: Character?
        var openQuote: Character?
        for index in line.indices {
            let c = line[index]
            if let q = openQuote {
                if c == q { openQuote = nil }
            } else if (c == "\"" || c == "'"), lastNonBlank == "=" {
                openQuote = c
            } else if c == "#", previous == " " || previous == "\t" {
                return String(line[..<index])
            }
            previous = c
            if c != " " && c != "\t" { lastNonBlank = c }
        }
        return line
    }
}

extension StringProtocol {
    /// Without leading and trailing blanks: spaces, tabs, and the CR of a CRLF line end (config
    /// lines and ids on standard input alike).
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
