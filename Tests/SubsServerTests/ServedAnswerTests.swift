// GET answers spliced from the store's bytes (issue 26): the same document as the answer the
// server used to build from decoded values, whatever the store's formatting; the index follows
// the server's own writes without a scan. A change by another program is never answered from the
// previous version (issue 29): the first request after it scans the new file, the others wait for
// that scan, and only the records whose bytes changed are checked again.

import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsRemote
@testable import SubsServer
import XCTest

final class ServedAnswerTests: XCTestCase {
    private var dir = ""
    private var path = ""
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "subs-served-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        path = dir + "/store.json"
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func write(_ text: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        // A new store file: the journal of the one it replaces goes with it.
        try? FileManager.default.removeItem(atPath: path + ".journal")
    }

    private func api() -> SubsAPI {
        SubsAPI(store: LocalStore(path: path), token: nil, clock: FixedClock(now))
    }

    private func get(_ id: String) -> HTTPRequest {
        HTTPRequest(method: "GET", target: "/v1/customers/" + RemoteURL.segment(id))
    }

    private func grant(_ id: String, create: Bool = false) -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/v1/customers/\(RemoteURL.segment(id))/grants",
                    body: Array(#"{"entitlement": "premium", "expirationDate": null, "create": \#(create)}"#.utf8))
    }

    /// The answer as the server built it before issue 26: the stored record decoded, `id` first
    /// then its members but its own `id`, the catalog decoded, all written again.
    private func oldAnswer(_ id: String) throws -> JSONValue {
        let stored = try XCTUnwrap(try LocalStore(path: path).storedRecord(ID(id)), id)
        var record = JSONObject([("id", .string(stored.id.string))])
        for member in stored.record.objectValue?.members ?? [] where member.key != "id" {
            record[member.key] = member.value
        }
        return .object(JSONObject([
            ("requestDate", .string(ISODate.format(now))), ("customer", .object(record)), ("products", stored.products),
        ]))
    }

    /// Both ways of answering (waiting on a worker, and without waiting on the event loop) give
    /// the old answer's document for every customer and alias of the store.
    private func assertAnswersMatchTheOldPath(_ ids: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let api = api()
        try api.prepare()
        for id in ids {
            let expected = try oldAnswer(id)
            let waited = api.handle(get(id))
            XCTAssertEqual(waited.status, 200, id, file: file, line: line)
            XCTAssertEqual(try JSON.parse(waited.body), expected, "\(id) (waiting)", file: file, line: line)
            let direct = try XCTUnwrap(api.answerWithoutWaiting(get(id)), id, file: file, line: line)
            XCTAssertEqual(direct.status, 200, id, file: file, line: line)
            XCTAssertEqual(try JSON.parse(direct.body), expected, "\(id) (without waiting)", file: file, line: line)
            XCTAssertEqual(direct.headers.first?.1, "application/json", file: file, line: line)
        }
    }

    func testEveryDemoCustomerAndAliasIsTheOldAnswerPrettyCompactAndCRLF() throws {
        let demo = DemoStore.json
        try write(demo)
        let ids = try LocalStore(path: path).customerIds().strings
        XCTAssertEqual(ids.count, 25)
        let names = ids + ["alice-android"]
        try assertAnswersMatchTheOldPath(names)
        try write(JSONWriter.compact(try JSON.parse(demo)))
        try assertAnswersMatchTheOldPath(names)
        try write(demo.replacingOccurrences(of: "\n", with: "\r\n").replacingOccurrences(of: "  ", with: "\t"))
        try assertAnswersMatchTheOldPath(names)
    }

    private static let products = #""products": {"pro": {"type": "subscription", "entitlements": ["premium"]}}"#

