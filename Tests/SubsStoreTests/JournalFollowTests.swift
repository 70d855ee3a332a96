// Reading only what was appended to the journal since the last read (serve and its writer after
// each POST, issue 32): the result is what a whole read gives, and anything but an append since —
// a new journal, a cut, a header or a last line that changed — is read whole.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
import TestSupport
import XCTest

final class JournalFollowTests: XCTestCase {
    let stamp = StoreStamp(size: 100, seconds: 1_700_000_000, nanoseconds: 5, sample: 0xdead_beef)
    let at = Instant(seconds: 1_800_000_000)

    func change(_ seq: Int, _ id: String, _ record: String, commit: Bool = true) -> [UInt8] {
        JournalContents.changeLine(seq: seq, customer: ID(id), at: at, op: #"{"action":"grant"}"#,
                                   record: try! JSON.parse(record), commit: commit)
    }

    func write(_ bytes: [UInt8], to path: String, append: Bool = false) {
        let handle: FileHandle
        if append, let h = FileHandle(forWritingAtPath: path) { handle = h; handle.seekToEndOfFile() } else {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            handle = FileHandle(forWritingAtPath: path)!
        }
        handle.write(Data(bytes))
        handle.closeFile()
    }

    /// The read after `previous` and a whole read of the same file, which must agree.
    func readBoth(_ store: String, after previous: JournalRead?) throws -> (JournalRead, Bool) {
        let file = try XCTUnwrap(try JournalFile.open(storePath: store))
        let (read, resumed) = try file.read(after: previous)
        let whole = try file.contents()
        XCTAssertEqual(read.contents.entries.map(\.customer), whole.entries.map(\.customer))
        XCTAssertEqual(read.contents.entries.map(\.record), whole.entries.map(\.record))
        XCTAssertEqual(read.contents.entries.map(\.line), whole.entries.map(\.line))
        XCTAssertEqual(read.contents.goodLength, whole.goodLength)
        XCTAssertEqual(read.contents.lines, whole.lines)
        XCTAssertEqual(read.contents.tear, whole.tear)
        XCTAssertEqual(read.contents.folded, whole.folded)
        XCTAssertEqual(read.contents.foldedOffset, whole.foldedOffset)
        XCTAssertEqual(read.contents.header, whole.header)
        return (read, resumed)
    }

