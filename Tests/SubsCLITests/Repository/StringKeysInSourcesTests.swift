// SPEC section 7, "Ids are bytes": every place an id is a key is an `ID` (compared by bytes);
// Swift's `Set<String>` and `[String: …]` compare by canonical equivalence, so each one left in
// Sources/ is listed here with why it holds no id. A new one fails this test until it is an ID
// (or bytes) or, holding no id, is added below with its reason. An entry no longer found fails
// too, so that the list stays the truth. (IDTests holds the other half: the model's ids typed.)

import XCTest
import TestSupport

final class StringKeysInSourcesTests: XCTestCase {
    /// (file under Sources/, the declaration as written, why its keys are never ids).
    static let allowed: [(file: String, declaration: String, reason: String)] = [
        ("SubsCLI/CommandLine/Context.swift", "environment: [String: String]", "environment variables by name"),
        ("SubsCLI/ProcessContext.swift", "environmentWithHome(_ environment: [String: String]) -> [String: String]",
         "environment variables by name"),
        ("SubsCLI/CommandLine/GlobalOptionsResolver.swift", "flags: [String: OptionValue], environment: [String: String]",
         "option names of the command line, and environment variables"),
        ("SubsCLI/CommandLine/CommandLineParser.swift", "environment: [String: String]", "environment variables by name"),
        ("SubsCLI/CommandLine/CommandLineParser.swift", "var globalFlags: [String: OptionValue]", "option names"),
        ("SubsCLI/CommandLine/CommandLineParser.swift", "var options: [String: [OptionValue]]", "option names"),
        ("SubsCLI/CommandLine/Invocation.swift", "providerSettings: [String: String]", "provider setting names"),
        ("SubsCLI/CommandLine/Invocation.swift", "options: [String: [OptionValue]]", "option names"),
        ("SubsCLI/CommandLine/ConfigFile.swift", "var entries: [String: Entry]", "config file keys"),
        ("SubsCLI/CommandLine/ConfigFile.swift", "environment: [String: String]", "environment variables by name"),
        ("SubsCLI/CommandLine/EnvironmentSpec.swift", "environment: [String: String]", "environment variables by name"),
        ("SubsCLI/CommandLine/ValueCheck.swift", "environment: [String: String]", "environment variables by name"),
        ("SubsCLI/Paging.swift", "environment: [String: String]", "environment variables by name (the pager's)"),
        ("SubsSystem/PagerProcess.swift", "environment: [String: String]", "environment variables by name (the pager's)"),
        ("SubsCLI/Completion/CompletionModel.swift", "var seen: Set<String>", "long option names of the command table"),
        ("SubsCLI/CommandLine/CommandLineSpec.swift", "public var flagNames: Set<String>", "option names the docs' markup may name"),
        ("SubsCLI/CommandLine/CommandLineSpec.swift", "var names: Set<String>", "the same option names being gathered"),
        ("SubsCLI/Terminal/ProseMarkup.swift", "flags: Set<String>", "the same option names, as markup is checked against them"),
        ("SubsCLI/Docs/ProviderMatrix.swift", "static let docs: [String: (label: String, path: String)]",
         "names of the providers' APIs (fixed words), each with its docs page"),
        ("SubsRemote/CurlExchange.swift", "var index: [String: Int]", "HTTP header names, lowercased"),
        ("SubsServer/RequestBody.swift", "synonyms: [String: [String]]", "field names of a request body other APIs use"),
        ("SubsServer/RequestBody.swift", "var table: [String: [String]]", "the same synonyms being built"),
        ("SubsProviders/Subs/SubsAPIError.swift", "notFoundCodes: Set<String>", "error codes of the subs REST API (ASCII words)"),
        ("SubsProviders/Subs/SubsAPIError.swift", "serverCodes: Set<String>", "error codes of the subs REST API (ASCII words)"),
        ("SubsProviders/RevenueCat/RevenueCatV2Source.swift", "var seen: Set<String>",
         "pagination cursors RevenueCat hands back (opaque tokens, not ids: a repeat only ends the listing)"),
        ("SubsProviders/Qonversion/QonversionV4Source.swift", "var cursors: Set<String>",
         "pagination cursors Qonversion hands back (opaque tokens, not ids: a repeat only ends the listing)"),
        ("SubsProviders/Common/ProviderDescriptor.swift", "settings: [String: String]", "provider setting names"),
        ("SubsSystem/LibCurl.swift", "var loaded: [[String]: LibCurl]", "library file names tried for libcurl"),
        ("SubsSystem/LibCurl.swift", "var initialised: Set<String>", "library file names of libcurl"),
        ("SubsHTTP/HTTPResponse.swift", "let engineOwned: Set<String>", "HTTP header names the engine writes"),
    ]

    /// A String (or Substring) key: `Set<String>`, `[String: …]`, `Dictionary<String, …>`,
    /// `[[String]: …]`, and the same with Substring.
    static let pattern = try! NSRegularExpression(
        pattern: #"Set<(String|Substring)>|\[\[?(String|Substring)\]? *:|Dictionary<(String|Substring) *,"#)

    func testEveryStringKeyedSetOrDictionaryInSourcesIsListedWithItsReason() throws {
        let sources = Repo.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertGreaterThan(files.count, 100, "Sources/ not found at \(sources.path)")
        var used = Set<Int>()
        var unlisted: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                let range = NSRange(code.startIndex..., in: code)
                guard Self.pattern.firstMatch(in: code, range: range) != nil else { continue }
                let matches = Self.allowed.indices.filter { Self.allowed[$0].file == file && code.contains(Self.allowed[$0].declaration) }
                if matches.isEmpty {
                    unlisted.append("Sources/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
                used.formUnion(matches)
            }
        }
        XCTAssertEqual(unlisted, [], """
            String-keyed sets or dictionaries compare keys by Unicode canonical equivalence (NFC and NFD café \
            are one key). Key ids by ID (SubsModel/Model/ID.swift) or by their bytes; a key that is never an id \
            goes in StringKeysInSourcesTests.allowed with its reason.
            """)
        let stale = Self.allowed.indices.filter { !used.contains($0) }.map { "\(Self.allowed[$0].file): \(Self.allowed[$0].declaration)" }
        XCTAssertEqual(stale, [], "listed but no longer in Sources/: take these out of StringKeysInSourcesTests.allowed")
    }

    func testThePatternFindsEveryShapeOfStringKey() {
        for line in ["var a: Set<String> = []", "let b: [String: Int]", "x: [String : [ID]]", "Dictionary<String, Int>()",
                     "var c: [[String]: LibCurl]", "Set<Substring>", "[Substring: Int]"] {
            XCTAssertNotNil(Self.pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
        for line in ["var a: Set<ID> = []", "let b: [ID: Int]", "let c: [String]", "func f(_ s: [String]) -> [String]"] {
            XCTAssertNil(Self.pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
    }
}
