// Helpers for the SubsJSON tests: run both readers on the same bytes and check that they agree.

import XCTest
@testable import SubsJSON

/// A visitor that records everything the scanner reports, as readable lines.
struct RecordingVisitor: JSONScanVisitor {
    var reportDepth: Int
    var events: [String] = []
    var bytes: [UInt8] = []

    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {
        events.append("enter \(depth) \(key.map { $0.string } ?? "-") \(index) @\(start)")
    }

    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
        let text = String(decoding: bytes[range], as: UTF8.self)
        events.append("value \(depth) \(key.map { $0.string } ?? "-") \(index) \(text)")
    }
}

/// A visitor that reports nothing: the scan only validates.
struct SilentVisitor: JSONScanVisitor {
    var reportDepth: Int { -1 }
    func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {}
    func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {}
}

enum Outcome: Equatable {
    case accepted(JSONValue)
    case rejected(JSONError)
}

/// Runs `scan` (with full reporting and with none) and `parse` on `bytes`; fails the test when
/// they disagree on validity or on the error.
func readBoth(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Outcome {
    func scanError(_ depth: Int) -> JSONError? {
        do {
            try bytes.withUnsafeBytes { buffer in
                if depth < 0 {
                    var visitor = SilentVisitor()
                    try JSON.scan(buffer, visitor: &visitor)
                } else {
                    var visitor = RecordingVisitor(reportDepth: depth, bytes: bytes)
                    try JSON.scan(buffer, visitor: &visitor)
                }
            }
            return nil
        } catch let error as JSONError {
            return error
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
            return nil
        }
    }
    let silent = scanError(-1)
    let reporting = scanError(Int.max)
    XCTAssertEqual(silent, reporting, "scan with and without reporting disagree", file: file, line: line)
    do {
        let value = try JSON.parse(bytes)
        XCTAssertNil(silent, "parse accepted what scan rejected", file: file, line: line)
        return .accepted(value)
    } catch let error as JSONError {
        XCTAssertEqual(silent, error, "scan and parse disagree", file: file, line: line)
        return .rejected(error)
    } catch {
        XCTFail("unexpected error type \(error)", file: file, line: line)
        return .rejected(JSONError(message: "?", offset: 0, line: 0, column: 0))
    }
}

/// Asserts that `text` is valid JSON and returns its value.
@discardableResult
func assertAccepts(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
    assertAccepts(Array(text.utf8), file: file, line: line)
}

@discardableResult
func assertAccepts(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
    switch readBoth(bytes, file: file, line: line) {
    case .accepted(let value): return value
    case .rejected(let error):
        XCTFail("rejected \(String(decoding: bytes.prefix(80), as: UTF8.self)): \(error)", file: file, line: line)
        return nil
    }
}

/// Asserts that `text` is rejected; when given, checks the message and the "line:column".
@discardableResult
func assertRejects(_ text: String, _ message: String? = nil, at position: String? = nil,
                   file: StaticString = #filePath, line: UInt = #line) -> JSONError? {
    assertRejects(Array(text.utf8), message, at: position, file: file, line: line)
}

@discardableResult
func assertRejects(_ bytes: [UInt8], _ message: String? = nil, at position: String? = nil,
                   file: StaticString = #filePath, line: UInt = #line) -> JSONError? {
    switch readBoth(bytes, file: file, line: line) {
    case .accepted(let value):
        XCTFail("accepted \(String(decoding: bytes.prefix(80), as: UTF8.self)) as \(value)", file: file, line: line)
        return nil
    case .rejected(let error):
        if let message { XCTAssertEqual(error.message, message, file: file, line: line) }
        if let position { XCTAssertEqual("\(error.line):\(error.column)", position, file: file, line: line) }
        return error
    }
}