    func testAnAppendIsReadAloneAndAgreesWithAWholeRead() throws {
        let dir = TempDir()
        let store = dir.path + "/s.json"
        let journal = JournalFile.path(forStore: store)
        write(JournalContents.headerLine(for: stamp), to: journal)
        var (read, resumed) = try readBoth(store, after: nil)
        XCTAssertFalse(resumed)
        write(change(1, "a", #"{"x":1}"#), to: journal, append: true)
        (read, resumed) = try readBoth(store, after: read)
        XCTAssertTrue(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a"])
        // A group, then a torn tail: the tail is reported, and the next read after it was cut and
        // appended to continues from the good lines.
        let good = change(2, "b", #"{"y":2}"#, commit: false) + change(3, "c", #"{"z":3}"#)
        let torn = Array(change(4, "a", #"{"x":4}"#).dropLast(5))
        write(good + torn, to: journal, append: true)
        (read, resumed) = try readBoth(store, after: read)
        XCTAssertTrue(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a", "b", "c"])
        XCTAssertEqual(read.contents.tear?.line, 5)
        truncate(journal, read.contents.goodLength)
        write(change(4, "d", #"{"w":4}"#), to: journal, append: true)
        (read, resumed) = try readBoth(store, after: read)
        XCTAssertTrue(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a", "b", "c", "d"])
        XCTAssertNil(read.contents.tear)
        // Nothing appended: nothing new, still resumed.
        (read, resumed) = try readBoth(store, after: read)
        XCTAssertTrue(resumed)
        XCTAssertEqual(read.contents.entries.count, 4)
    }

    func testAnythingButAnAppendIsReadWhole() throws {
        let dir = TempDir()
        let store = dir.path + "/s.json"
        let journal = JournalFile.path(forStore: store)
        let header = JournalContents.headerLine(for: stamp)
        let first = header + change(1, "a", #"{"x":1}"#) + change(2, "b", #"{"y":2}"#)
        write(first, to: journal)
        let (before, _) = try readBoth(store, after: nil)

        // Cut shorter than the good lines read.
        truncate(journal, first.count - 3)
        var (read, resumed) = try readBoth(store, after: before)
        XCTAssertFalse(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a"])

        // The last good line rewritten in place (same size, and more after it).
        write(header + change(1, "a", #"{"x":1}"#) + change(2, "q", #"{"y":2}"#) + change(3, "c", #"{"z":3}"#), to: journal)
        (read, resumed) = try readBoth(store, after: before)
        XCTAssertFalse(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a", "q", "c"])

        // Another header (a journal for another store version), same length.
        let other = StoreStamp(size: 101, seconds: 1_700_000_000, nanoseconds: 5, sample: 0xdead_beef)
        let otherHeader = JournalContents.headerLine(for: other)
        XCTAssertEqual(otherHeader.count, header.count)
        write(otherHeader + Array(first[header.count...]) + change(3, "c", #"{"z":3}"#), to: journal)
        (read, resumed) = try readBoth(store, after: before)
        XCTAssertFalse(resumed)
        XCTAssertEqual(read.contents.header, other)

        // A new journal put in place (another inode), with the same bytes and more.
        write(first, to: journal)
        let (again, _) = try readBoth(store, after: nil)
        let replacement = journal + ".new"
        write(first + change(3, "c", #"{"z":3}"#), to: replacement)
        XCTAssertEqual(rename(replacement, journal), 0)
        (read, resumed) = try readBoth(store, after: again)
        XCTAssertFalse(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a", "b", "c"])

        // A folded marker read: a writer may cut it off and write other lines where it stood.
        write(first + JournalContents.foldedLine(for: other), to: journal)
        let (folded, _) = try readBoth(store, after: nil)
        truncate(journal, first.count)
        write(change(3, "c", #"{"z":3}"#), to: journal, append: true)
        (read, resumed) = try readBoth(store, after: folded)
        XCTAssertFalse(resumed)
        XCTAssertEqual(read.contents.entries.map(\.customer), ["a", "b", "c"])
        XCTAssertTrue(read.contents.folded.isEmpty)
    }

    func testABadLineAppendedIsRefusedWithItsNumberAsAWholeReadDoes() throws {
        let dir = TempDir()
        let store = dir.path + "/s.json"
        let journal = JournalFile.path(forStore: store)
        write(JournalContents.headerLine(for: stamp) + change(1, "a", #"{"x":1}"#), to: journal)
        let (before, _) = try readBoth(store, after: nil)
        var bad = change(2, "b", #"{"y":2}"#)
        bad[15] ^= 0x01
        write(bad + change(3, "c", #"{"z":3}"#), to: journal, append: true)
        let file = try XCTUnwrap(try JournalFile.open(storePath: store))
        XCTAssertThrowsError(try file.read(after: before)) { error in
            guard case StoreError.invalid(_, let problems) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.first?.path, "line 3")
        }
        XCTAssertThrowsError(try file.contents())
    }

    private func truncate(_ path: String, _ length: Int) {
        XCTAssertEqual(Glibc.truncate(path, off_t(length)), 0)
    }
}

/// A reader of a few customers scans again only the journal's records that may be theirs: a
/// customer of the journal is still found by its id, by an alias written byte for byte, and by
/// an alias written with escapes; an alias two customers share is still refused.
final class JournalCandidateTests: XCTestCase {
    func testAReaderFindsTheJournalsCustomersByIdAndEveryAliasSpelling() throws {
        let dir = TempDir()
        let path = dir.write("s.json", #"{"schemaVersion":1,"products":{},"customers":{"a":{},"z":{"aliases":["shared"]}}}"#)
        let stamp = try StoreStamp(path: path)
        func line(_ seq: Int, _ id: String, _ record: String) -> [UInt8] {
            // Written by hand: the writer's own JSON never escapes what it need not.
            JournalContents.sealed(#"{"seq":\#(seq),"customer":\#(JSON.quote(id)),"at":"2027-01-01T00:00:00Z","op":{},"record":\#(record),"commit":true"#)
        }
        let journal = JournalContents.headerLine(for: stamp) + line(1, "b", #"{"aliases":["\u00e9x"]}"#)
            + line(2, "c", #"{"aliases":["plain"]}"#) + line(3, "d", #"{"aliases":["sh\u0061red"]}"#) + line(4, "a", #"{"aliases":["ay"]}"#)
        XCTAssertTrue(FileManager.default.createFile(atPath: JournalFile.path(forStore: path), contents: Data(journal)))
        for (asked, owner) in [("éx", "b"), ("plain", "c"), ("c", "c"), ("ay", "a"), ("a", "a"), ("b", "b"), ("z", "z")] {
            let store = try JournaledStore.scan(path: path, ids: [ID(asked)])
            XCTAssertEqual(try store.customer(forRequest: 0, id: ID(asked))?.id, ID(owner), asked)
        }
        for asked in ["nobody", "e\u{301}x"] {   // the NFD spelling of éx is another id
            let store = try JournaledStore.scan(path: path, ids: [ID(asked)])
            XCTAssertNil(try store.customer(forRequest: 0, id: ID(asked)), asked)
        }
        let store = try JournaledStore.scan(path: path, ids: ["shared"])
        XCTAssertThrowsError(try store.customer(forRequest: 0, id: "shared")) { error in
            XCTAssertTrue("\(error)".contains("several customers"), "\(error)")
        }
    }
}
