// Fuzz/harnesses is the one table scripts/fuzz builds and seeds from: a row for every harness of
// Fuzz/ and a harness for every row, the modules a row names are the ones its harness imports
// (targets of Package.swift), its seeds are folders of Tests/Fixtures, and no seed kept under
// Fuzz/ is a byte copy of a fixture (the fixtures seed the corpus where they are).

import Foundation
import XCTest

final class FuzzTableTests: XCTestCase {
    struct Row: Equatable {
        var harness: String
        /// The module whose sources the harness is compiled with; nil: a module of its own.
        var into: String?
        var modules: [String]
        var seeds: [String]
    }

    struct Malformed: Error, CustomStringConvertible {
        var line: String
        var description: String { "Fuzz/harnesses: a row is four fields: \(line)" }
    }

    static func rows() throws -> [Row] {
        let table = try String(contentsOfFile: Repo.path("Fuzz/harnesses"), encoding: .utf8)
        return try table.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.allSatisfy(\.isWhitespace) }.map { line in
            let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard fields.count == 4 else { throw Malformed(line: String(line)) }
            func list(_ field: String) -> [String] { field == "-" ? [] : field.split(separator: ",").map(String.init) }
            return Row(harness: fields[0], into: fields[1] == "-" ? nil : fields[1], modules: list(fields[2]), seeds: list(fields[3]))
        }
    }

    func testEveryHarnessHasOneRowAndEveryRowAHarness() throws {
        let rows = try Self.rows()
        XCTAssertGreaterThanOrEqual(rows.count, 11)
        let names = rows.map(\.harness)
        XCTAssertEqual(names.count, Set(names).count, "a harness listed twice")
        let fuzz = Repo.path("Fuzz")
        let folders = try FileManager.default.contentsOfDirectory(atPath: fuzz).filter { name in
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: fuzz + "/" + name, isDirectory: &folder) && folder.boolValue
                && !["corpus", "crashes", "findings"].contains(name)
        }
        XCTAssertEqual(Set(folders), Set(names), "Fuzz/ and Fuzz/harnesses list other harnesses")
        for name in names {
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(fuzz)/\(name).dict"), "Fuzz/\(name).dict missing")
        }
    }

    func testEachRowNamesTheModulesItsHarnessImports() throws {
        let targets = try LayerTests.manifestTargets()
        let imports = try NSRegularExpression(pattern: #"^(?:@testable )?import (\w+)"#, options: [.anchorsMatchLines])
        for row in try Self.rows() {
            let folder = Repo.path("Fuzz/" + row.harness)
            var imported: Set<String> = []
            for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                for match in imports.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let module = String(text[Range(match.range(at: 1), in: text)!])
                    if targets[module] != nil { imported.insert(module) }
                }
            }
            XCTAssertFalse(imported.isEmpty && row.into == nil, "\(row.harness) imports nothing of the package")
            XCTAssertEqual(Set(row.modules), imported, "Fuzz/harnesses: \(row.harness)'s modules are not what it imports")
            for module in row.modules + (row.into.map { [$0] } ?? []) {
                XCTAssertNotNil(targets[module], "\(row.harness): \(module) is no target of Package.swift")
            }
            if let into = row.into {
                XCTAssertFalse(imported.contains(into), "\(row.harness) is compiled into \(into): it cannot import it")
            }
        }
    }

    func testSeedsAreFixtureFoldersAndNoSeedUnderFuzzIsAFixture() throws {
        let fixtures = Repo.path("Tests/Fixtures")
        for row in try Self.rows() {
            for seed in row.seeds {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: fixtures + "/" + seed)) ?? []
                XCTAssertFalse(files.isEmpty, "\(row.harness): Tests/Fixtures/\(seed) holds no file")
            }
        }
        var fixtureFiles: [Data: String] = [:]
        for file in try XCTUnwrap(FileManager.default.enumerator(atPath: fixtures)).compactMap({ $0 as? String }) {
            var folder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: fixtures + "/" + file, isDirectory: &folder), !folder.boolValue else { continue }
            fixtureFiles[try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + file))] = file
        }
        XCTAssertGreaterThan(fixtureFiles.count, 50)
        var seen = 0
        for kept in ["Fuzz/corpus", "Fuzz/crashes"] {
            let root = Repo.path(kept)
            for file in try XCTUnwrap(FileManager.default.enumerator(atPath: root)).compactMap({ $0 as? String }) {
                var folder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root + "/" + file, isDirectory: &folder), !folder.boolValue else { continue }
                seen += 1
                if let fixture = fixtureFiles[try Data(contentsOf: URL(fileURLWithPath: root + "/" + file))] {
                    XCTFail("\(kept)/\(file) is a copy of Tests/Fixtures/\(fixture): seed from the fixture folder in Fuzz/harnesses instead")
                }
            }
        }
        XCTAssertGreaterThan(seen, 50, "Fuzz/corpus not read")
    }
}
