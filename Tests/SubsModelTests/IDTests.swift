// The id type (SPEC section 7, "Ids are bytes"): equal, hashed and ordered by UTF-8 bytes, where
// Swift's String uses canonical equivalence; and the JSON values ids travel in, compared alike.

import XCTest
import SubsJSON
@testable import SubsModel
import TestSupport

final class IDTests: XCTestCase {
    func testEveryRowOfTheTableIsCanonicallyEquivalentInSwiftAndTwoIds() {
        for row in EquivalentIds.spellings {
            for (i, x) in row.enumerated() {
                for y in row[(i + 1)...] {
                    XCTAssertEqual(x, y, "Swift's String must call \(ID(x).debugDescription) and \(ID(y).debugDescription) equal, or the row tests nothing")
                    XCTAssertNotEqual(Array(x.utf8), Array(y.utf8))
                    XCTAssertNotEqual(ID(x), ID(y))
                    XCTAssertEqual(Set([ID(x), ID(y)]).count, 2)
                }
            }
        }
    }

    func testRandomEquivalentPairsAreTwoKeysOfEverySetAndDictionaryAndSortByBytes() {
        var g = SeededRandom(seed: 29)
        for _ in 0..<2_000 {
            let (a, b) = EquivalentIds.pair(using: &g)
            let context = "\(a.debugDescription) / \(b.debugDescription)"
            XCTAssertEqual(a.string, b.string, "not a canonically equivalent pair: \(context)")
            XCTAssertEqual(Set([a.string, b.string]).count, 1, "why String keys are refused: \(context)")
            XCTAssertNotEqual(a, b, context)
            XCTAssertEqual(Set([a, b]).count, 2, context)
            var table: [ID: Int] = [:]
            table[a] = 1
            table[b] = 2
            XCTAssertEqual(table[a], 1, context)
            XCTAssertEqual(table[b], 2, context)
            XCTAssertFalse(ID.bytesEqual(a.string, b.string), context)
            XCTAssertTrue(ID.bytesEqual(a.string, String(decoding: Array(a.utf8), as: UTF8.self)), context)
            // Exactly one of them sorts first, the one whose bytes do.
            XCTAssertNotEqual(a < b, b < a, context)
            XCTAssertEqual(a < b, Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)), context)
            XCTAssertEqual(a, ID(a.string), context)
            XCTAssertEqual(a.hashValue, ID(String(decoding: Array(a.utf8), as: UTF8.self)).hashValue, context)
        }
    }

    func testOrderIsTheOrderOfTheBytesAndAPrefixComesFirst() {
        let ids: [ID] = ["b", "a", "ab", "", "caf\u{E9}", "cafe\u{301}", "cafe", "\u{212B}", "\u{C5}", "A\u{30A}", "Z"]
        XCTAssertEqual(ids.sorted(), ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        XCTAssertEqual(ids.sorted().first, "")
        XCTAssertLessThan(ID("cafe"), ID("cafe\u{301}"))
        XCTAssertFalse(ID("a") < ID("a"))
    }

    func testPrefixesLiteralsAndDescriptionsKeepTheBytes() {
        XCTAssertTrue(ID("cafe\u{301}-1").hasPrefix("cafe"))
        XCTAssertFalse(ID("caf\u{E9}-1").hasPrefix("cafe"))
        XCTAssertFalse(ID("cafe\u{301}").hasPrefix("caf\u{E9}"))
        let n = 7
        let made: ID = "grant-\(n)"
        XCTAssertEqual(made, ID("grant-7"))
        XCTAssertEqual("\(ID("cafe\u{301}"))".utf8.count, 6)
        XCTAssertEqual(ID("caf\u{E9}").debugDescription, #""caf\u{e9}""#)
        XCTAssertEqual(ID("cafe\u{301}").debugDescription, #""cafe\u{301}""#)
        XCTAssertEqual(["caf\u{E9}", "cafe\u{301}"].ids.strings.map { Array($0.utf8) }, [[0x63, 0x61, 0x66, 0xC3, 0xA9], [0x63, 0x61, 0x66, 0x65, 0xCC, 0x81]])
    }

    /// A lookup of a JSON object by a key (a catalog by product id, an answer keyed by
    /// entitlement) finds the member with those bytes, not one canonically equal to it.
    func testJSONObjectsLookUpAndReplaceMembersByTheKeysBytes() throws {
        var g = SeededRandom(seed: 2_901)
        for _ in 0..<200 {
            let (a, b) = EquivalentIds.pair(using: &g)
            let text = "{\(JSON.quote(a.string)): 1, \(JSON.quote(b.string)): 2}"
            var object = try XCTUnwrap(try JSON.parse(text).objectValue, "two keys whose bytes differ are two members")
            XCTAssertEqual(object[a.string], .number("1"))
            XCTAssertEqual(object[b.string], .number("2"))
            object[b.string] = .number("3")
            XCTAssertEqual(object[a.string], .number("1"), "setting one member replaced the other")
            XCTAssertEqual(object.members.count, 2)
            object[a.string] = nil
            XCTAssertEqual(object.keys.map { Array($0.utf8) }, [Array(b.utf8)])
        }
        XCTAssertThrowsError(try JSON.parse(#"{"caf\u00e9": 1, "café": 2}"#), "the same bytes twice are a duplicate key")
    }

    func testJSONValuesAndHistoryValuesCompareTextByBytes() {
        XCTAssertNotEqual(JSONValue.string("caf\u{E9}"), .string("cafe\u{301}"))
        XCTAssertEqual(JSONValue.string("caf\u{E9}"), .string("caf\u{E9}"))
        XCTAssertNotEqual(JSONValue.object(JSONObject([("\u{C5}", .null)])), .object(JSONObject([("\u{212B}", .null)])))
        XCTAssertEqual(JSONValue.array([.string("K"), .bool(true)]), .array([.string("K"), .bool(true)]))
        XCTAssertNotEqual(JSONValue.array([.string("K")]), .array([.string("\u{212A}")]))
        XCTAssertNotEqual(HistoryValue.string("\u{3A9}"), .string("\u{2126}"))
        XCTAssertEqual(HistoryValue.string(nil), .string(nil))
        XCTAssertNotEqual(HistoryValue.string(nil), .string(""))
        XCTAssertEqual(HistoryValue.string("q\u{323}\u{307}").id, ID("q\u{323}\u{307}"))
    }
}
