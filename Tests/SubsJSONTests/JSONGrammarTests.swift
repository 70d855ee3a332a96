// Every rule of the RFC 8259 grammar, accepted and rejected, through both readers.

import XCTest
@testable import SubsJSON

final class JSONGrammarTests: XCTestCase {
    func testLiterals() {
        XCTAssertEqual(assertAccepts("true"), .bool(true))
        XCTAssertEqual(assertAccepts("false"), .bool(false))
        XCTAssertEqual(assertAccepts(" null "), .null)
        assertRejects("tru", "unexpected end of input", at: "1:4")
        assertRejects("trUe", "invalid literal", at: "1:1")
        assertRejects("nul", "unexpected end of input")
        assertRejects("fals", "unexpected end of input")
        assertRejects("falsy", "invalid literal")
        assertRejects("True", "unexpected character 'T'", at: "1:1")
        assertRejects("truefalse", "unexpected data after the JSON value", at: "1:5")
        assertRejects("[nulll]", "expected ',' or ']'", at: "1:6")
        assertRejects("NaN", "unexpected character 'N'")
        assertRejects("[Infinity]", "unexpected character 'I'", at: "1:2")
        assertRejects("-Infinity", "invalid number")
        assertRejects("undefined", "unexpected character 'u'")
    }

    func testNumbersAccepted() {
        for literal in ["0", "-0", "1", "-1", "123", "0.5", "-0.5", "1.25", "1e5", "1E5", "1e+5", "1e-5",
                        "1.5E-10", "0e0", "-0.0e-0", "1e999999", "-1e-999999",
                        String(repeating: "9", count: 200), "-" + String(repeating: "1", count: 200) + ".5"] {
            XCTAssertEqual(assertAccepts(literal), .number(literal), literal)
            XCTAssertEqual(assertAccepts("[\(literal)]"), .array([.number(literal)]), literal)
        }
    }

    func testNumbersRejected() {
        assertRejects("01", "leading zero in number", at: "1:1")
        assertRejects("-01", "leading zero in number", at: "1:1")
        assertRejects("[00]", "leading zero in number", at: "1:2")
        assertRejects("-", "unexpected end of input")
        assertRejects("[-]", "invalid number", at: "1:2")
        assertRejects("- 1", "invalid number")
        assertRejects(".5", "unexpected character '.'")
        assertRejects("[1.]", "invalid number", at: "1:2")
        assertRejects("1.", "unexpected end of input")
        assertRejects("1.e5", "invalid number")
        assertRejects("1e", "unexpected end of input")
        assertRejects("[1e]", "invalid number")
        assertRejects("[1e+]", "invalid number")
        assertRejects("1e+-1", "invalid number")
        assertRejects("+1", "unexpected character '+'")
        assertRejects("0x10", "unexpected data after the JSON value", at: "1:2")
        assertRejects("1.5.5", "unexpected data after the JSON value")
        assertRejects("[1 2]", "expected ',' or ']'", at: "1:4")
        assertRejects("1_000", "unexpected data after the JSON value")
    }

