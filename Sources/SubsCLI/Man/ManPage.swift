// man/subs.1 in mdoc: commands and options from CommandLineSpec, the rest from ManProse.
// `ManPage.render()` is compared with the committed file by a test (SUBS_RECORD=1 re-records).

import SubsModel

public enum ManPage {
    public static func render() -> String {
        var m = """
            .\\" Generated from Sources/SubsCLI (CommandLineSpec, ManProse, ExitCode.meanings, ProviderMatrix); do not edit.
            .Dd \(ManProse.date)
            .Dt SUBS 1
            .Os
            .Sh NAME
            .Nm subs
            .Nd \(CommandLineSpec.subs.abstract.lowercasedFirst)
            .Sh SYNOPSIS
            .Nm
            .Op Ar options
            .Ar command
            .Op Ar args

            """
        for spec in CommandLineSpec.subs.visibleCommands {
            m += ".Nm\n.Cm \(spec.name.rawValue)\n.Op Ar options\n"
            for group in spec.exactlyOneOf {
                let choices = group.compactMap(spec.option(named:)).map { "Fl -\($0.long)" + ($0.isFlag ? "" : " Ar \($0.valueName)") }
                m += ".Brq " + choices.joined(separator: " | ") + "\n"
            }
            for argument in spec.arguments {
                switch argument.arity {
                case .one: m += ".Ar \(argument.name)\n"
                case .optional: m += ".Op Ar \(argument.name)\n"
                case .oneOrMore: m += ".Ar \(argument.name) ...\n"
                }
            }
        }
        m += ".Sh DESCRIPTION\n" + paragraphs(ManProse.description)
        m += ".Sh PROVIDERS\n" + paragraphs([ManProse.providersIntro] + ManProse.providers)
        m += tagList(ProviderMatrix.manItems)

        m += ".Sh COMMANDS\n.Bl -tag -width Ds\n"
        for spec in CommandLineSpec.subs.visibleCommands {
            m += ".It Cm \(spec.name.rawValue)" + spec.arguments.map { " " + argumentMacro($0) }.joined() + "\n"
            m += text(sentence(spec.abstract))
            if let discussion = spec.discussion { m += text(discussion) }
            if !spec.arguments.isEmpty {
                m += ".Bl -tag -width Ds\n"
                for argument in spec.arguments { m += ".It Ar \(argument.name)\n" + text(sentence(argument.fullHelp)) }
                m += ".El\n"
            }
            if !spec.options.isEmpty {
                m += ".Pp\n" + text("Options: " + spec.options.map(\.longName).joined(separator: ", ") + ", described under OPTIONS.")
            }
        }
        m += ".El\n"

        m += ".Sh OPTIONS\n.Ss Global options\n"
        m += text("These options are valid before and after any command name.")
        m += optionList(CommandLineSpec.subs.globalOptions)
        for spec in CommandLineSpec.subs.visibleCommands where !spec.options.isEmpty {
            m += ".Ss Options of \(spec.name.rawValue)\n"
            for group in spec.exactlyOneOf {
                m += text("Exactly one of " + group.map { "--" + $0 }.joined(separator: ", ") + " is required.")
            }
            m += optionList(spec.options)
        }

        m += ".Sh ENTITLEMENT STATES AND FIELDS\n" + text(ManProse.stateIntro)
        m += tagList(EntitlementState.allCases.map { ("Li " + $0.rawValue, ManProse.state($0)) })
        m += ".Pp\n" + text("An entitlement's JSON object holds these fields:")
        m += tagList(ManProse.fields.map { ("Li " + $0.0, $0.1) })

        m += ".Sh OUTPUT\n" + paragraphs(ManProse.output)
        m += ".Pp\n" + text("The documents of --format json hold these keys:")
        m += tagList(ManProse.documents.map { ("Cm " + $0.0.replacingAll(",", with: " ,"), $0.1) })

        m += ".Sh ENVIRONMENT\n" + tagList(EnvironmentSpec.documented(in: .subs).map { ("Ev " + $0.name, $0.help) })
        m += ".Sh FILES\n" + tagList(ManProse.files.map { ("Pa " + $0.0, $0.1) })
        m += ".Sh EXIT STATUS\n" + text(ManProse.exitIntro)
        m += tagList(ExitCode.meanings.map { ("\($0.code.rawValue)", $0.meaning) })

        m += ".Sh EXAMPLES\n"
        for (index, (command, explanation)) in ManProse.examples.enumerated() {
            m += (index == 0 ? "" : ".Pp\n") + text(explanation) + ".Bd -literal -offset indent\n" + literal(command) + ".Ed\n"
        }
        m += ".Sh SEE ALSO\n.Xr jq 1 ,\n.Xr subs-store 5\n"
        return m
    }

