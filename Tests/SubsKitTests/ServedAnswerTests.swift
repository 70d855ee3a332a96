// GET answers spliced from the store's bytes (issue 26): the same document as the answer the
// server used to build from decoded values, whatever the store's formatting; the index follows
// the server's own writes without a scan; a change by another program is indexed on another
// thread while GETs answered without waiting come from the previous version.

import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsKit
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

    func testAnOutsideChangeIsIndexedAsideWhileGetsAnswerFromThePreviousVersion() throws {
        try write(DemoStore.json)
        let api = api()
        try api.prepare()
        let hold = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        api.served.beforeReindex = {
            started.signal()
            hold.wait()
        }
        let before = try oldAnswer("trent")
        // Another program (`subs grant` beside the server) renames a new version in.
        _ = try LocalStore(path: path).apply(.grant(entitlement: "premium", expirationDate: nil, reason: nil, actor: "x",
                                                   createMissing: false), to: ["trent"], now: now, dryRun: false)
        let after = try oldAnswer("trent")
        XCTAssertNotEqual(before, after)
        XCTAssertEqual(try JSON.parse(try XCTUnwrap(api.answerWithoutWaiting(get("trent"))).body), before)
        XCTAssertEqual(started.wait(timeout: .now() + 5), .success, "no re-index started")
        // While the new version is scanned, every answer is the previous version's, whole.
        for _ in 0..<20 {
            let answer = try XCTUnwrap(api.answerWithoutWaiting(get("trent")), "a GET waited for the scan")
            XCTAssertEqual(try JSON.parse(answer.body), before)
        }
        XCTAssertEqual(api.served.scans, 1)
        hold.signal()
        let giveUp = Date().addingTimeInterval(10)
        var seen: JSONValue?
        while Date() < giveUp {
            seen = try api.answerWithoutWaiting(get("trent")).map { try JSON.parse($0.body) }
            if seen == after { break }
            usleep(10_000)
        }
        XCTAssertEqual(seen, after, "the outside change was never picked up")
        XCTAssertEqual(api.served.scans, 2)
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
