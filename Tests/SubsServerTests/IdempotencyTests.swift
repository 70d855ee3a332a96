// Idempotency-Key on the subs REST API: a key is bound to its first request (method, action,
// customer in any spelling, body digest) — a repeat is replayed, anything else is 422 — and the
// table that keeps the answers is bounded in bytes, evicting oldest first.

import XCTest
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsServer

final class IdempotencyTests: XCTestCase {
    private var dir: TempDir!
    private var path = ""
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!
    private let lifetime = #"{"entitlement": "premium", "expirationDate": null}"#

    override func setUp() {
        dir = TempDir()
        path = dir.write("store.json", DemoStore.json)
    }

    override func tearDown() { dir = nil }

    private func api(clock: (any Clock)? = nil, budget: Int = SubsAPI.replayBudget) -> SubsAPI {
        SubsAPI(store: LocalStore(path: path), token: nil, clock: clock ?? FixedClock(now), replayBudget: budget)
    }

    private func post(_ target: String, _ body: String, key: String?) -> HTTPRequest {
        HTTPRequest(method: "POST", target: target, headers: HTTPHeaders(key.map { [("Idempotency-Key", $0)] } ?? []),
                    body: Array(body.utf8))
    }

    private func grants(_ id: ID) throws -> Int {
        try XCTUnwrap(try LocalStore(path: path).read([id]).records.first ?? nil).grants.count
    }

    private func code(_ answer: HTTPResponse) -> String? { try? JSON.parse(answer.body)["error"]?["code"]?.stringValue }

    // MARK: binding the key to its request

    func testTheSameKeyWithAnotherBodyIs422AndWritesNothing() throws {
        let api = api()
        let first = api.handle(post("/v1/customers/trent/grants", lifetime, key: "k"))
        XCTAssertEqual(first.status, 201)
        let before = try grants("trent")
        let bodies = [
            #"{"entitlement": "premium", "expirationDate": "2027-01-01T00:00:00Z"}"#,
            #"{"entitlement": "family", "expirationDate": null}"#,
            lifetime + " ",   // other bytes: the digest is of the body as sent
            "",
        ]
        for body in bodies {
            let answer = api.handle(post("/v1/customers/trent/grants", body, key: "k"))
            XCTAssertEqual(answer.status, 422, body)
            XCTAssertEqual(code(answer), "idempotency_key_reused", body)
            let doc = try JSON.parse(answer.body)
            XCTAssertEqual(doc.objectValue?.keys, ["error"])
            XCTAssertEqual(doc["error"]?.objectValue?.keys, ["code", "message"])
        }
        XCTAssertEqual(try grants("trent"), before, "a reused key wrote")
    }

    func testTheSameKeyForAnotherCustomerOrActionIs422() throws {
        let api = api()
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", lifetime, key: "k")).status, 201)
        let bob = try grants("bob"), trent = try grants("trent")
        let others = [
            post("/v1/customers/bob/grants", lifetime, key: "k"),
            post("/v1/customers/trent/entitlements/premium/revoke", lifetime, key: "k"),
        ]
        for request in others {
            let answer = api.handle(request)
            XCTAssertEqual(answer.status, 422, request.target)
            XCTAssertEqual(code(answer), "idempotency_key_reused")
        }
        XCTAssertEqual(try grants("bob"), bob)
        XCTAssertEqual(try grants("trent"), trent)
        // Two revokes of different entitlements with one key: the second is not the first's replay.
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", #"{"entitlement": "family", "expirationDate": null}"#, key: "p")).status, 201)
        XCTAssertEqual(api.handle(post("/v1/customers/trent/entitlements/premium/revoke", "{}", key: "r")).status, 200)
        let other = api.handle(post("/v1/customers/trent/entitlements/family/revoke", "{}", key: "r"))
        XCTAssertEqual(code(other), "idempotency_key_reused")
    }

    func testAnySpellingOfTheCustomerIsTheSameRequest() throws {
        let api = api()
        let first = api.handle(post("/v1/customers/alice/grants", lifetime, key: "k"))
        XCTAssertEqual(first.status, 201)
        let before = try grants("alice")
        // Percent-encoded letters, an alias, an encoded alias: one customer, one grant.
        for target in ["/v1/customers/%61lice/grants", "/v1/customers/%61%6C%69%63%65/grants",
                       "/v1/customers/alice-android/grants", "/v1/customers/%24anon%3A8d1f/grants"] {
            let again = api.handle(post(target, lifetime, key: "k"))
            XCTAssertEqual(again.status, 201, target)
            XCTAssertEqual(again.body, first.body, target)
            XCTAssertTrue(again.headers.contains { $0 == ("Idempotent-Replayed", "true") }, target)
        }
        XCTAssertEqual(try grants("alice"), before)
        // First through an alias, then by id.
        let viaAlias = api.handle(post("/v1/customers/alice-android/grants", lifetime, key: "k2"))
        XCTAssertEqual(viaAlias.status, 201)
        XCTAssertEqual(api.handle(post("/v1/customers/alice/grants", lifetime, key: "k2")).body, viaAlias.body)
        XCTAssertEqual(try grants("alice"), before + 1)
    }

