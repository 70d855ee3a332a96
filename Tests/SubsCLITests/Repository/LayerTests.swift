// The layers of CONTRIBUTING.md ("Layers") hold. The compiler refuses an import a target does not
// declare; these refuse what it does not see: a dependency in Package.swift against the layers,
// a target grown past 35 % of Sources' Swift lines (subs-bench aside), a folder of a target that
// uses a folder which uses it back, and a test folder of more than 30 files.

import Foundation
import XCTest

final class LayerTests: XCTestCase {
    /// The layers, bottom first. A target depends only on targets of lower layers; the targets of
    /// one layer stand apart. (CSubsSystem is SubsSystem's C half; the executables sit on top.)
    static let layers: [[String]] = [
        ["CSubsSystem"],
        ["SubsJSON", "SubsSystem", "SubsHTTP"],
        ["SubsModel"],
        ["SubsStore", "SubsRemote"],
        ["SubsSource"],
        ["SubsProviders", "SubsServer"],
        ["SubsCLI"],
        ["subs", "subs-bench"],
    ]

    /// The most of Sources' Swift lines one target may hold.
    static let largestShare = 0.35
    /// The most files one test folder may hold directly (more: group them by what they test).
    static let filesPerTestFolder = 30

    // MARK: the manifest

    /// Each target of Package.swift that is not a test target, with the targets it depends on.
    static func manifestTargets() throws -> [String: [String]] {
        let manifest = try String(contentsOfFile: Repo.path("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget)\(name: "([^"]+)"(?:, dependencies: \[([^\]]*)\])?"#)
        var targets: [String: [String]] = [:]
        for match in pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            let list = Range(match.range(at: 2), in: manifest).map { String(manifest[$0]) } ?? ""
            let dependencies = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            targets[name] = dependencies
        }
        targets["TestSupport"] = nil
        return targets
    }

    func testEveryTargetDependsOnlyOnLowerLayers() throws {
        let targets = try Self.manifestTargets()
        XCTAssertGreaterThan(targets.count, 10, "Package.swift's targets not read")
        let layerOf = Dictionary(uniqueKeysWithValues: Self.layers.enumerated().flatMap { index, names in names.map { ($0, index) } })
        XCTAssertEqual(Set(targets.keys), Set(layerOf.keys), "a target of Package.swift missing from LayerTests.layers, or gone")
        for (target, dependencies) in targets.sorted(by: { $0.key < $1.key }) {
            guard let layer = layerOf[target] else { continue }
            for dependency in dependencies {
                guard let below = layerOf[dependency] else { XCTFail("\(target) depends on \(dependency), no layer"); continue }
                XCTAssertLessThan(below, layer, "\(target) depends on \(dependency), which is not in a layer below it")
            }
        }
    }

    // MARK: sizes

    /// Swift lines of each folder of Sources/.
    static func swiftLines() throws -> [String: Int] {
        var lines: [String: Int] = [:]
        for target in try FileManager.default.contentsOfDirectory(atPath: Repo.path("Sources")) {
            for file in try swiftFiles(in: Repo.path("Sources/" + target)) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.path("Sources/\(target)/\(file)")))
                lines[target, default: 0] += bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            }
        }
        return lines
    }

    func testNoTargetHoldsMoreThanItsShareOfSources() throws {
        var lines = try Self.swiftLines()
        lines["subs-bench"] = nil
        let total = lines.values.reduce(0, +)
        XCTAssertGreaterThan(total, 10_000, "Sources/ not read")
        let shares = lines.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value) (\(Int((Double($0.value) / Double(total) * 100).rounded())) %)" }
        for (target, count) in lines {
            XCTAssertLessThanOrEqual(Double(count) / Double(total), Self.largestShare,
                                     "\(target) holds more than \(Int(Self.largestShare * 100)) % of Sources' \(total) Swift lines: \(shares)")
        }
    }

    // MARK: folders

    func testNoFolderOfATargetUsesAFolderThatUsesItBack() throws {
        for target in try FileManager.default.contentsOfDirectory(atPath: Repo.path("Sources")).sorted() {
            let graph = try FolderGraph(target: Repo.path("Sources/" + target))
            for group in graph.cycles() {
                let uses = group.flatMap { from in
                    group.compactMap { to in graph.edges[from]?[to].map { "\(from) → \(to) (\($0.sorted().prefix(4).joined(separator: ", ")))" } }
                }
                XCTFail("Sources/\(target): the folders \(group.map { $0.isEmpty ? "(root)" : $0 }) use each other: \(uses)")
            }
        }
    }

    func testTheFolderGraphSeesAUseAndACycle() throws {
        let dir = TempDir()
        try FileManager.default.createDirectory(atPath: dir.path + "/A", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.path + "/B", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.path + "/C", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.path + "/D", withIntermediateDirectories: true)
        dir.write("A/One.swift", "public struct One { var two: Two? }\n// Three in a comment\n")
        dir.write("B/Two.swift", "struct Two { let s = \"Three in a string\"; func f() { _ = One() } }\n")
        dir.write("B/Four.swift", #"let four = "Three: \(Five.self)""# + "\n")
        dir.write("D/Five.swift", "enum Five {}\n")
        dir.write("C/Three.swift", "enum Three { static let x = Two() }\nprivate struct Hidden {}\n")
        let graph = try FolderGraph(target: dir.path)
        XCTAssertEqual(graph.edges["A"]?["B"], ["Two"])
        XCTAssertEqual(graph.edges["C"]?["B"], ["Two"])
        XCTAssertNil(graph.edges["B"]?["C"], "a name in a comment or a string is no use")
        XCTAssertEqual(graph.edges["B"]?["D"], ["Five"], "a name in an interpolation is a use")
        XCTAssertEqual(graph.cycles(), [["A", "B"]])
        dir.write("B/Two.swift", "struct Two {}\n")
        XCTAssertEqual(try FolderGraph(target: dir.path).cycles(), [])
    }

    func testNoTestFolderHoldsTooManyFiles() throws {
        let tests = Repo.path("Tests")
        let folders = try XCTUnwrap(FileManager.default.enumerator(atPath: tests)).compactMap { $0 as? String }
            .filter { !$0.hasPrefix("Fixtures") }
            .filter { var folder: ObjCBool = false; return FileManager.default.fileExists(atPath: tests + "/" + $0, isDirectory: &folder) && folder.boolValue }
        XCTAssertGreaterThan(folders.count, 10)
        for folder in folders {
            let files = try FileManager.default.contentsOfDirectory(atPath: tests + "/" + folder).filter {
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: "\(tests)/\(folder)/\($0)", isDirectory: &isFolder) && !isFolder.boolValue
            }
            XCTAssertLessThanOrEqual(files.count, Self.filesPerTestFolder, "Tests/\(folder) holds \(files.count) files: group them by what they test")
        }
    }
}

