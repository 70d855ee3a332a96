// serve's writer keeps what it read of the journal from one write to the next (issue 32): each
// write must still find a customer of the journal by its id and by an alias its latest record
// gives it (not by one it dropped), see changes other writers appended between, and start over
// after a compaction — exactly as a writer that reads the whole journal each time.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
import TestSupport
import XCTest

final class KeptJournalWriterTests: XCTestCase {
    let now = Instant(seconds: 1_800_000_000)
    let storeText = #"{"schemaVersion":1,"products":{"p":{"type":"subscription","entitlements":["premium","extra"]}},"#
        + #""customers":{"a":{"aliases":["al"]},"b":{},"c":{"aliases":["cl"]}}}"#

    func grant(_ entitlement: String, create: Bool = false) -> CustomerChange {
        .grant(entitlement: ID(entitlement), expirationDate: nil, reason: nil, actor: nil, createMissing: create)
    }

    func write(_ store: LocalStore, _ requests: [(CustomerChange, String)]) throws -> [ID?] {
        try store.applyEachReporting(requests.map { ChangeRequest(change: $0.0, id: ID($0.1)) }, now: now)
            .results.map { try? $0.get().id }
    }

    func testAKeptJournalFindsWhatAWholeReadFinds() throws {
        let dir = TempDir()
        let path = dir.write("store.json", storeText)
        let served = LocalStore(path: path)
        // a and its alias through the journal, written by this writer.
        XCTAssertEqual(try write(served, [(grant("premium"), "a")]), ["a"])
        XCTAssertEqual(try write(served, [(grant("extra"), "al")]), ["a"])
        // Another writer (a command, reading the journal whole) appends between two of serve's.
        XCTAssertNoThrow(try LocalStore(path: path).apply(grant("premium"), to: ["cl"], now: now, dryRun: false))
        // serve's next write sees c's line: a second grant of premium to c through its alias.
        XCTAssertEqual(try write(served, [(grant("extra"), "cl")]), ["c"])
        let c = try XCTUnwrap(LocalStore(path: path).read(["c"]).records[0])
        XCTAssertEqual(Set(c.grants.map(\.entitlement)), ["premium", "extra"])
        // A new customer the journal made, then found by id by the kept writer.
        XCTAssertEqual(try write(served, [(grant("premium", create: true), "new"), (grant("extra"), "new")]), ["new", "new"])
        XCTAssertEqual(try write(served, [(grant("premium"), "new")]), ["new"])
        // An unknown id is unknown whatever was kept.
        XCTAssertEqual(try write(served, [(grant("premium"), "nobody")]), [nil])
        // After a compaction (a new store, a new journal), the kept journal is read whole again.
        _ = try served.compactReporting(willCommit: { _ in })
        XCTAssertEqual(try write(served, [(grant("extra"), "b")]), ["b"])
        XCTAssertEqual(try write(served, [(grant("premium"), "al")]), ["a"])
        let records = try LocalStore(path: path).read(["a", "b", "c", "new"]).records
        XCTAssertEqual(records.map { $0?.grants.count }, [3, 1, 2, 3])
        XCTAssertEqual(try StoreValidator.problems(path: path), [])
    }
}
