// What JSON.scan reports to its visitor, parsing one value out of a larger buffer, and JSONKey.

import XCTest
@testable import SubsJSON

final class JSONScanTests: XCTestCase {
    private let document = #"{"schemaVersion": 1, "customers": {"alice": {"tx": [1, {"a": 2}]}, "b\u006fb": []}, "x": "y"}"#

    private func events(_ text: String, depth: Int) throws -> [String] {
        let bytes = Array(text.utf8)
        var visitor = RecordingVisitor(reportDepth: depth, bytes: bytes)
        try bytes.withUnsafeBytes { try JSON.scan($0, visitor: &visitor) }
        return visitor.events
    }

    func testReportsValuesDownToReportDepth() throws {
        XCTAssertEqual(try events(document, depth: 2), [
            "enter 0 - -1 @0",
            "value 1 schemaVersion -1 1",
            "enter 1 customers -1 @34",
            "enter 2 alice -1 @44",
            "value 2 alice -1 {\"tx\": [1, {\"a\": 2}]}",
            "enter 2 bob -1 @79",
            "value 2 bob -1 []",
            "value 1 customers -1 " + #"{"alice": {"tx": [1, {"a": 2}]}, "b\u006fb": []}"#,
            "value 1 x -1 \"y\"",
            "value 0 - -1 " + document,
        ])
        XCTAssertEqual(try events(document, depth: 0), ["enter 0 - -1 @0", "value 0 - -1 " + document])
        XCTAssertEqual(try events(document, depth: -1), [])
    }

    func testReportsArrayIndices() throws {
        XCTAssertEqual(try events(#"[true, [], {"k": [null]}, "s"]"#, depth: 2), [
            "enter 0 - -1 @0",
            "value 1 - 0 true",
            "enter 1 - 1 @7",
            "value 1 - 1 []",
            "enter 1 - 2 @11",
            "enter 2 k -1 @17",
            "value 2 k -1 [null]",
            "value 1 - 2 {\"k\": [null]}",
            "value 1 - 3 \"s\"",
            "value 0 - -1 " + #"[true, [], {"k": [null]}, "s"]"#,
        ])
        XCTAssertEqual(try events(" 42 ", depth: 5), ["value 0 - -1 42"])
    }

    func testValidatesBelowReportDepth() {
        for bad in [#"{"a": {"b": {"c": [1,]}}}"#, #"{"a": {"b": {"c": 1, "c": 2}}}"#, #"{"a": {"b": "\x"}}"#] {
            let bytes = Array(bad.utf8)
            var visitor = RecordingVisitor(reportDepth: 1, bytes: bytes)
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try JSON.scan($0, visitor: &visitor) }, bad)
        }
    }

    func testVisitorErrorsPassThrough() {
        struct Stop: Error {}
        struct Stopping: JSONScanVisitor {
            var reportDepth: Int { 1 }
            mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {}
            mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
                if key?.equals("stop") == true { throw Stop() }
            }
        }
        var visitor = Stopping()
        XCTAssertThrowsError(try Array(#"{"a": 1, "stop": 2}"#.utf8).withUnsafeBytes { try JSON.scan($0, visitor: &visitor) }) {
            XCTAssertTrue($0 is Stop)
        }
    }

    func testParseRangeOfALargerBuffer() throws {
        let text = "{\"a\": 1,\n \"c\": {\"d\": [true, \"\\u00e9\"]}}"
        let bytes = Array(text.utf8)
        struct Ranges: JSONScanVisitor {
            var reportDepth: Int { 1 }
            var ranges: [Range<Int>] = []
            mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {}
            mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
                if depth == 1 { ranges.append(range) }
            }
        }
        var collector = Ranges()
        try bytes.withUnsafeBytes { try JSON.scan($0, visitor: &collector) }
        let ranges = collector.ranges
        XCTAssertEqual(ranges.count, 2)
        let value = try bytes.withUnsafeBytes { try JSON.parse($0, range: ranges[1]) }
        XCTAssertEqual(value, .object(JSONObject([("d", .array([.bool(true), .string("é")]))])))
        XCTAssertEqual(try bytes.withUnsafeBytes { try JSON.parse($0, range: ranges[0]) }, .number("1"))

        // Errors in a range point into the whole buffer.
        let broken = Array("{\"a\": 1,\n \"c\": {\"d\": [true,]}}".utf8)
        let start = broken.firstIndex(of: UInt8(ascii: "{"))!
        let inner = broken[(start + 1)...].firstIndex(of: UInt8(ascii: "{"))!
        XCTAssertThrowsError(try broken.withUnsafeBytes { try JSON.parse($0, range: inner..<(broken.count - 1)) }) {
            let error = $0 as? JSONError
            XCTAssertEqual(error?.message, "trailing comma")
            XCTAssertEqual(error.map { "\($0.line):\($0.column)" }, "2:18")
        }
        // The range must hold exactly one value.
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try JSON.parse($0, range: 0..<5) })
        XCTAssertThrowsError(try bytes.withUnsafeBytes { try JSON.parse($0, range: 6..<8) }) {
            XCTAssertEqual(($0 as? JSONError)?.message, "unexpected data after the JSON value")
        }
    }

    func testParseEntryPointsAgree() throws {
        let text = #"{"k": ["v", 1.5e3, null]}"#
        let expected = JSONValue.object(JSONObject([("k", .array([.string("v"), .number("1.5e3"), .null]))]))
        XCTAssertEqual(try JSON.parse(text), expected)
        XCTAssertEqual(try JSON.parse(Array(text.utf8)), expected)
        XCTAssertEqual(try Array(text.utf8).withUnsafeBytes { try JSON.parse($0) }, expected)
        XCTAssertThrowsError(try JSON.parse(UnsafeRawBufferPointer(start: nil, count: 0))) {
            XCTAssertEqual(($0 as? JSONError)?.description, "1:1: unexpected end of input")
        }
        var visitor = SilentVisitor()
        XCTAssertThrowsError(try JSON.scan(UnsafeRawBufferPointer(start: nil, count: 0), visitor: &visitor))
    }

    func testKeyStringAndEquals() throws {
        struct Keys: JSONScanVisitor {
            var reportDepth: Int { 1 }
            var seen: [(String, Bool, Bool, Bool)] = []
            mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {}
            mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
                guard let key else { return }
                seen.append((key.string, key.hasEscapes, key.equals("é\"x"), key.equals("plain")))
            }
        }
        var visitor = Keys()
        try Array(#"{"plain": 1, "\u00e9\"x": 2, "é\"x\n": 3, "plai": 4, "plainer": 5, "": 6}"#.utf8)
            .withUnsafeBytes { try JSON.scan($0, visitor: &visitor) }
        let seen = visitor.seen
        XCTAssertEqual(seen.map(\.0), ["plain", "é\"x", "é\"x\n", "plai", "plainer", ""])
        XCTAssertEqual(seen.map(\.1), [false, true, true, false, false, false])
        XCTAssertEqual(seen.map(\.2), [false, true, false, false, false, false])
        XCTAssertEqual(seen.map(\.3), [true, false, false, false, false, false])
        // A long non-ASCII key compared without escapes.
        let long = String(repeating: "ключ", count: 10)
        var longVisitor = Keys()
        try Array("{\"\(long)\": 1}".utf8).withUnsafeBytes { try JSON.scan($0, visitor: &longVisitor) }
        XCTAssertEqual(longVisitor.seen.first?.0, long)
    }
}
