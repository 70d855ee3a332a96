// Prose that names an option or an exit status does it through {flag:…} and {exit:…} markup,
// resolved where the text is rendered: an unknown name fails, every prose of the code resolves,
// no rendered text keeps markup, and provider prose holds no literal exit number or flag.

import XCTest
import SubsSource
import SubsProviders
@testable import SubsCLI

final class ProseMarkupTests: XCTestCase {
    /// `text` resolved against subs's command line: every option it names must be one subs has.
    func resolve(_ text: String, for target: ProseMarkup.Target = .plain) throws -> String {
        try ProseMarkup.resolve(text, for: target, flags: CommandLineSpec.subs.flagNames)
    }

    /// Every text of the code that carries markup.
    var allProse: [(where: String, text: String)] {
        var out: [(String, String)] = []
        for provider in ProviderDescriptor.registered {
            out.append(("\(provider.name) manual", provider.manual))
            for api in provider.apis {
                out.append(("\(api.title) selectedWith", api.selectedWith))
                guard let source = try? provider.describedSource(api) else { continue }
                for operation in SourceOperation.allCases {
                    out.append(("\(api.title) whyNotOffered(\(operation))", source.whyNotOffered(operation.capability)))
                }
            }
        }
        for row in ExitCode.meanings {
            out.append(("exit \(row.code.rawValue) summary", row.summary))
            out.append(("exit \(row.code.rawValue) meaning", row.meaning))
        }
        for command in CommandLineSpec.subs.commands.map(\.name) {
            for (code, text) in CommandLineSpec.subs.command(command).exitStatuses.all { out.append(("exit-help \(command.rawValue) \(code.rawValue)", text)) }
        }
        for spec in CommandLineSpec.subs.commands {
            out.append(("\(spec.name.rawValue) abstract", spec.abstract))
            if let discussion = spec.discussion { out.append(("\(spec.name.rawValue) discussion", discussion)) }
            for argument in spec.arguments { out.append(("\(spec.name.rawValue) \(argument.name)", argument.help)) }
            for example in spec.examples { out.append(("\(spec.name.rawValue) example", example.explanation)) }
        }
        for option in CommandLineSpec.subs.globalOptions + CommandLineSpec.subs.commands.flatMap(\.options) {
            out.append((option.longName, option.help))
        }
        for variable in EnvironmentSpec.documented(in: .subs) { out.append((variable.name, variable.help)) }
        for text in ManProse.description + ManProse.output + ManProse.providers + [ManProse.providersIntro, ManProse.stateIntro, ManProse.exitIntro] {
            out.append(("man", text))
        }
        for (name, text) in ManProse.documents + ManProse.files + ManProse.fields + ManProse.examples.map({ ($0.0, $0.1) }) {
            out.append(("man \(name)", text))
        }
        return out
    }

    func testMarkupResolves() throws {
        XCTAssertEqual(try resolve("use {flag:--remote} URL, exit status {exit:not-offered}"),
                       "use --remote URL, exit status 64")
        XCTAssertEqual(try resolve("{flag:-q} and {flag:--iaphub-platform}: {exit:broken-pipe}", for: .markdown),
                       "`-q` and `--iaphub-platform`: 141")
        XCTAssertEqual(try resolve("{flag:--remote https://api.qonversion.io/v4}", for: .markdown),
                       "`--remote https://api.qonversion.io/v4`")
        XCTAssertThrowsError(try resolve("{flag:--remot URL}"), "the option of an option with its value is checked")
        XCTAssertEqual(try resolve("GET {remote}/user/{id}, {not:markup} and a lone {"), "GET {remote}/user/{id}, {not:markup} and a lone {")
    }

    func testAnUnknownNameFails() {
        XCTAssertThrowsError(try resolve("use {flag:--remot}")) {
            XCTAssertEqual($0 as? ProseMarkup.UnknownName, ProseMarkup.UnknownName(markup: "{flag:--remot}"))
        }
        XCTAssertThrowsError(try resolve("exit status {exit:unreachable}"))
        XCTAssertThrowsError(try resolve("{flag:remote}"), "a flag is named with its dashes")
        XCTAssertEqual(ProseMarkup.render("use {flag:--remot}", flags: CommandLineSpec.subs.flagNames), "use {flag:--remot}", "render leaves it for the tests to find")
    }

    func testEveryProseOfTheCodeResolves() {
        for (place, text) in allProse {
            XCTAssertNoThrow(try resolve(text), place)
        }
    }

    func testNoRenderedTextKeepsMarkup() throws {
        var rendered = [("man/subs.1", ManPage.render()), ("help", HelpRenderer(.subs).help(for: nil, columns: 80))]
        for command in CommandLineSpec.subs.commands.map(\.name) where command != .complete {
            rendered.append(("help \(command.rawValue)", HelpRenderer(.subs).help(for: command, columns: 80)))
        }
        for shell in ["bash", "zsh", "fish"] {
            rendered.append((shell, runCLI(["completion", shell]).stdout))
        }
        rendered.append(("commands --json", runCLI(["commands", "--json"]).stdout))
        for (file, name) in [("README.md", "providers"), ("README.md", "exit-statuses"),
                             ("docs/reference.md", "exit-statuses"), ("docs/providers.md", "capabilities")] {
            rendered.append((file, try XCTUnwrap(GeneratedDocs.region(name, of: file))))
        }
        for (name, text) in rendered {
            XCTAssertFalse(text.contains("{flag:") || text.contains("{exit:"), "\(name) keeps markup")
        }
    }

    /// Provider prose (the man paragraphs, the not-offered sentences, how an API is selected) and
    /// the exit status texts name statuses and options only through markup.
    func testProviderProseHoldsNoLiteralExitNumberOrFlag() {
        for (place, text) in allProse {
            XCTAssertEqual(GeneratedDocs.literalExits(text), [], "\(place): use {exit:NAME}")
        }
        let provider = allProse.filter { $0.where.contains("manual") || $0.where.contains("whyNotOffered")
            || $0.where.contains("selectedWith") || $0.where.hasPrefix("exit") }
        XCTAssertGreaterThan(provider.count, 40)
        for (place, text) in provider {
            let bare = text.replacingOccurrences(of: "{flag:--", with: "{flag:")
            XCTAssertFalse(bare.contains(" --") || bare.contains("(--"), "\(place): name options as {flag:--NAME}: \(text)")
        }
    }

    func testANotOfferedMessageIsRenderedAtRunTime() {
        let failure = Commands.describe(NotOffered("use {flag:--remote} https://api.revenuecat.com/v1"))
        XCTAssertEqual(failure.0, .usage)
        XCTAssertEqual(failure.1, "use --remote https://api.revenuecat.com/v1")
    }
}