    func testAnErrorAnswerIsReplayedToAnySpellingToo() throws {
        let api = api()
        let body = #"{"entitlement": "premum", "expirationDate": null}"#
        let first = api.handle(post("/v1/customers/alice-android/grants", body, key: "e"))
        XCTAssertEqual(code(first), "entitlement_not_found")
        XCTAssertEqual(api.handle(post("/v1/customers/alice/grants", body, key: "e")).body, first.body)
        XCTAssertEqual(code(api.handle(post("/v1/customers/bob/grants", body, key: "e"))), "idempotency_key_reused")
    }

    func testSpellingsOfOneCustomerInFlightTogetherWriteOnce() throws {
        let api = api()
        let before = try grants("alice")
        let targets = ["/v1/customers/alice/grants", "/v1/customers/%61lice/grants", "/v1/customers/alice-android/grants",
                       "/v1/customers/%24anon%3A8d1f/grants"]
        let answers = LockedAnswers()
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for i in 0..<12 {
            group.enter()
            Thread {
                gate.wait()
                answers.put(i, api.handle(self.post(targets[i % targets.count], self.lifetime, key: "same")))
                group.leave()
            }.start()
        }
        for _ in 0..<12 { gate.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(Set(answers.all.values.map(\.status)), [201])
        XCTAssertEqual(Set(answers.all.values.map(\.body)).count, 1)
        XCTAssertEqual(try grants("alice"), before + 1, "spellings of one customer wrote more than once")
    }

    func testAnotherRequestInFlightWithTheKeyWaitsThen422() throws {
        let api = api()
        let before = try grants("trent")
        let answers = LockedAnswers()
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for i in 0..<8 {
            group.enter()
            Thread {
                gate.wait()
                let body = #"{"entitlement": "premium", "expirationDate": null, "reason": "r\#(i % 2)"}"#
                answers.put(i, api.handle(self.post("/v1/customers/trent/grants", body, key: "mixed")))
                group.leave()
            }.start()
        }
        for _ in 0..<8 { gate.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        let statuses = answers.all.values.map(\.status)
        XCTAssertEqual(statuses.filter { $0 == 201 }.count, 4, "\(statuses)")
        XCTAssertEqual(statuses.filter { $0 == 422 }.count, 4, "\(statuses)")
        XCTAssertEqual(try grants("trent"), before + 1)
    }

    func testAKeyIsForgottenAfterTwentyFourHoursAndAServerErrorIsNotKept() throws {
        let clock = SettableClock(now)
        let api = api(clock: clock)
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", lifetime, key: "day")).status, 201)
        clock.advance(24 * 3600 - 1)
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", lifetime + " ", key: "day")).status, 422)
        clock.advance(1)
        let before = try grants("trent")
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", lifetime + " ", key: "day")).status, 201)
        XCTAssertEqual(try grants("trent"), before + 1)
        // A 500 (the store unreadable for a moment) is not the answer a retry gets.
        let saved = dir.path + "/saved.json"
        XCTAssertEqual(rename(path, saved), 0)
        XCTAssertEqual(mkdir(path, 0o700), 0)
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", lifetime, key: "retry")).status, 500)
        XCTAssertEqual(rmdir(path), 0)
        XCTAssertEqual(rename(saved, path), 0)
        XCTAssertEqual(api.handle(post("/v1/customers/trent/grants", lifetime, key: "retry")).status, 201)
    }

    // MARK: the table's byte bound

    func testTheTableStaysUnderItsByteBoundEvictingOldestFirst() {
        // Answers that grow like a customer's record under 1 200 grants, 10 000 times.
        let budget = 4 << 20
        let table = IdempotencyTable(budget: budget, exactLimit: 64 << 10, window: 24 * 3600)
        var largest = 0
        for i in 0..<10_000 {
            let size = 300 + (i % 1200) * 150
            let answer = HTTPResponse(status: 201, headers: [("Content-Type", "application/json")],
                                      body: [UInt8](repeating: 0x61, count: size))
            guard case .run = table.claim(Array("key-\(i)".utf8), now: now) else { return XCTFail("key-\(i) was known") }
            let fingerprint = RequestFingerprint(method: "POST", action: ["grants"], customer: "c\(i % 7)", body: Array("\(i)".utf8))
            table.finish(Array("key-\(i)".utf8), fingerprint, canonical: "c\(i % 7)", answer: answer, now: now)
            XCTAssertLessThanOrEqual(table.bytes, budget)
            if i > 100 { XCTAssertGreaterThan(table.count, 20, "the table was emptied at \(i)") }
            largest = max(largest, table.count)
        }
        // What is left is the newest keys, without a gap: the oldest went first.
        let kept = table.count
        XCTAssertGreaterThanOrEqual(kept, budget / ((64 << 10) + IdempotencyTable.entryOverhead + 100))
        for i in (10_000 - kept)..<10_000 {
            guard case .stored = table.claim(Array("key-\(i)".utf8), now: now) else { return XCTFail("key-\(i) (recent) was evicted") }
        }
        guard case .run = table.claim(Array("key-\(10_000 - kept - 1)".utf8), now: now) else { return XCTFail("an old key outlived newer ones") }
        // Large answers are kept as a reference: many more keys fit than whole answers would.
        XCTAssertGreaterThan(largest, budget / (64 << 10))
    }

    func testTenThousandPostsWithKeysKeepTheAPIsTableUnderItsBound() throws {
        let budget = 256 << 10
        let api = api(budget: budget)
        var peak = 0
        for i in 0..<10_000 {
            // Every 100th a real grant (an answer that grows with alice's grants); the others are
            // refused before any write (and their refusals are answers a retry must get too).
            let answer: HTTPResponse
            if i % 100 == 0 {
                answer = api.handle(post("/v1/customers/alice/grants", #"{"entitlement": "premium", "expirationDate": null, "reason": "\#(i)"}"#, key: "key-\(i)"))
                XCTAssertEqual(answer.status, 201)
            } else {
                answer = api.handle(post("/v1/customers/alice/grants", #"{"entitlement": 1, "reason": "\#(i)"}"#, key: "key-\(i)"))
                XCTAssertEqual(answer.status, 400)
            }
            peak = max(peak, api.replays.bytes)
        }
        XCTAssertLessThanOrEqual(peak, budget)
        XCTAssertGreaterThan(api.replays.count, 100)
        // The newest are replayed, the oldest forgotten.
        let again = api.handle(post("/v1/customers/alice/grants", #"{"entitlement": "premium", "expirationDate": null, "reason": "9900"}"#, key: "key-9900"))
        XCTAssertTrue(again.headers.contains { $0 == ("Idempotent-Replayed", "true") })
        let before = try grants("alice")
        let old = api.handle(post("/v1/customers/alice/grants", #"{"entitlement": "premium", "expirationDate": null, "reason": "0"}"#, key: "key-0"))
        XCTAssertFalse(old.headers.contains { $0.0 == "Idempotent-Replayed" })
        XCTAssertEqual(try grants("alice"), before + 1)
    }

    func testALargeAnswerIsKeptAsAReferenceAndReplayedFromTheStore() throws {
        // alice's record made larger than what is kept whole.
        let note = String(repeating: "n", count: 80_000)
        try DemoStore.json.replacingOccurrences(of: #""alice": {"#, with: #""alice": {"note": "\#(note)","#)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let api = api()
        let first = api.handle(post("/v1/customers/alice/grants", lifetime, key: "big"))
        XCTAssertEqual(first.status, 201)
        XCTAssertLessThan(api.replays.bytes, 4096, "a large answer was kept whole")
        let again = api.handle(post("/v1/customers/alice-android/grants", lifetime, key: "big"))
        XCTAssertEqual(again.status, 201)
        XCTAssertEqual(again.body, first.body, "nothing changed meanwhile: the same answer")
    }
}

private final class LockedAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var byIndex: [Int: HTTPResponse] = [:]
    func put(_ i: Int, _ answer: HTTPResponse) { lock.withLock { byIndex[i] = answer } }
    var all: [Int: HTTPResponse] { lock.withLock { byIndex } }
}

private final class SettableClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Instant
    init(_ instant: Instant) { self.instant = instant }
    func now() -> Instant { lock.withLock { instant } }
    func advance(_ seconds: Int64) { lock.withLock { instant = Instant(seconds: instant.seconds + seconds) } }
}