/// The .swift files below `folder`, as paths relative to it.
private func swiftFiles(in folder: String) throws -> [String] {
    guard let walk = FileManager.default.enumerator(atPath: folder) else { return [] }
    return walk.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
}

/// Which folder of one target uses which: a file uses a folder when it names a type, protocol,
/// alias or top-level function declared there (and not in its own folder). Members of
/// extensions are not followed: the types carry the layering.
struct FolderGraph {
    /// folder → folder it uses → the names that make the use ("" is the target's root).
    var edges: [String: [String: Set<String>]] = [:]
    var folders: Set<String> = []

    private static let declaration = try! NSRegularExpression(
        pattern: #"^(?:@\w+(?:\([^)]*\))?\s+)*((?:(?:public|package|internal|private|fileprivate|final|indirect|open|nonisolated)\s+)*)(?:struct|enum|class|protocol|typealias|actor|func)\s+([A-Za-z_]\w*)"#,
        options: [.anchorsMatchLines])
    private static let identifier = try! NSRegularExpression(pattern: #"\b[A-Za-z_][A-Za-z0-9_]*\b"#)

    init(target: String) throws {
        var code: [(folder: String, text: String)] = []
        for file in try swiftFiles(in: target) {
            let text = try String(contentsOfFile: target + "/" + file, encoding: .utf8)
            let folder = (file as NSString).deletingLastPathComponent
            code.append((folder, Self.codeOnly(text)))
            folders.insert(folder)
        }
        var declaredIn: [String: Set<String>] = [:]
        for (folder, text) in code {
            for match in Self.declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let modifiers = String(text[Range(match.range(at: 1), in: text)!])
                guard !modifiers.contains("private") else { continue }   // not seen outside its file
                declaredIn[String(text[Range(match.range(at: 2), in: text)!]), default: []].insert(folder)
            }
        }
        for (folder, text) in code {
            var names: Set<String> = []
            for match in Self.identifier.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range, in: text)!]))
            }
            for name in names {
                guard let places = declaredIn[name], !places.contains(folder) else { continue }
                for place in places { edges[folder, default: [:]][place, default: []].insert(name) }
            }
        }
    }

    /// The groups of folders that reach each other (strongly connected, two folders or more),
    /// each sorted, sorted.
    func cycles() -> [[String]] {
        func reach(_ start: String) -> Set<String> {
            var seen: Set<String> = []
            var stack = [start]
            while let folder = stack.popLast() {
                for next in (edges[folder] ?? [:]).keys where seen.insert(next).inserted { stack.append(next) }
            }
            return seen
        }
        let reachable = Dictionary(uniqueKeysWithValues: folders.map { ($0, reach($0)) })
        var groups: Set<[String]> = []
        for folder in folders {
            let group = folders.filter { $0 == folder || (reachable[folder]!.contains($0) && reachable[$0]!.contains(folder)) }
            if group.count > 1 { groups.insert(group.sorted()) }
        }
        return groups.sorted { $0.joined(separator: "/") < $1.joined(separator: "/") }
    }

    /// The text without comments and string literals (their words name nothing).
    static func codeOnly(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        func at(_ s: String) -> Bool { bytes[i...].starts(with: s.utf8) }
        while i < bytes.count {
            if at("//") {
                while i < bytes.count && bytes[i] != UInt8(ascii: "\n") { i += 1 }
            } else if at("/*") {
                var depth = 0
                repeat {
                    if at("/*") { depth += 1; i += 2 } else if at("*/") { depth -= 1; i += 2 } else { i += 1 }
                } while depth > 0 && i < bytes.count
            } else if bytes[i] == UInt8(ascii: "#") || bytes[i] == UInt8(ascii: "\"") {
                // A string literal: raw (#"…"#) or not, one line or several ("""…""").
                var hashes = 0
                while i + hashes < bytes.count && bytes[i + hashes] == UInt8(ascii: "#") { hashes += 1 }
                guard i + hashes < bytes.count, bytes[i + hashes] == UInt8(ascii: "\"") else {
                    out.append(bytes[i]); i += 1; continue
                }
                i += hashes
                let quote = at("\"\"\"") ? "\"\"\"" : "\""
                i += quote.utf8.count
                let close = Array(quote.utf8) + Array(repeating: UInt8(ascii: "#"), count: hashes)
                while i < bytes.count && !bytes[i...].starts(with: close) {
                    guard bytes[i] == UInt8(ascii: "\\") else { i += 1; continue }
                    var j = i + 1
                    while j < bytes.count && j - i - 1 < hashes && bytes[j] == UInt8(ascii: "#") { j += 1 }
                    guard j - i - 1 == hashes, j < bytes.count else { i += 1; continue }
                    guard bytes[j] == UInt8(ascii: "(") else { i = j + 1; continue }   // an escaped character
                    // An interpolation: the code in it counts.
                    var depth = 0
                    repeat {
                        if bytes[j] == UInt8(ascii: "(") { depth += 1 } else if bytes[j] == UInt8(ascii: ")") { depth -= 1 }
                        out.append(bytes[j]); j += 1
                    } while depth > 0 && j < bytes.count
                    out.append(UInt8(ascii: " "))
                    i = j
                }
                i += close.count
                out.append(contentsOf: "\"\"".utf8)
            } else {
                out.append(bytes[i]); i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