    func testStringsAndEscapes() {
        XCTAssertEqual(assertAccepts(#""""#), .string(""))
        XCTAssertEqual(assertAccepts(#""plain text""#), .string("plain text"))
        XCTAssertEqual(assertAccepts(#""\" \\ \/ \b \f \n \r \t""#), .string("\" \\ / \u{8} \u{C} \n \r \t"))
        XCTAssertEqual(assertAccepts(#""\u0041\u00e9\u20AC\u0000""#), .string("Aé€\u{0}"))
        XCTAssertEqual(assertAccepts(#""\uD83D\uDE00 \ud834\udd1e""#), .string("😀 𝄞"))
        XCTAssertEqual(assertAccepts("\"é€😀 \u{7F}\""), .string("é€😀 \u{7F}"))
        // Long strings exercise the word-at-a-time path with specials at every position.
        for position in 0..<20 {
            let prefix = String(repeating: "x", count: position)
            XCTAssertEqual(assertAccepts("\"\(prefix)\\n\(prefix)é\(prefix)\""), .string("\(prefix)\n\(prefix)é\(prefix)"))
            assertRejects("\"\(prefix)\t\(prefix)\"", "control character U+0009 in string", at: "1:\(position + 2)")
            assertRejects("\"\(prefix)", "unexpected end of input", at: "1:\(position + 2)")
        }
    }

    func testStringsRejected() {
        assertRejects(#""\q""#, "invalid escape '\\q'", at: "1:2")
        assertRejects(#""\x41""#, "invalid escape '\\x'")
        assertRejects(#""\U0041""#, "invalid escape '\\U'")
        assertRejects("\"\\\u{1}\"", "invalid escape '\\' followed by character U+0001")
        assertRejects("\"\\é\"", "invalid escape '\\' followed by byte 0xC3")
        assertRejects(#""\u12""#, "invalid \\u escape: expected 4 hex digits")
        assertRejects(#""\u12G4""#, "invalid \\u escape: expected 4 hex digits")
        assertRejects(#""\u"#, "unexpected end of input")
        assertRejects(#""\"#, "unexpected end of input")
        assertRejects(#""abc"#, "unexpected end of input", at: "1:5")
        assertRejects(#"'single'"#, "unexpected character '''")
        assertRejects("\"a\u{0}b\"", "control character U+0000 in string", at: "1:3")
        assertRejects("\"a\nb\"", "control character U+000A in string", at: "1:3")
        assertRejects("\"\u{1F}\"", "control character U+001F in string")
    }

    func testSurrogates() {
        assertRejects(#""\uD800""#, "lone surrogate \\uD800", at: "1:2")
        assertRejects(#""\uDBFFx""#, "lone surrogate \\uDBFF")
        assertRejects(#""\udc00""#, "lone surrogate \\uDC00")
        assertRejects(#""a\uDFFF\uD800""#, "lone surrogate \\uDFFF", at: "1:3")
        assertRejects(#""\uD800\u0041""#, "lone surrogate \\uD800")
        assertRejects(#""\uD800\uD800""#, "lone surrogate \\uD800")
        assertRejects(#""\uD800\n""#, "lone surrogate \\uD800")
        assertRejects(#""\uDE00\uD83D""#, "lone surrogate \\uDE00")
        assertRejects(#"{"\uD800": 1}"#, "lone surrogate \\uD800", at: "1:3")
        assertRejects(#""\uD800"#, "unexpected end of input")
        XCTAssertEqual(assertAccepts(#""\uDBFF\uDFFF""#), .string("\u{10FFFF}"))
    }

    func testStructure() {
        XCTAssertEqual(assertAccepts("[]"), .array([]))
        XCTAssertEqual(assertAccepts("{}"), .object(JSONObject()))
        XCTAssertEqual(assertAccepts(" \t\r\n[ 1 , [ ] , { } ]\n"), .array([.number("1"), .array([]), .object(JSONObject())]))
        XCTAssertEqual(assertAccepts(#"{"b":1,"a":{"c":[null]}}"#),
                       .object(JSONObject([("b", .number("1")), ("a", .object(JSONObject([("c", .array([.null]))])))])))
        assertRejects("", "unexpected end of input", at: "1:1")
        assertRejects("  \n ", "unexpected end of input", at: "2:2")
        assertRejects("[", "unexpected end of input", at: "1:2")
        assertRejects("{", "unexpected end of input")
        assertRejects(#"{"a""#, "unexpected end of input")
        assertRejects(#"{"a":"#, "unexpected end of input")
        assertRejects("[1,", "unexpected end of input")
        assertRejects("[1", "unexpected end of input")
        assertRejects("[1,]", "trailing comma", at: "1:3")
        assertRejects("{\"a\":1 ,\n}", "trailing comma", at: "1:8")
        assertRejects("[,1]", "unexpected character ','", at: "1:2")
        assertRejects("[1,,2]", "unexpected character ','", at: "1:4")
        assertRejects(#"{"a":1 "b":2}"#, "expected ',' or '}'", at: "1:8")
        assertRejects(#"{"a" 1}"#, "expected ':' after object key", at: "1:6")
        assertRejects(#"{"a"=1}"#, "expected ':' after object key")
        assertRejects(#"{a:1}"#, "expected object key or '}'", at: "1:2")
        assertRejects(#"{"a":1,b:2}"#, "expected object key", at: "1:8")
        assertRejects(#"{1:1}"#, "expected object key or '}'")
        assertRejects(#"{"a":}"#, "unexpected character '}'")
        assertRejects("[1]]", "unexpected data after the JSON value", at: "1:4")
        assertRejects("{} {}", "unexpected data after the JSON value", at: "1:4")
        assertRejects("[}", "unexpected character '}'")
        assertRejects("{]", "expected object key or '}'")
        assertRejects("[1}", "expected ',' or ']'")
        assertRejects(#"{"a":1]"#, "expected ',' or '}'")
        assertRejects("[1]\u{0}", "unexpected data after the JSON value")
        assertRejects("/* c */ 1", "unexpected character '/'")
        assertRejects("[1] // c", "unexpected data after the JSON value")
        assertRejects("\u{C}1", "unexpected character U+000C")
        assertRejects("[1,\u{A0}2]", "unexpected byte 0xC2")
    }

    func testDuplicateKeys() {
        assertRejects(#"{"id":1,"id":2}"#, "duplicate key \"id\"", at: "1:9")
        assertRejects(#"{"a":1,"b":2,"a":1}"#, "duplicate key \"a\"")
        assertRejects(#"{"a":1,"\u0061":2}"#, "duplicate key \"a\"", at: "1:8")
        assertRejects(#"{"\u0061":1,"a":2}"#, "duplicate key \"a\"")
        assertRejects(#"{"\u00e9":1,"é":2}"#, "duplicate key \"é\"")
        assertRejects(#"{"a\/b":1,"a/b":2}"#, "duplicate key \"a/b\"")
        assertRejects(#"{"":1,"":2}"#, "duplicate key \"\"")
        assertRejects("{\"x\":{\"k\":1},\n \"y\":{\"k\":1,\"k\":2}}", "duplicate key \"k\"", at: "2:13")
        assertRejects(#"{"\n":1,"\u000a":2}"#, "duplicate key \"\\n\"")
        // The same key in different objects, or reused after an object closed, is fine.
        assertAccepts(#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"a":1}}"#)
        assertAccepts(#"{"a":1,"\u0062":2,"ab":3,"b\u0061":4}"#)
        assertAccepts(#"{"abcdefghij":1,"abcdefghik":2,"abcdefghi":3}"#)
    }

    func testDuplicateKeysInLargeObjects() {
        // Past the linear limit the key set switches to hashing; check both sides of the switch.
        for size in [15, 16, 17, 18, 100, 5000] {
            let keys = (0..<size).map { "key\($0)" }
            let members = keys.map { "\"\($0)\":0" }
            guard case .object(let object)? = assertAccepts("{" + members.joined(separator: ",") + "}") else {
                XCTFail("object of \(size) keys")
                continue
            }
            XCTAssertEqual(object.keys, keys)
            for duplicate in Set([0, size / 2, size - 1]) {
                assertRejects("{" + (members + [members[duplicate]]).joined(separator: ",") + "}",
                              "duplicate key \"key\(duplicate)\"")
                // Escaped spelling of the same key ("k" is \u006b).
                let escaped = "\"\\u006bey\(duplicate)\":1"
                assertRejects("{" + (members + [escaped]).joined(separator: ",") + "}",
                              "duplicate key \"key\(duplicate)\"")
            }
        }
        // Two large objects open at once (nested) and a large one after a large one at the same depth.
        let inner = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let outer = (0..<40).map { "\"o\($0)\":{\(inner)}" }.joined(separator: ",")
        assertAccepts("{\(outer)}")
        assertRejects("{\(outer),\"o39\":{}}", "duplicate key \"o39\"")
        assertRejects("{\(outer),\"x\":{\(inner),\"k7\":1}}", "duplicate key \"k7\"")
        // A small hashed object after a very large one at the same depth (the table is reused).
        let large = (0..<3000).map { "\"L\($0)\":0" }.joined(separator: ",")
        let small = (0..<20).map { "\"S\($0)\":0" }.joined(separator: ",")
        assertAccepts("[{\(large)},{\(small)},{\(large)}]")
        assertRejects("[{\(large)},{\(small),\"S19\":1}]", "duplicate key \"S19\"")
        assertRejects("[{\(large)},{\(small),\"L5\":1,\"L5\":1}]", "duplicate key \"L5\"")
    }

    func testNesting() {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        assertAccepts(ok)
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        assertRejects(deep, "nesting deeper than 512 levels", at: "1:513")
        let mixedOK = String(repeating: "{\"a\":[", count: 256) + String(repeating: "]}", count: 256)
        assertAccepts(mixedOK)
        let mixedDeep = "[" + mixedOK + "]"
        assertRejects(mixedDeep, "nesting deeper than 512 levels")
        assertRejects(String(repeating: "[", count: 100_000), "nesting deeper than 512 levels")
        assertRejects(String(repeating: "{\"a\":", count: 100_000), "nesting deeper than 512 levels")
        // Deep but legal documents are built and compared without recursion trouble.
        guard case .array? = assertAccepts(String(repeating: "[", count: 500) + "1" + String(repeating: "]", count: 500)) else {
            return XCTFail("500 nested arrays")
        }
    }

    func testLineAndColumn() {
        let text = "{\n  \"a\": [1, 2],\n  \"b\": tru\n}"
        let error = assertRejects(text, "invalid literal", at: "3:8")
        XCTAssertEqual(error?.offset, 24)
        XCTAssertEqual(error?.description, "3:8: invalid literal")
        assertRejects("[\r\n1,\r\n  x]", "unexpected character 'x'", at: "3:3")
        // Columns count bytes, not characters.
        assertRejects("[\"é\", x]", "unexpected character 'x'", at: "1:8")
        assertRejects("\n\n\n", "unexpected end of input", at: "4:1")
        assertRejects("[1,\n2,\n]", "trailing comma", at: "2:2")
        // Lines of every length around the word size used when counting newlines.
        var lines = ["["]
        for length in 0..<40 { lines.append(String(repeating: " ", count: length) + "\(length),") }
        lines.append("   x]")
        assertRejects(lines.joined(separator: "\n"), "unexpected character 'x'", at: "\(lines.count):4")
        assertRejects(lines.joined(separator: "\r\n"), "unexpected character 'x'", at: "\(lines.count):4")
    }
}
