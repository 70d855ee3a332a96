// WirePage reads a list answer element by element (issue 29 item 4): what it gives must be what a
// whole parse gives — the same root members, the same elements in order, the same error (message,
// line and column) for bytes that are not JSON — and a listing's `keep` may stop it mid-page.

import XCTest
import SubsJSON
@testable import SubsKit

final class WirePageTests: XCTestCase {
    private let documents = [
        #"{"object":"list","has_more":true,"next_cursor":"c2","data":[{"id":"a","n":[1,{"x":null}]},{"id":"b"},[],"s",3,null]}"#,
        #"  {"data":[], "url": "/x"}  "#,
        #"{"url":"/x","data":{"not":"a list"}}"#,
        #"{"url":"/x","data":"text"}"#,
        #"{"url":"/x"}"#,
        #"{"nested":{"data":[1,2]},"data":[{"data":[9]}]}"#,
        #"{"d\u0061ta":[1,2,3]}"#,
        #"[{"data":[1]}]"#, #""text""#, "12", "true", "null", "{}",
    ]

    func testWhatItGivesIsWhatAWholeParseGives() throws {
        for text in documents {
            let bytes = Array(text.utf8)
            let page = try WirePage.read(bytes, list: "data")
            let whole = try JSON.parse(bytes)
            guard case .object(let object) = whole else {
                XCTAssertEqual(page.root.typeName, whole.typeName, text)
                XCTAssertNil(page.elements, text)
                continue
            }
            XCTAssertEqual(page.root.objectValue?.keys, object.keys, text)
            for member in object.members where member.key != "data" {
                XCTAssertEqual(page.root[member.key], member.value, text)
            }
            if case .array(let list)? = object["data"] {
                XCTAssertEqual(page.elements?.count, list.count, text)
                for (i, element) in list.enumerated() { XCTAssertEqual(page.element(i), element, text) }
                XCTAssertEqual(page.root["data"], .array([]), text)
            } else {
                XCTAssertNil(page.elements, text)
                XCTAssertEqual(page.root["data"], object["data"], text)
            }
        }
    }

    func testBytesThatAreNotJSONFailWithTheParsersError() {
        for text in [#"{"data":[1,2"#, #"{"data":[1,}"#, #"{"a":1,"a":2,"data":[]}"#, "", "  ", #"{"data":[1]} x"#, "\u{FEFF}{}",
                     #"{"data":["\#u{1}"]}"#] {
            let bytes = Array(text.utf8)
            var parsed: JSONError?
            do { _ = try JSON.parse(bytes) } catch { parsed = error as? JSONError }
            var read: JSONError?
            do { _ = try WirePage.read(bytes, list: "data") } catch { read = error }
            XCTAssertNotNil(parsed, text)
            XCTAssertEqual(read, parsed, text)
        }
    }

    func testAListingsBudgetStopsItMidPage() throws {
        let purchases = (0..<10).map { i in
            #"{"id":"p\#(i)","product_id":"pro","purchased_at":"2026-01-0\#(i % 9 + 1)T00:00:00Z"}"#
        }
        let bytes = Array(#"{"has_more":true,"data":[\#(purchases.joined(separator: ","))]}"#.utf8)
        var kept = 0
        let page = try QonversionV4Wire.purchasesPage(bytes) { _ in
            kept += 1
            return kept <= 4
        }
        XCTAssertTrue(page.stopped)
        XCTAssertEqual(page.items.map(\.id), ["p0", "p1", "p2", "p3"])
        let whole = try QonversionV4Wire.purchasesPage(bytes)
        XCTAssertFalse(whole.stopped)
        XCTAssertEqual(whole.items.count, 10)
        XCTAssertEqual(whole.lastId, "p9")

        let budget = RemoteBudget(seconds: 10, byteLimit: 10_000)
        XCTAssertTrue(budget.keep(9_000))
        XCTAssertFalse(budget.keep(2_000), "past the bound: not kept, nothing counted")
        XCTAssertEqual(budget.heldBytes, 9_000)
        budget.release(5_000)
        XCTAssertTrue(budget.keep(2_000))
        XCTAssertEqual(budget.heldBytes, 6_000)
    }

    /// What an item is counted at grows with the strings it keeps, and never drops under an entry's cost.
    func testAnItemsFootprintCountsItsStrings() {
        let small = QonversionPurchase(id: "p1", platform: .appstore, productId: "pro", purchasedAt: Instant(seconds: 0))
        var large = small
        large.storeTransactionId = String(repeating: "x", count: 1 << 20)
        XCTAssertGreaterThanOrEqual(small.footprint, Footprint.perEntry)
        XCTAssertGreaterThan(large.footprint, 2 << 20)
        XCTAssertEqual(Footprint.string("fifteen bytes!!"), 0, "kept inline")
        XCTAssertEqual(Footprint.string(String(repeating: "y", count: 16)), 64)
    }
}
