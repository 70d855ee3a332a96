// The parts of README.md and docs/*.md that state facts of the code are generated, between
//   <!-- generated: NAME … -->  and  <!-- end generated: NAME -->
// lines, from the same tables as help and the man page (ProviderMatrix, ExitCode.meanings).
// An exit status named in their prose is written `[exit 64][exit:not-offered]`: a link to the
// exit status table whose label names the status, its number resolved from the name. Both are
// checked by GeneratedDocsTests, and `SUBS_RECORD=1 swift test --filter GeneratedDocsTests`
// rewrites them.

enum GeneratedDocs {
    struct Problem: Error, Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var message: String
        var description: String { "\(file):\(line): \(message)" }
    }

    /// The files that hold generated regions or exit status links, relative to the package root.
    static let files = ["README.md", "CONTRIBUTING.md", "docs/reference.md", "docs/providers.md",
                        "docs/decisions.md", "docs/performance.md"]

    /// The text of region `name` of `file`; nil: no such region.
    static func region(_ name: String, of file: String) -> String? {
        switch (file, name) {
        case ("README.md", "providers"): return ProviderMatrix.readmeTable
        case ("README.md", "exit-statuses"): return readmeExitStatuses
        case ("docs/reference.md", "exit-statuses"): return referenceExitStatuses
        case ("docs/providers.md", "capabilities"): return ProviderMatrix.capabilityLines
        case (_, "exit-links"): return nil
        default: return nil
        }
    }

    /// Where the exit status table is, from `file`.
    static func exitTable(from file: String) -> String {
        switch file {
        case "docs/reference.md": return "#exit-status"
        case _ where file.hasPrefix("docs/"): return "reference.md#exit-status"
        default: return "docs/reference.md#exit-status"
        }
    }

    /// The README's table: one line per status.
    static var readmeExitStatuses: String {
        var lines = ["| code | meaning |", "|---|---|"]
        for row in ExitCode.meanings {
            lines.append("| \(row.code.rawValue) | " + markdownCell(HelpLayout.sentence(row.summary)) + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// docs/reference.md's table: the full sentences.
    static var referenceExitStatuses: String {
        var lines = ["| code | meaning |", "|---|---|"]
        for row in ExitCode.meanings {
            lines.append("| \(row.code.rawValue) | " + markdownCell(row.meaning) + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func markdownCell(_ prose: String) -> String {
        ProseMarkup.render(prose, for: .markdown, flags: CommandLineSpec.subs.flagNames).replacingAll("|", with: "\\|")
    }

    static let linkPattern = "][exit:"

    /// `text` (the content of `file`) with every region regenerated, every exit status link's
    /// number resolved from its name, and the link definitions they need; throws the first problem.
    static func regenerate(_ text: String, file: String) throws -> String {
        var out: [String] = []
        var used: [String] = []
        var skipping: String?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, line) in lines.enumerated() {
            let number = index + 1
            if let name = skipping {
                guard line.hasPrefix("<!-- end generated: ") else { continue }
                guard line == "<!-- end generated: \(name) -->" else {
                    throw Problem(file: file, line: number, message: "region \(name) ends with \(line)")
                }
                skipping = nil
                out.append(line)
                continue
            }
            if let name = regionName(line) {
                out.append(line)
                // exit-links is filled in at the end, once the labels used are known.
                if name != "exit-links" {
                    guard let generated = region(name, of: file) else {
                        throw Problem(file: file, line: number, message: "no generator for region \(name)")
                    }
                    out.append(contentsOf: generated.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
                }
                skipping = name
                continue
            }
            // Code spans show the markup itself: only the text between them is resolved.
            let pieces = line.split(separator: "`", omittingEmptySubsequences: false).map(String.init)
            var resolved: [String] = []
            for (index, piece) in pieces.enumerated() {
                resolved.append(index % 2 == 0 ? try resolveLinks(piece, file: file, line: number, used: &used) : piece)
            }
            out.append(resolved.joined(separator: "`"))
        }
        if let name = skipping { throw Problem(file: file, line: lines.count, message: "region \(name) is not closed") }
        // The definitions of the labels used, in the exit-links region (added when missing).
        let definitions = used.sorted().map { "[exit:\($0)]: \(exitTable(from: file))" }
        if let start = out.firstIndex(where: { regionName($0) == "exit-links" }) {
            out.insert(contentsOf: definitions, at: start + 1)
            if definitions.isEmpty { out.removeSubrange(start...(start + 1)) }
        } else if !definitions.isEmpty {
            if out.last == "" { out.removeLast() }
            out += ["", header("exit-links")] + definitions + ["<!-- end generated: exit-links -->", ""]
        }
        return out.joined(separator: "\n")
    }

    static func header(_ name: String) -> String {
        "<!-- generated: \(name) (from the code: SUBS_RECORD=1 swift test --filter GeneratedDocsTests) -->"
    }

    static func regionName(_ line: String) -> String? {
        guard line.hasPrefix("<!-- generated: "), line.hasSuffix("-->") else { return nil }
        let rest = line.dropFirst("<!-- generated: ".count)
        return String(rest.prefix { $0 != " " })
    }

    /// `[exit 69][exit:not-offered]` → `[exit 64][exit:not-offered]`; an unknown name is a problem.
    static func resolveLinks(_ line: String, file: String, line number: Int, used: inout [String]) throws -> String {
        guard line.contains(linkPattern) else { return line }
        var out = ""
        var rest = Substring(line)
        while let range = rest.range(of: linkPattern) {
            // The link text: back to its '[', its last word a number.
            let before = rest[..<range.lowerBound]
            guard let open = before.lastIndex(of: "["),
                  let close = rest[range.upperBound...].firstIndex(of: "]") else {
                throw Problem(file: file, line: number, message: "a broken exit status link")
            }
            let label = String(rest[range.upperBound..<close])
            guard let code = ExitCode.named(label) else {
                throw Problem(file: file, line: number, message: "unknown exit status name '\(label)'")
            }
            var text = String(before[before.index(after: open)...])
            let digits = text.reversed().prefix { $0.isNumber }.count
            guard digits > 0 else {
                throw Problem(file: file, line: number, message: "the link text '\(text)' does not end with the status")
            }
            text = String(text.dropLast(digits)) + String(code.rawValue)
            out += before[..<open] + "[" + text + "][exit:" + label + "]"
            if !used.contains(label) { used.append(label) }
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// Exit statuses written as bare numbers where the markup should be ("is exit 69"), outside
    /// code, tables' generated regions and the link markup: each a problem.
    static func literalExitStatuses(in text: String, file: String) -> [Problem] {
        var problems: [Problem] = []
        var fenced = false
        var region: String?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if region != nil {
                if line.hasPrefix("<!-- end generated: ") { region = nil }
                continue
            }
            if let name = regionName(String(line)) { region = name; continue }
            if line.hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced else { continue }
            for word in literalExits(String(line)) {
                problems.append(Problem(file: file, line: index + 1,
                                        message: "'\(word)': name the status as [\(word)][exit:NAME]"))
            }
        }
        return problems
    }

    /// "exit 69", "exit status 3", "exits 77", outside code spans and `[…][exit:…]` links.
    static func literalExits(_ line: String) -> [String] {
        var found: [String] = []
        var inCode = false
        var inLink = false
        let characters = Array(line)
        var index = 0
        while index < characters.count {
            let c = characters[index]
            if c == "`" { inCode.toggle(); index += 1; continue }
            if !inCode && c == "[" { inLink = true }
            if !inCode && c == "]" { inLink = false }
            if !inCode && !inLink && (c == "e" || c == "E")
                && (index == 0 || !characters[index - 1].isLetter) {
                let rest = String(characters[index...])
                if let match = exitPhrase(rest) { found.append(match); index += match.count; continue }
            }
            index += 1
        }
        return found
    }

    /// The exit phrase `text` starts with, if any: "exit", "exits" or "exited", then "status" or
    /// "statuses" or "with" or "code" if any, then a number.
    static func exitPhrase(_ text: String) -> String? {
        let words = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard let first = words.first?.lowercased(), ["exit", "exits", "exited"].contains(first), words.count > 1 else { return nil }
        var taken = [words[0]]
        var next = 1
        if ["status", "statuses", "with", "code"].contains(words[next]), words.count > next + 1 {
            taken.append(words[next])
            next += 1
        }
        let number = words[next].prefix { $0.isNumber }
        guard !number.isEmpty else { return nil }
        let after = words[next].dropFirst(number.count).first
        if let after, after.isLetter || after.isNumber { return nil }
        return (taken + [String(number)]).joined(separator: " ")
    }
}
