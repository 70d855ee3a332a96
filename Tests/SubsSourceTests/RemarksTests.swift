// Remarks, the one way every source collects the notes and warnings of an answer: order kept,
// each said once, notes and warnings apart, and the box a record store hands them over with.

import XCTest
import Foundation
@testable import SubsModel
@testable import SubsRemote
@testable import SubsSource

final class RemarksTests: XCTestCase {
    func testOrderIsKeptAndARepeatIsDropped() {
        var remarks = Remarks()
        remarks.note("b")
        remarks.note("a")
        remarks.note("b")
        remarks.note("c")
        remarks.warn("z")
        remarks.warn("y")
        remarks.warn("z")
        XCTAssertEqual(remarks.notes, ["b", "a", "c"])
        XCTAssertEqual(remarks.warnings, ["z", "y"])
    }

    /// A remark about one of two canonically equivalent ids is not a repeat of one about the
    /// other (SPEC section 7): both customers are said.
    func testRemarksNamingEquivalentIdsAreTwo() {
        var remarks = Remarks()
        remarks.note("RevenueCat created an empty subscriber for 'caf\u{E9}'")
        remarks.note("RevenueCat created an empty subscriber for 'cafe\u{301}'")
        remarks.warn("IAPHUB user '\u{212B}': products[0] left out")
        remarks.warn("IAPHUB user '\u{C5}': products[0] left out")
        remarks.warn("IAPHUB user '\u{C5}': products[0] left out")
        XCTAssertEqual(remarks.notes.count, 2)
        XCTAssertEqual(remarks.warnings.count, 2)
    }

    func testNotesAndWarningsAreKeptApartEvenWithTheSameWords() {
        var remarks = Remarks()
        remarks.note("same words")
        remarks.warn("same words")
        XCTAssertEqual(remarks.notes, ["same words"])
        XCTAssertEqual(remarks.warnings, ["same words"])
        XCTAssertFalse(remarks.isEmpty)
        XCTAssertTrue(Remarks().isEmpty)
    }

    func testTheListInitDropsRepeatsLikeTheMethods() {
        let remarks = Remarks(notes: ["n1", "n2", "n1"], warnings: ["w1", "w1", "w2"])
        XCTAssertEqual(remarks.notes, ["n1", "n2"])
        XCTAssertEqual(remarks.warnings, ["w1", "w2"])
    }

    func testMergeAppendsWhatIsNewInItsOrder() {
        var first = Remarks(notes: ["cache: 5 min old", "projected"], warnings: ["item 1 left out"])
        let second = Remarks(notes: ["page 2 from cache", "cache: 5 min old"], warnings: ["item 2 left out", "item 1 left out"])
        first.merge(second)
        XCTAssertEqual(first.notes, ["cache: 5 min old", "projected", "page 2 from cache"])
        XCTAssertEqual(first.warnings, ["item 1 left out", "item 2 left out"])
    }

    func testWhatTheClientSaidOfAnAnswerIsANote() {
        let answer = RemoteAnswer(response: RemoteResponse(status: 200), url: "https://example.test/x", cacheAge: 60,
                                  warnings: ["https://example.test/x: answered from the cache, 1 min old: server unreachable"])
        var remarks = Remarks()
        remarks.note(from: answer)
        remarks.note(from: answer)
        XCTAssertEqual(remarks.notes, answer.warnings)
        XCTAssertEqual(remarks.warnings, [])
    }

    func testAnItemLeftOutIsAWarningNamingItsPathAndAnswer() {
        var remarks = Remarks()
        remarks.leaveOut([WireFormatError(path: "products[1].sku", message: "expected string, found number"),
                          WireFormatError(path: "products[3]", message: "expected object, found null")],
                         of: "IAPHUB user 'bob'")
        XCTAssertEqual(remarks.notes, [])
        XCTAssertEqual(remarks.warnings, [
            "products[1].sku: expected string, found number (IAPHUB user 'bob': this item is left out, the rest is answered)",
            "products[3]: expected object, found null (IAPHUB user 'bob': this item is left out, the rest is answered)",
        ])
    }

    func testAnAnswerCarriesItsRemarksToTheListsTheCLISays() {
        let remarks = Remarks(notes: ["a note"], warnings: ["a warning"])
        var answer = StatusAnswer(requestDate: Instant(seconds: 0), statuses: [nil], remarks: remarks)
        XCTAssertEqual(answer.notes, ["a note"])
        XCTAssertEqual(answer.warnings, ["a warning"])
        XCTAssertEqual(answer.remarks, remarks)
        answer.remarks = Remarks()
        XCTAssertEqual(answer.notes, [])
        XCTAssertEqual(answer.warnings, [])
        let found = FindAnswer(requestDate: Instant(seconds: 0), results: [], remarks: remarks)
        XCTAssertEqual(found.notes, ["a note"])
        XCTAssertEqual(found.warnings, ["a warning"])
    }

    func testPendingRemarksAreTakenOnceInOrder() {
        let pending = PendingRemarks()
        pending.add(Remarks(notes: ["first"]))
        pending.add(Remarks(notes: ["second", "first"], warnings: ["w"]))
        XCTAssertEqual(pending.take(), Remarks(notes: ["first", "second"], warnings: ["w"]))
        XCTAssertTrue(pending.take().isEmpty, "a take empties the box")
    }

    func testPendingRemarksLoseNothingWhenAddedFromManyThreads() {
        let pending = PendingRemarks()
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            pending.add(Remarks(notes: ["note \(i)"], warnings: ["warning \(i % 10)"]))
        }
        let taken = pending.take()
        XCTAssertEqual(Set(taken.notes), Set((0..<200).map { "note \($0)" }))
        XCTAssertEqual(taken.notes.count, 200)
        XCTAssertEqual(Set(taken.warnings), Set((0..<10).map { "warning \($0)" }))
        XCTAssertEqual(taken.warnings.count, 10)
    }
}
