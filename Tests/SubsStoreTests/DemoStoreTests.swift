// The embedded demo store (`subs store init --demo`) is examples/store.json as built in, and
// stays free of anything that would make the demo unsafe or unreadable in a terminal.

import Foundation
import SubsStore
import XCTest

final class DemoStoreTests: XCTestCase {
    /// The package root (TestSupport's Repo), so the test does not depend on the working
    /// directory `swift test` was started from.
    private static let packageRoot = Repo.root

    private func exampleBytes() throws -> [UInt8] {
        let url = Self.packageRoot.appendingPathComponent("examples/store.json")
        return [UInt8](try Data(contentsOf: url))
    }

    func testEmbeddedDemoStoreEqualsExampleFileByteForByte() throws {
        let file = try exampleBytes()
        let embedded = Array(DemoStore.json.utf8)
        guard embedded != file else { return }
        // Point at the first differing byte: a bare "not equal" on 30 kB is useless.
        let common = zip(embedded, file).prefix(while: { $0 == $1 }).count
        let line = embedded.prefix(common).filter { $0 == UInt8(ascii: "\n") }.count + 1
        XCTFail("DemoStore.json differs from examples/store.json at byte \(common) (line \(line)); "
            + "sizes \(embedded.count) vs \(file.count): the build embedded another file than examples/store.json links to.")
    }

    func testDemoStoreEndsWithExactlyOneNewline() {
        let bytes = Array(DemoStore.json.utf8)
        XCTAssertEqual(bytes.last, UInt8(ascii: "\n"))
        XCTAssertEqual(bytes.dropLast().last, UInt8(ascii: "}"))
    }

    func testDemoStoreHasNoControlCharactersTabsOrCarriageReturns() {
        for (offset, scalar) in DemoStore.json.unicodeScalars.enumerated() {
            let v = scalar.value
            let isControl = (v < 0x20 && v != 0x0A) || (0x7F...0x9F).contains(v)
            XCTAssertFalse(isControl, "control character U+\(String(v, radix: 16)) at scalar \(offset)")
        }
        // Escaped control characters (\u0000-\u001f, \u007f-\u009f) are not wanted either.
        XCTAssertFalse(DemoStore.json.contains(#"\u00"#), "demo store contains a \\u00XX escape")
    }

    func testDemoStoreIsIndentedWithTwoSpaces() {
        let lines = DemoStore.json.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for (number, line) in lines.enumerated() {
            let indent = line.prefix(while: { $0 == " " }).count
            XCTAssertEqual(indent % 2, 0, "line \(number + 1) is indented by \(indent) spaces")
        }
        XCTAssertTrue(DemoStore.json.hasPrefix("{\n  \"schemaVersion\": 1,\n"))
    }
}
