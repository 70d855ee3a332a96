// The subs REST API's routes over a store, called without sockets: answers, error bodies, the
// bearer token, and Idempotency-Key replays.

import XCTest
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsRemote
@testable import SubsServer

final class SubsAPITests: XCTestCase {
    private var dir: TempDir!
    private var path = ""
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!

    override func setUp() {
        dir = TempDir()
        path = dir.write("store.json", DemoStore.json)
    }

    override func tearDown() { dir = nil }

    private func api(token: String? = nil) -> SubsAPI {
        SubsAPI(store: LocalStore(path: path), token: token, clock: FixedClock(now))
    }

    private func request(_ method: String, _ target: String, body: String = "", headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: HTTPHeaders(headers), body: Array(body.utf8))
    }

    private func json(_ response: HTTPResponse) throws -> JSONValue { try JSON.parse(response.body) }

    func testGetAnswersTheStoredRecordAndTheCatalogByIdOrAlias() throws {
        for target in ["/v1/customers/alice", "/v1/customers/alice-android", "/v1/customers/%24anon%3A8d1f"] {
            let answer = api().handle(request("GET", target))
            XCTAssertEqual(answer.status, 200, target)
            let doc = try json(answer)
            XCTAssertEqual(doc.objectValue?.keys, ["requestDate", "customer", "products"])
            XCTAssertEqual(doc["requestDate"], .string("2026-12-01T12:00:00Z"))
            XCTAssertEqual(doc["customer"]?["id"], .string("alice"))
            // Unknown fields of the record come through as stored.
            XCTAssertNotNil(doc["customer"]?["crm"], target)
            XCTAssertNotNil(doc["products"]?["pro_monthly"])
        }
    }

    func testErrorsHaveTheSpecsCodes() throws {
        let cases: [(HTTPRequest, Int, String)] = [
            (request("GET", "/v1/customers/nobody"), 404, "customer_not_found"),
            (request("GET", "/v1/nothing"), 404, "not_found"),
            (request("DELETE", "/v1/customers/alice"), 405, "method_not_allowed"),
            (request("POST", "/v1/customers/alice/grants", body: "{"), 400, "invalid_request"),
            (request("POST", "/v1/customers/alice/grants", body: "[]"), 400, "invalid_request"),
            (request("POST", "/v1/customers/alice/grants", body: #"{"entitlement": 3}"#), 400, "invalid_request"),
            (request("POST", "/v1/customers/alice/grants", body: #"{"entitlement": "premium", "expirationDate": "10000-01-01T00:00:00Z"}"#), 400, "invalid_request"),
            (request("POST", "/v1/customers/alice/grants", body: #"{"entitlement": "premum", "expirationDate": null}"#), 404, "entitlement_not_found"),
            (request("POST", "/v1/customers/nobody/grants", body: #"{"entitlement": "premium", "expirationDate": null}"#), 404, "customer_not_found"),
            (request("POST", "/v1/customers/alice/entitlements/premium/revoke"), 404, "grant_not_found"),
            (request("POST", "/v1/customers/alice/grants", body: #"{"entitlement": "premium", "expirationDate": null, "reason": 7}"#), 400, "invalid_request"),
            (request("POST", "/v1/customers/alice/entitlements/premium/revoke", body: #"{"revokedBy": []}"#), 400, "invalid_request"),
        ]
        for (req, status, code) in cases {
            let answer = api().handle(req)
            XCTAssertEqual(answer.status, status, "\(req.method) \(req.target)")
            XCTAssertEqual(try json(answer)["error"]?["code"], .string(code), "\(req.method) \(req.target)")
        }
    }

    func testGrantThenRevokeThroughTheAPIWriteTheStore() throws {
        let grant = api().handle(request("POST", "/v1/customers/trent/grants",
                                         body: #"{"entitlement": "premium", "expirationDate": "2027-01-01T00:00:00Z", "reason": "goodwill", "grantedBy": "dana"}"#))
        XCTAssertEqual(grant.status, 201)
        let grants = try XCTUnwrap(try json(grant)["customer"]?["grants"]?.arrayValue)
        XCTAssertEqual(grants.last?["grantedBy"], .string("dana"))
        XCTAssertEqual(grants.last?["grantedAt"], .string("2026-12-01T12:00:00Z"))
        let record = try XCTUnwrap(try LocalStore(path: path).read(["trent"]).records.first ?? nil)
        XCTAssertEqual(record.grants.count, 1)
        let revoke = api().handle(request("POST", "/v1/customers/trent/entitlements/premium/revoke", body: #"{"reason": "test"}"#))
        XCTAssertEqual(revoke.status, 200)
        XCTAssertEqual(try LocalStore(path: path).read(["trent"]).records.first??.grants.first?.revokeReason, "test")
    }

    func testTheTokenIsRequiredAndComparedWhole() throws {
        let api = api(token: "s3cret")
        for header in [nil, "Bearer wrong", "Bearer s3cre", "Bearer s3cret2", "Basic s3cret", "s3cret"] {
            let answer = api.handle(request("GET", "/v1/customers/alice", headers: header.map { [("Authorization", $0)] } ?? []))
            XCTAssertEqual(answer.status, 401, header ?? "none")
            XCTAssertEqual(try json(answer)["error"]?["code"], .string("unauthorized"))
            XCTAssertFalse(String(decoding: answer.body, as: UTF8.self).contains("s3cret"))
        }
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/alice", headers: [("Authorization", "Bearer s3cret")])).status, 200)
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/alice", headers: [("authorization", "bearer s3cret")])).status, 200)
        // Health answers load balancers without a token.
        XCTAssertEqual(api.handle(request("GET", "/v1/health")).status, 200)
    }

    func testARepeatedIdempotencyKeyReturnsTheFirstAnswerWithoutWritingAgain() throws {
        let api = api()
        let body = #"{"entitlement": "premium", "expirationDate": null}"#
        let first = api.handle(request("POST", "/v1/customers/trent/grants", body: body, headers: [("Idempotency-Key", "k1")]))
        let again = api.handle(request("POST", "/v1/customers/trent/grants", body: body, headers: [("Idempotency-Key", "k1")]))
        XCTAssertEqual(first.status, 201)
        XCTAssertEqual(again.body, first.body)
        XCTAssertEqual(try LocalStore(path: path).read(["trent"]).records.first??.grants.count, 1)
        _ = api.handle(request("POST", "/v1/customers/trent/grants", body: body, headers: [("Idempotency-Key", "k2")]))
        XCTAssertEqual(try LocalStore(path: path).read(["trent"]).records.first??.grants.count, 2)
    }

    func testIdsWithSlashesDotsSpacesAndNonASCIIAreOneSegment() throws {
        let weird = ["a/b", "..", "with space", "ünï"]
        var store = try String(contentsOfFile: path, encoding: .utf8)
        for id in weird {
            let key = JSONWriter.compact(.string(id))
            store = store.replacingOccurrences(of: "\"customers\": {", with: "\"customers\": {\n    \(key): {},", options: [], range: store.range(of: "\"customers\": {"))
        }
        try store.write(toFile: path, atomically: true, encoding: .utf8)
        // A new store file: the journal of the one it replaces goes with it.
        try? FileManager.default.removeItem(atPath: path + ".journal")
        for id in weird {
            let encoded = id.utf8.map { b -> String in
                (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) ? String(UnicodeScalar(b)) : String(format: "%%%02X", b)
            }.joined()
            let answer = api().handle(request("GET", "/v1/customers/" + encoded))
            XCTAssertEqual(answer.status, 200, id)
            XCTAssertEqual(try json(answer)["customer"]?["id"], .string(id))
        }
    }

    func testAGetAfterAnOutsideWriteSeesIt() throws {
        let api = api()
        let before = try json(api.handle(request("GET", "/v1/customers/trent")))
        XCTAssertEqual(before["customer"]?["grants"], nil)
        // Another writer (say `subs grant` on the same file) renames a new version in.
        _ = try LocalStore(path: path).apply(.grant(entitlement: "premium", expirationDate: nil, reason: nil, actor: "x",
                                                   createMissing: false), to: ["trent"], now: now, dryRun: false)
        let after = try json(api.handle(request("GET", "/v1/customers/trent")))
        XCTAssertEqual(after["customer"]?["grants"]?.arrayValue?.count, 1)
        // Rewritten in place (same inode), e.g. `cp backup.json store.json` once the journal is
        // folded in (`subs store compact` before editing the store by hand): seen too.
        _ = try LocalStore(path: path).compact()
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        handle.write(Data(DemoStore.json.replacingOccurrences(of: "\"trent\": {", with: "\"trent2\": {").utf8))
        try handle.close()
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/trent")).status, 404)
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/trent2")).status, 200)
    }

    func testTheIndexAnswersEveryDemoCustomerByIdAndAlias() throws {
        let api = api()
        let ids = try LocalStore(path: path).customerIds()
        XCTAssertEqual(ids.count, 25)
        for id in ids {
            XCTAssertEqual(try json(api.handle(request("GET", "/v1/customers/" + RemoteURL.segment(id.string))))["customer"]?["id"],
                           .string(id.string), id.string)
        }
        XCTAssertEqual(try json(api.handle(request("GET", "/v1/customers/alice-android")))["customer"]?["id"], .string("alice"))
    }

    func testAGrantThroughTheServerAndALocalGrantAtTheSameMomentBothLand() throws {
        let api = api()
        let local = LocalStore(path: path)
        let rounds = 10
        for round in 0..<rounds {
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    let answer = api.handle(self.request("POST", "/v1/customers/trent/grants",
                                                         body: #"{"entitlement": "premium", "expirationDate": null, "reason": "server \#(round)"}"#))
                    XCTAssertEqual(answer.status, 201)
                } else {
                    do {
                        _ = try local.apply(.grant(entitlement: "premium", expirationDate: nil, reason: "local \(round)",
                                                   actor: nil, createMissing: false),
                                            to: ["trent"], now: self.now, dryRun: false)
                    } catch {
                        XCTFail("local grant: \(error)")
                    }
                }
            }
        }
        let grants = try XCTUnwrap(try local.read(["trent"]).records.first ?? nil).grants
        XCTAssertEqual(grants.count, 2 * rounds)
        XCTAssertEqual(Set(grants.compactMap(\.reason)).count, 2 * rounds)
    }
}

extension SubsAPITests {
    func testFiftyConcurrentGrantsAllLandInFewerRewritesEachWithItsOwnAnswer() throws {
        let api = api()
        let posts = 50
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let answers = Answers()
        // Every 10th request fails on its own (an unknown entitlement, a customer that does not
        // exist); the others must land regardless.
        @Sendable func target(_ i: Int) -> (String, String) {
            switch i % 10 {
            case 3: return ("/v1/customers/trent/grants", #"{"entitlement": "premiun", "expirationDate": null, "reason": "r\#(i)"}"#)
            case 7: return ("/v1/customers/nobody-\(i)/grants", #"{"entitlement": "premium", "expirationDate": null, "reason": "r\#(i)"}"#)
            default: return ("/v1/customers/\(["trent", "alice", "bob"][i % 3])/grants",
                             #"{"entitlement": "premium", "expirationDate": null, "reason": "r\#(i)"}"#)
            }
        }
        for i in 0..<posts {
            group.enter()
            Thread {
                gate.wait()
                let (path, body) = target(i)
                let answer = api.handle(self.request("POST", path, body: body))
                answers.put(i, answer)
                group.leave()
            }.start()
        }
        for _ in 0..<posts { gate.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        let all = answers.all
        for i in 0..<posts {
            let answer = try XCTUnwrap(all[i], "request \(i) has no answer")
            switch i % 10 {
            case 3: XCTAssertEqual(try json(answer)["error"]?["code"], .string("entitlement_not_found"))
            case 7: XCTAssertEqual(try json(answer)["error"]?["code"], .string("customer_not_found"))
            default:
                XCTAssertEqual(answer.status, 201, "request \(i): \(String(decoding: answer.body, as: UTF8.self))")
                // Each answer is the record as its own change left it, its grant included.
                guard case .array(let grants)? = try json(answer)["customer"]?["grants"] else {
                    XCTFail("request \(i): no grants in the answer"); continue
                }
                XCTAssertTrue(grants.contains { $0["reason"] == .string("r\(i)") }, "request \(i)")
            }
        }
        let records = try LocalStore(path: path).read(["trent", "alice", "bob"]).records.compactMap { $0 }
        let reasons = Set(records.flatMap(\.grants).compactMap(\.reason))
        let landed = Set((0..<posts).filter { $0 % 10 != 3 && $0 % 10 != 7 }.map { "r\($0)" })
        XCTAssertTrue(landed.isSubset(of: reasons), "missing: \(landed.subtracting(reasons).sorted())")
        XCTAssertTrue(reasons.intersection(["r3", "r7", "r13", "r17"]).isEmpty)
        XCTAssertLessThan(api.commits.batches, posts / 2, "the waiting POSTs share rewrites")
    }
}

/// Answers collected from several threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var byRequest: [Int: HTTPResponse] = [:]
    func put(_ i: Int, _ answer: HTTPResponse) { lock.withLock { byRequest[i] = answer } }
    var all: [Int: HTTPResponse] { lock.withLock { byRequest } }
}

extension SubsAPITests {
    func testTheSameIdempotencyKeySentTwiceAtOnceWritesOnce() throws {
        let api = api()
        let before = try XCTUnwrap(try LocalStore(path: path).read(["trent"]).records.first ?? nil).grants.count
        let answers = Answers()
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for i in 0..<8 {
            group.enter()
            Thread {
                gate.wait()
                let answer = api.handle(self.request("POST", "/v1/customers/trent/grants",
                                                     body: #"{"entitlement": "premium", "expirationDate": null, "reason": "once"}"#,
                                                     headers: [("Idempotency-Key", "same-key")]))
                answers.put(i, answer)
                group.leave()
            }.start()
        }
        for _ in 0..<8 { gate.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        let all = answers.all
        XCTAssertEqual(Set(all.values.map(\.status)), [201])
        XCTAssertEqual(Set(all.values.map(\.body)).count, 1, "every repeat gets the first answer")
        let after = try XCTUnwrap(try LocalStore(path: path).read(["trent"]).records.first ?? nil).grants.count
        XCTAssertEqual(after, before + 1, "one grant for one key")
    }
}

extension SubsAPITests {
    func testAStoreTruncatedUnderTheServerIsAnErrorAnswerAndServingGoesOnOnceItIsWhole() throws {
        let api = api()
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/trent")).status, 200)
        // Cut in place (same inode): the changed size sends the next lookup to a rescan, which
        // finds a document that ends early; the answer names the store, the server goes on.
        for size in [0, 10, 2000] {
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
            let answer = api.handle(request("GET", "/v1/customers/trent"))
            XCTAssertEqual(answer.status, 500, "truncated to \(size)")
            let message = try XCTUnwrap(try json(answer)["error"]?["message"]?.stringValue)
            XCTAssertTrue(message.contains(path), message)
        }
        try DemoStore.json.write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/trent")).status, 200)
    }
}
