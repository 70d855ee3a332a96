// JSONWriter's compact and pretty forms, quoting, and round trips through the parser.

import XCTest
@testable import SubsJSON

final class JSONWriterTests: XCTestCase {
    private let sample = JSONValue.object(JSONObject([
        ("name", .string("Zoë")),
        ("n", .number("1.50e+3")),
        ("flags", .array([.bool(true), .bool(false), .null])),
        ("empty", .object(JSONObject())),
        ("none", .array([])),
        ("nested", .object(JSONObject([("list", .array([.object(JSONObject([("k", .string("v"))]))]))]))),
    ]))

    func testCompact() {
        XCTAssertEqual(JSONWriter.compact(sample),
                       #"{"name":"Zoë","n":1.50e+3,"flags":[true,false,null],"empty":{},"none":[],"nested":{"list":[{"k":"v"}]}}"#)
        XCTAssertEqual(JSONWriter.compact(.string("x")), #""x""#)
        XCTAssertEqual(JSONWriter.compact(.array([])), "[]")
    }

    func testPrettyMatchesJSONStringify() {
        XCTAssertEqual(JSONWriter.pretty(sample), """
        {
          "name": "Zoë",
          "n": 1.50e+3,
          "flags": [
            true,
            false,
            null
          ],
          "empty": {},
          "none": [],
          "nested": {
            "list": [
              {
                "k": "v"
              }
            ]
          }
        }
        """)
        XCTAssertEqual(JSONWriter.pretty(.null), "null")
        XCTAssertEqual(JSONWriter.pretty(.object(JSONObject())), "{}")
    }

    func testPrettyWithIndentUnitAndLevel() {
        let value = JSONValue.object(JSONObject([("a", .array([.number("1")])), ("b", .object(JSONObject()))]))
        XCTAssertEqual(JSONWriter.pretty(value, indent: "\t"), "{\n\t\"a\": [\n\t\t1\n\t],\n\t\"b\": {}\n}")
        // Spliced after `"alice": ` at depth 2 of a store: first line bare, closing brace at the level.
        XCTAssertEqual(JSONWriter.pretty(value, indent: "  ", level: 2),
                       "{\n      \"a\": [\n        1\n      ],\n      \"b\": {}\n    }")
        XCTAssertEqual(JSONWriter.pretty(.string("s"), level: 3), #""s""#)
    }

    func testQuoteEscapesOnlyWhatItMust() {
        XCTAssertEqual(JSON.quote("plain"), #""plain""#)
        XCTAssertEqual(JSON.quote(#"a"b\c/d"#), #""a\"b\\c/d""#)
        XCTAssertEqual(JSON.quote("\u{8}\u{C}\n\r\t"), #""\b\f\n\r\t""#)
        XCTAssertEqual(JSON.quote("\u{0}\u{1}\u{1B}\u{1F}"), #""\u0000\u0001\u001b\u001f""#)
        XCTAssertEqual(JSON.quote("\u{7F} é € 😀 \u{2028}"), "\"\u{7F} é € 😀 \u{2028}\"")
        XCTAssertEqual(JSON.quote(""), #""""#)
    }

    func testRoundTrips() throws {
        XCTAssertEqual(try JSON.parse(JSONWriter.compact(sample)), sample)
        XCTAssertEqual(try JSON.parse(JSONWriter.pretty(sample)), sample)
        XCTAssertEqual(try JSON.parse(JSONWriter.pretty(sample, indent: "\t", level: 4)), sample)
        // Every control character and a few awkward ones survive quote → parse.
        var all = (0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }.map(String.init).joined()
        all += "\"\\/\u{7F}é😀\u{FEFF}"
        XCTAssertEqual(try JSON.parse(JSON.quote(all)), .string(all))
        // Documents written by others come back byte for byte after parse → compact.
        let text = #"{"b":[1,-0.0,1e999999,12345678901234567890123],"a":{"\u00e9":"\u20ac"},"s":"\/"}"#
        XCTAssertEqual(JSONWriter.compact(try JSON.parse(text)),
                       #"{"b":[1,-0.0,1e999999,12345678901234567890123],"a":{"é":"€"},"s":"/"}"#)
    }

    func testDeepValuesAreWrittenWithoutRecursion() throws {
        var value = JSONValue.number("0")
        for i in 0..<512 { value = i % 2 == 0 ? .array([value]) : .object(JSONObject([("k", value)])) }
        let compact = JSONWriter.compact(value)
        XCTAssertEqual(try JSON.parse(compact), value)
        XCTAssertEqual(try JSON.parse(JSONWriter.pretty(value)), value)
    }
}