    func testRecordsWithTheirOwnIdMemberEscapesAndOddSpacingAnswerAsBefore() throws {
        try write("""
            {"schemaVersion": 1, \(Self.products), "customers": {
              "first": {"id": "not-me", "firstSeen": "2026-01-01T00:00:00Z", "note": "x"},
              "middle": {"firstSeen": "2026-01-01T00:00:00Z",
                         "id": 42,
                         "note": "y"},
              "last": {"firstSeen": "2026-01-01T00:00:00Z", "note": "z" , "id" : null },
              "only": {"id": "alone"},
              "escaped": {"\\u0069d": "escaped key", "firstSeen": "2026-01-01T00:00:00Z"},
              "caf\\u00e9 \\"q\\"": {"note": "\\u00e9\\n\\t\\ud83d\\ude00 \\\\ \\/", "firstSeen": "2026-01-01T00:00:00Z"},
              "empty": {},
              "spaces": {   },
              "nested": {"attributes": {"id": "inner stays"}, "grants": [{"id": "grant-1", "entitlement": "premium",
                         "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": null}]},
              "plain":
                {
                        "firstSeen"   :   "2026-01-01T00:00:00Z"
                }
            }}
            """)
        try assertAnswersMatchTheOldPath(["first", "middle", "last", "only", "escaped", "café \"q\"", "empty", "spaces",
                                          "nested", "plain"])
        // The own `id` member never makes a second key: the key of the customer is its `id`.
        let api = api()
        try api.prepare()
        let body = try XCTUnwrap(api.answerWithoutWaiting(get("first"))).body
        XCTAssertEqual(String(decoding: body, as: UTF8.self).components(separatedBy: #""id""#).count, 2)
        XCTAssertEqual(try JSON.parse(body)["customer"]?["id"], .string("first"))
    }

    func testAnInvalidRecordIsStillInvalidStoreAndTheOthersAnswer() throws {
        try write(#"{"schemaVersion": 1, \#(Self.products), "customers": {"bad": {"firstSeen": 7}, "good": {}}}"#)
        let api = api()
        try api.prepare()
        for answer in [api.handle(get("bad")), try XCTUnwrap(api.answerWithoutWaiting(get("bad")))] {
            XCTAssertEqual(answer.status, 500)
            XCTAssertEqual(try JSON.parse(answer.body)["error"]?["code"], .string("invalid_store"))
        }
        XCTAssertEqual(api.answerWithoutWaiting(get("good"))?.status, 200)
        XCTAssertEqual(api.answerWithoutWaiting(get("nobody"))?.status, 404)
    }

    func testTheServersOwnWritesAreSeenAtOnceWithoutAScan() throws {
        for store in [DemoStore.json, JSONWriter.compact(try JSON.parse(DemoStore.json)),
                      DemoStore.json.replacingOccurrences(of: "\n", with: "\r\n")] {
            try write(store)
            let api = api()
            try api.prepare()
            XCTAssertEqual(api.served.scans, 1)
            XCTAssertEqual(api.handle(grant("trent")).status, 201)
            XCTAssertEqual(api.handle(grant("alice-android")).status, 201)
            XCTAssertEqual(api.handle(grant("newcomer", create: true)).status, 201)
            XCTAssertEqual(api.handle(grant("second-newcomer", create: true)).status, 201)
            for id in ["trent", "alice", "newcomer", "second-newcomer", "bob"] {
                let answer = try XCTUnwrap(api.answerWithoutWaiting(get(id)), id)
                XCTAssertEqual(answer.status, 200, id)
                XCTAssertEqual(try JSON.parse(answer.body), try oldAnswer(id), id)
            }
            XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("trent"))).body)["customer"]?["grants"]?
                .arrayValue?.count, 1)
            XCTAssertEqual(api.served.scans, 1, "a write of the server was scanned again")
            // The index made from the edits is the one a scan makes.
            try assertAnswersMatchTheOldPath(try LocalStore(path: path).customerIds().strings)
        }
    }

    /// Another program (`subs grant` beside the server) renames a new version in.
    /// Another program's grant that changes the store file itself: a grant (to the journal),
    /// then the journal folded into a new store file, as a compaction by another process does.
    private func outsideGrant(_ id: String, reason: String = "outside") throws {
        try outsideJournalGrant(id, reason: reason)
        _ = try LocalStore(path: path).compact()
    }

    /// Another program's grant, appended to the journal only (the store file stays as it is).
    private func outsideJournalGrant(_ id: String, reason: String = "outside") throws {
        _ = try LocalStore(path: path).apply(.grant(entitlement: "premium", expirationDate: nil, reason: reason, actor: "x",
                                                   createMissing: false), to: [ID(id)], now: now, dryRun: false)
    }

    func testAGrantAnotherProgramAppendsToTheJournalIsAnsweredAtOnceWithoutAScan() throws {
        try write(DemoStore.json)
        let api = api()
        try api.prepare()
        let before = try oldAnswer("trent")
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("trent"))).body), before)
        try outsideJournalGrant("trent")
        let after = try oldAnswer("trent")
        XCTAssertNotEqual(before, after)
        // Not from what the server read of the journal before: it grew since.
        XCTAssertNil(api.answerWithoutWaiting(get("trent")), "answered without the journal's new line")
        XCTAssertEqual(try JSON.parse(api.handle(get("trent")).body), after)
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("trent"))).body), after)
        // Read by alias too, and no scan of the store for any of it.
        XCTAssertEqual(try JSON.parse(api.handle(get("alice-android")).body)["customer"]?["id"], .string("alice"))
        XCTAssertEqual(api.served.scans, 1)
        // A fold by another program: the store file changes, its journal empties; same answers.
        _ = try LocalStore(path: path).compact()
        XCTAssertEqual(try JSON.parse(api.handle(get("trent")).body), after)
        try assertAnswersMatchTheOldPath(try LocalStore(path: path).customerIds().strings + ["alice-android"])
    }

    /// Waits (at most 10 s) until `condition` holds.
    private func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let giveUp = Date().addingTimeInterval(10)
        while Date() < giveUp {
            if try condition() { return true }
            usleep(5_000)
        }
        return try condition()
    }

    func testAnOutsideChangeIsNeverAnsweredFromThePreviousVersion() throws {
        try write(DemoStore.json)
        let api = api()
        try api.prepare()
        let before = try oldAnswer("trent")
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("trent"))).body), before)
        try outsideGrant("trent")
        let after = try oldAnswer("trent")
        XCTAssertNotEqual(before, after)
        // The event loop does not answer from the version it has: it is not the file on disk.
        XCTAssertNil(api.answerWithoutWaiting(get("trent")), "answered from the previous version")
        // The waiting path scans the new file and answers from it, the first time.
        XCTAssertEqual(try JSON.parse(api.handle(get("trent")).body), after)
        XCTAssertEqual(api.served.scans, 2)
        // Its records are checked aside, only the one that changed; then GETs are answered
        // without waiting again, from the new version.
        XCTAssertTrue(eventually { api.answerWithoutWaiting(get("trent")) != nil }, "the new version was never checked")
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("trent"))).body), after)
        XCTAssertEqual(api.served.recordsChecked, 1, "records that did not change were checked again")
        XCTAssertEqual(api.served.scans, 2)
        try assertAnswersMatchTheOldPath(try LocalStore(path: path).customerIds().strings + ["alice-android"])
    }

    func testRequestsWaitForTheScanOfANewFileNeverForTheOldAnswer() throws {
        try write(DemoStore.json)
        let api = api()
        try api.prepare()
        let hold = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        api.served.beforeIndexing = {
            started.signal()
            hold.wait()
        }
        try outsideGrant("trent")
        let after = try oldAnswer("trent")
        // Eight requests at once: one scans (held here), the others wait for its scan.
        let answers = Answers()
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) { answers.add(api.handle(self.get("trent"))) }
        }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "no scan started")
        usleep(100_000)
        XCTAssertEqual(answers.all.count, 0, "a request was answered while the new file was being scanned")
        XCTAssertNil(api.answerWithoutWaiting(get("trent")))
        hold.signal()
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        for answer in answers.all { XCTAssertEqual(try JSON.parse(answer.body), after) }
        XCTAssertEqual(api.served.scans, 2, "the waiting requests scanned again instead of waiting for the scan under way")
    }

    func testAProvisionalVersionChecksTheRecordsItReads() throws {
        try write(#"{"schemaVersion": 1, \#(Self.products), "customers": {"good": {}, "other": {}}}"#)
        let api = api()
        try api.prepare()
        let hold = DispatchSemaphore(value: 0)
        api.served.beforeChecking = { hold.wait() }
        defer { hold.signal() }
        // Another program writes a record that fails its check, and one with its own `id` member.
        try write(#"{"schemaVersion": 1, \#(Self.products), "customers": {"good": {"id": "x", "firstSeen": "2026-01-01T00:00:00Z"}, "bad": {"firstSeen": 7}, "other": {}}}"#)
        let good = api.handle(get("good"))
        XCTAssertEqual(good.status, 200)
        XCTAssertEqual(try JSON.parse(good.body), try oldAnswer("good"))
        XCTAssertEqual(try JSON.parse(api.handle(get("bad")).body)["error"]?["code"], .string("invalid_store"))
        XCTAssertEqual(api.handle(get("nobody")).status, 404)
        // While its records are being checked, the event loop leaves the version to the workers.
        XCTAssertNil(api.answerWithoutWaiting(get("good")))
        hold.signal()
        XCTAssertTrue(eventually { api.answerWithoutWaiting(get("good")) != nil })
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("good"))).body), try oldAnswer("good"))
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("bad"))).body)["error"]?["code"],
                       .string("invalid_store"))
        // The record that did not change kept its check; the two that did were checked.
        XCTAssertEqual(api.served.recordsChecked, 2)
    }

    /// The file of a version whose records are being checked is rewritten in place (truncated,
    /// then written: `cp backup.json store.json`): the check gives that version up, never reads
    /// past what is left, and the next request indexes what is there now.
    func testAVersionRewrittenInPlaceWhileItsRecordsAreCheckedIsGivenUp() throws {
        try write(DemoStore.json)
        let api = api()
        try api.prepare()
        let hold = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        api.served.beforeChecking = {
            held.signal()
            hold.wait()
        }
        try outsideGrant("trent")
        XCTAssertEqual(api.handle(get("trent")).status, 200)
        XCTAssertEqual(held.wait(timeout: .now() + 10), .success, "no check started")
        for shorter in [true, false] {
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: 0)
            let text = shorter ? #"{"schemaVersion": 1, \#(Self.products), "customers": {"trent": {}}}"#
                               : DemoStore.json.replacingOccurrences(of: "\"trent\": {", with: "\"trent2\": {")
            handle.write(Data(text.utf8))
            try handle.close()
            hold.signal()
            let answer = api.handle(get(shorter ? "trent" : "trent2"))
            XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
            XCTAssertEqual(try JSON.parse(answer.body), try oldAnswer(shorter ? "trent" : "trent2"))
            if shorter { XCTAssertEqual(held.wait(timeout: .now() + 10), .success, "the new version's check did not start") }
        }
        // The checks from here on are not held.
        for _ in 0..<20 { hold.signal() }
        XCTAssertTrue(eventually { api.answerWithoutWaiting(get("trent2")) != nil }, "the version on disk was never checked")
        XCTAssertEqual(api.answerWithoutWaiting(get("trent"))?.status, 404)
    }

    func testANewCatalogChecksEveryRecordAgain() throws {
        try write(#"{"schemaVersion": 1, \#(Self.products), "customers": {"a": {"grants": [{"id": "g", "entitlement": "gold", "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": null}]}, "b": {}}}"#)
        let api = api()
        try api.prepare()
        XCTAssertEqual(api.handle(get("a")).status, 200)
        // Same customers, byte for byte, under another catalog: every check is made again.
        try write(#"{"schemaVersion": 1, "products": {"pro": {"type": "subscription", "entitlements": ["gold"]}}, "customers": {"a": {"grants": [{"id": "g", "entitlement": "gold", "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": null}]}, "b": {}}}"#)
        XCTAssertEqual(api.handle(get("a")).status, 200)
        XCTAssertTrue(eventually { api.answerWithoutWaiting(get("b")) != nil })
        XCTAssertEqual(api.served.recordsChecked, 2)
    }

    func testTheServersOwnWriteAfterAnOutsideOneIsSeenWithIt() throws {
        for store in [DemoStore.json, DemoStore.json.replacingOccurrences(of: "\n", with: "\r\n")] {
            try write(store)
            let api = api()
            try api.prepare()
            try outsideGrant("trent")
            // The server's POST reads the file as it is now (under the lock) and writes over it.
            XCTAssertEqual(api.handle(grant("trent")).status, 201)
            XCTAssertEqual(api.handle(grant("bob")).status, 201)
            for answer in [api.handle(get("trent")), api.answerWithoutWaiting(get("trent"))].compactMap({ $0 }) {
                let grants = try JSON.parse(answer.body)["customer"]?["grants"]?.arrayValue ?? []
                XCTAssertEqual(grants.count, 2, "the outside grant and the server's own")
                XCTAssertEqual(grants.first?["reason"], .string("outside"))
            }
            XCTAssertEqual(try JSON.parse(api.handle(get("bob")).body), try oldAnswer("bob"))
            try assertAnswersMatchTheOldPath(try LocalStore(path: path).customerIds().strings)
        }
    }

    func testAStoreThatIsNoRegularFileOrIsGoneIsLeftToTheWaitingPath() throws {
        try write(DemoStore.json)
        let api = api()
        try api.prepare()
        XCTAssertEqual(api.answerWithoutWaiting(get("alice"))?.status, 200)
        try FileManager.default.removeItem(atPath: path)
        XCTAssertNil(api.answerWithoutWaiting(get("alice")), "answered from a store that is gone")
        XCTAssertEqual(api.handle(get("alice")).status, 500)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        XCTAssertNil(api.answerWithoutWaiting(get("alice")))
        try FileManager.default.removeItem(atPath: path)
        // A new file that cannot be served: said once its scan failed, then without a scan.
        try write("{ not json")
        _ = api.answerWithoutWaiting(get("alice"))
        XCTAssertEqual(api.handle(get("alice")).status, 500)
        let scans = api.served.scans
        XCTAssertNil(api.answerWithoutWaiting(get("alice")))
        XCTAssertEqual(try JSON.parse(api.handle(get("alice")).body)["error"]?["code"], .string("invalid_store"))
        XCTAssertEqual(api.served.scans, scans)
    }

    func testPostsAndUnknownRoutesAreNotAnsweredWithoutWaitingButRefusalsAre() throws {
        try write(DemoStore.json)
        let api = SubsAPI(store: LocalStore(path: path), token: "secret", clock: FixedClock(now))
        try api.prepare()
        XCTAssertEqual(api.answerWithoutWaiting(get("alice"))?.status, 401)
        let authorized = HTTPRequest(method: "GET", target: "/v1/customers/alice",
                                     headers: HTTPHeaders([("Authorization", "Bearer secret")]))
        XCTAssertEqual(api.answerWithoutWaiting(authorized)?.status, 200)
        XCTAssertEqual(api.answerWithoutWaiting(HTTPRequest(method: "GET", target: "/v1/health"))?.status, 200)
        let post = HTTPRequest(method: "POST", target: "/v1/customers/alice/grants",
                               headers: HTTPHeaders([("Authorization", "Bearer secret")]), body: Array("{}".utf8))
        XCTAssertNil(api.answerWithoutWaiting(post))
        XCTAssertEqual(api.answerWithoutWaiting(HTTPRequest(method: "DELETE", target: "/v1/customers/alice",
                                                            headers: HTTPHeaders([("Authorization", "Bearer secret")])))?.status, 405)
    }
}

/// Answers collected from several threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [HTTPResponse] = []
    func add(_ answer: HTTPResponse) { lock.withLock { answers.append(answer) } }
    var all: [HTTPResponse] { lock.withLock { answers } }
}
