// The journal's reader (SPEC section 5 rev. 4): checksummed lines, the header naming the store
// version, group commits applied whole, the torn tail dropped and reported, a bad line before the
// last refused with its number, a journal for another store version refused, the folded marker.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
import TestSupport
import XCTest

final class JournalReaderTests: XCTestCase {
    let stamp = StoreStamp(size: 100, seconds: 1_700_000_000, nanoseconds: 5, sample: 0xdead_beef)
    let at = Instant(seconds: 1_800_000_000)

    func change(_ seq: Int, _ id: String, _ record: String, commit: Bool = true) -> [UInt8] {
        JournalContents.changeLine(seq: seq, customer: ID(id), at: at, op: #"{"action":"grant"}"#,
                                   record: try! JSON.parse(record), commit: commit)
    }

    func parse(_ bytes: [UInt8]) throws -> JournalContents {
        try bytes.withUnsafeBytes { try JournalContents.parse($0, path: "s.json.journal") }
    }

    func lineNumber(of error: Error) -> String? {
        guard case StoreError.invalid(_, let problems) = error else { return nil }
        return problems.first?.path
    }

    func testLinesCarryTheirChecksumAndGroupsApplyWhole() throws {
        let journal = JournalContents.headerLine(for: stamp) + change(1, "a", #"{"x":1}"#, commit: false)
            + change(2, "b", #"{"y":2}"#) + change(3, "a", #"{"x":3}"#)
        let contents = try parse(journal)
        XCTAssertEqual(contents.header, stamp)
        XCTAssertEqual(contents.entries.map(\.customer), ["a", "b", "a"])
        XCTAssertNil(contents.tear)
        XCTAssertEqual(contents.goodLength, journal.count)
        XCTAssertEqual(contents.nextSequence, 4)
        var overlay = JournalOverlay()
        overlay.apply(contents.entries)
        // The last after-image wins; a line applied twice changes nothing.
        XCTAssertEqual(overlay.record("a").map { $0.map { String(decoding: $0, as: UTF8.self) } }, #"{"x":3}"#)
        overlay.apply(contents.entries)
        XCTAssertEqual(overlay.customers.count, 2)
        XCTAssertEqual(overlay.record("a").map { $0.map { String(decoding: $0, as: UTF8.self) } }, #"{"x":3}"#)
    }

    func testATornTailIsDroppedAndReportedWhateverCutIt() throws {
        let good = JournalContents.headerLine(for: stamp) + change(1, "a", #"{"x":1}"#)
        let last = change(2, "b", #"{"y":2}"#)
        // Cut at every byte of the last line: never applied, always reported, nothing before lost.
        for cut in 1..<last.count {
            let contents = try parse(good + last.prefix(cut))
            XCTAssertEqual(contents.entries.map(\.customer), ["a"], "cut at \(cut)")
            XCTAssertEqual(contents.tear?.line, 3, "cut at \(cut)")
            XCTAssertEqual(contents.goodLength, good.count)
        }
        // Whole but with a flipped byte: a checksum that fails on the last line is a tear too.
        var flipped = last
        flipped[20] ^= 0x01
        XCTAssertEqual(try parse(good + flipped).tear?.line, 3)
        // A group without its commit line at the end: all of it dropped (a batch is all or nothing).
        let group = change(2, "b", #"{"y":2}"#, commit: false) + change(3, "c", #"{"z":3}"#, commit: false)
        let contents = try parse(good + group)
        XCTAssertEqual(contents.entries.map(\.customer), ["a"])
        XCTAssertEqual(contents.tear?.line, 3)
    }

    func testABadLineBeforeTheLastIsExit65WithItsLineNumber() throws {
        let header = JournalContents.headerLine(for: stamp)
        var damaged = change(1, "a", #"{"x":1}"#)
        damaged[15] ^= 0x20
        let cases: [(String, [UInt8])] = [
            ("flipped byte", header + damaged + change(2, "b", "{}")),
            ("not JSON", header + JournalContents.sealed("{nope") + change(2, "b", "{}")),
            ("unknown kind", header + JournalContents.sealed(#"{"what":1"#) + change(2, "b", "{}")),
            ("no checksum", header + Array("{\"seq\":1}\n".utf8) + change(2, "b", "{}")),
            ("record not an object", header + JournalContents.sealed(#"{"seq":1,"customer":"a","record":3,"commit":true"#) + change(2, "b", "{}")),
            ("empty line", header + [0x0A] + change(2, "b", "{}")),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try parse(bytes), name) { error in
                XCTAssertEqual(lineNumber(of: error), "line 2", name)
            }
        }
        // A header that is not line 1, or of a format this subs does not read.
        XCTAssertThrowsError(try parse(header + header + change(1, "a", "{}"))) { XCTAssertEqual(lineNumber(of: $0), "line 2") }
        XCTAssertThrowsError(try parse(JournalContents.sealed(#"{"journal":2,"store":\#(stamp.json)"#) + change(1, "a", "{}"))) {
            XCTAssertEqual(lineNumber(of: $0), "line 1")
        }
    }

    func testAJournalForAnotherStoreVersionIsRefusedUnlessEmpty() throws {
        let other = StoreStamp(size: 101, seconds: stamp.seconds, nanoseconds: stamp.nanoseconds, sample: stamp.sample)
        let withChanges = try parse(JournalContents.headerLine(for: stamp) + change(1, "a", "{}"))
        XCTAssertEqual(try JournalOverlay.changes(in: withChanges, forStore: stamp, storePath: "s", journalPath: "j").count, 1)
        XCTAssertThrowsError(try JournalOverlay.changes(in: withChanges, forStore: other, storePath: "s", journalPath: "j")) { error in
            guard case StoreError.invalid(_, let problems) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(problems[0].message.contains("subs store compact"), problems[0].message)
        }
        let empty = try parse(JournalContents.headerLine(for: stamp))
        XCTAssertEqual(try JournalOverlay.changes(in: empty, forStore: other, storePath: "s", journalPath: "j").count, 0)
    }

    func testAFoldedMarkerNamingTheStoreMeansNothingToApply() throws {
        let folded = StoreStamp(size: 200, seconds: 1_700_000_001, nanoseconds: 0, sample: 1)
        let contents = try parse(JournalContents.headerLine(for: stamp) + change(1, "a", "{}") + JournalContents.foldedLine(for: folded))
        XCTAssertEqual(contents.folded, [folded])
        // Where the marker starts: a writer cuts a marker of a fold that never renamed its store in.
        XCTAssertEqual(contents.foldedOffset, (JournalContents.headerLine(for: stamp) + change(1, "a", "{}")).count)
        // The new store: folded in already. The old one (the fold never renamed it in): all of it.
        XCTAssertEqual(try JournalOverlay.changes(in: contents, forStore: folded, storePath: "s", journalPath: "j").count, 0)
        XCTAssertEqual(try JournalOverlay.changes(in: contents, forStore: stamp, storePath: "s", journalPath: "j").count, 1)
        // A change after a folded marker cannot be: refused with its line.
        XCTAssertThrowsError(try parse(JournalContents.headerLine(for: stamp) + JournalContents.foldedLine(for: folded) + change(1, "a", "{}"))) {
            XCTAssertEqual(lineNumber(of: $0), "line 3")
        }
    }

    func testStampsRoundTripAndAnEmptyFileIsNoJournal() throws {
        let text = stamp.json
        XCTAssertEqual(StoreStamp(json: try JSON.parse(text)), stamp)
        XCTAssertNil(StoreStamp(json: try JSON.parse(#"{"size":-1,"mtime":"1.000000000","sample":"00000000"}"#)))
        XCTAssertNil(StoreStamp(json: try JSON.parse(#"{"size":1,"mtime":"1.5","sample":"00000000"}"#)))
        let contents = try parse([])
        XCTAssertNil(contents.header)
        XCTAssertEqual(contents.entries.count, 0)
    }

    func testIdsAreBytesInTheJournal() throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let contents = try parse(JournalContents.headerLine(for: stamp) + change(1, nfc, #"{"n":1}"#) + change(2, nfd, #"{"n":2}"#))
        var overlay = JournalOverlay()
        overlay.apply(contents.entries)
        XCTAssertEqual(overlay.customers.count, 2, "NFC and NFD are two customers")
        XCTAssertEqual(overlay.record(ID(nfc)).map { $0.map { String(decoding: $0, as: UTF8.self) } }, #"{"n":1}"#)
    }
}