    static func argumentMacro(_ argument: ArgumentSpec) -> String {
        switch argument.arity {
        case .one: return "Ar \(argument.name)"
        case .optional: return "Op Ar \(argument.name)"
        case .oneOrMore: return "Ar \(argument.name) ..."
        }
    }

    static func optionList(_ options: [OptionSpec]) -> String {
        var m = ".Bl -tag -width Ds\n"
        for option in options where !option.hidden {
            var head = option.short.map { "Fl \($0) , " } ?? ""
            head += "Fl -\(option.long)"
            if !option.isFlag { head += " Ar \(option.valueName)" }
            m += ".It \(head)\n" + text(sentence(option.help))
            if let choices = option.kind?.choices { m += text("One of " + choices.joined(separator: ", ") + ".") }
            if let value = option.defaultValue { m += text("Default: \(value).") }
            if let variable = option.environment { m += text("Environment: \(variable).") }
            if option.repeatable { m += text("May be given more than once.") }
        }
        return m + ".El\n"
    }

    static func tagList(_ items: [(head: String, body: String)]) -> String {
        ".Bl -tag -width Ds\n" + items.map { ".It \($0.head)\n" + text($0.body) }.joined() + ".El\n"
    }

    static func paragraphs(_ texts: [String]) -> String {
        texts.map(text).joined(separator: ".Pp\n")
    }

    /// Text lines: each sentence starts a line (mdoc's rule); long ones continue on further
    /// lines of at most 80 bytes, as mandoc's lint asks.
    static func text(_ prose: String) -> String {
        sentences(ProseMarkup.render(prose, flags: CommandLineSpec.subs.flagNames)).flatMap { wrapped($0, width: 80) }.map { escapeLine($0) + "\n" }.joined()
    }

    static func wrapped(_ sentence: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in sentence.split(separator: " ") {
            if !line.isEmpty && lintLength(line) + 1 + lintLength(word) > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// A line's length as mandoc's lint counts it: a character outside ASCII as its escape (\[u2026]).
    static func lintLength<S: StringProtocol>(_ text: S) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.isASCII ? 1 : 8) }
    }

    /// Literal lines keep their spacing; only roff's escapes and control characters need care.
    static func literal(_ code: String) -> String {
        code.split(separator: "\n", omittingEmptySubsequences: false).map { escapeLine(String($0)) + "\n" }.joined()
    }

    static func escapeLine(_ line: String) -> String {
        var escaped = line.replacingAll("\\", with: "\\e")
        // A lone "--" is the end-of-options argument, not a dash: two minus signs.
        escaped = escaped.split(separator: " ", omittingEmptySubsequences: false)
            .map { $0 == "--" ? "\\-\\-" : String($0) }.joined(separator: " ")
        if let first = escaped.first, first == "." || first == "'" { return "\\&" + escaped }
        return escaped
    }

    /// Splits after '.', '?' or '!' followed by a blank.
    static func sentences(_ prose: String) -> [String] {
        var out: [String] = []
        var current = ""
        var previous: Character = " "
        for c in prose {
            if c == " " && ".?!".contains(previous) {
                out.append(current)
                current = ""
            } else if !(c == " " && current.isEmpty) {
                current.append(c)
            }
            previous = c
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    static func sentence(_ text: String) -> String { HelpLayout.sentence(text) }
}

extension String {
    var lowercasedFirst: String {
        guard let first else { return self }
        return first.lowercased() + dropFirst()
    }
}
