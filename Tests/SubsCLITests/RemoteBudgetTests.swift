// Issue 29, items 3 to 5 (SPEC section 7 rev. 4, "Budgets"): one --timeout for the whole remote
// command, per provider, against answers that come slowly; the byte bound of what a command
// holds; the bounded cache. Each provider's fake answers through a transport that waits before
// each request as a slow server would (never longer than the time the request is given), and
// the wall time of each command is measured against --timeout plus a small constant.

import Foundation
import XCTest
import SubsJSON
@testable import SubsCLI
@testable import SubsHTTP
@testable import SubsKit

/// A server that takes `delay` seconds before each answer: the request waits that long, or
/// times out when it is given less.
struct SlowTransport: HTTPTransport {
    let inner: HTTPTransport
    let delay: Double

    func send(_ request: RemoteRequest) throws -> RemoteResponse {
        guard delay < request.timeout else {
            RemoteClient.sleepSeconds(max(0, request.timeout))
            throw TransportError.timedOut
        }
        RemoteClient.sleepSeconds(delay)
        var shorter = request
        shorter.timeout = request.timeout - delay
        return try inner.send(shorter)
    }
}

/// Answers each request with `answer` and keeps what was sent (one test's thread uses it).
final class AnsweringTransport: HTTPTransport, @unchecked Sendable {
    private(set) var sent: [RemoteRequest] = []
    private let answer: (RemoteRequest) -> RemoteResponse

    init(_ answer: @escaping (RemoteRequest) -> RemoteResponse) { self.answer = answer }

    func send(_ request: RemoteRequest) throws -> RemoteResponse {
        sent.append(request)
        return answer(request)
    }
}

final class RemoteBudgetTests: XCTestCase {
    /// What a command may take beyond --timeout: the time to say what did not fit.
    static let slack = 1.0

    private func timed(_ body: () throws -> CLIResult) rethrows -> (CLIResult, Double) {
        let start = Date()
        let result = try body()
        return (result, Date().timeIntervalSince(start))
    }

    private func errors(_ document: JSONValue) -> [String?] {
        (document.arrayValue ?? []).map { $0["error"]?["code"]?.stringValue }
    }

    // MARK: RevenueCat API v2: one list of transactions per subscription

    func testRevenueCatV2HistoryOfThirtySubscriptionsEndsWithinOneTimeout() throws {
        typealias F = FakeRevenueCatV2
        let rc = try FakeRevenueCatV2()
        defer { rc.stop() }
        let dir = TempDir()
        let subscriptions = (0..<30).map { i in
            F.subscription("sub_\(i)", customer: "many", product: "prod_\(i)", store: "app_store", starts: "2026-09-15T09:00:00Z",
                           periodStarts: "2026-11-15T09:00:00Z", periodEnds: "2026-12-15T09:00:00Z", givesAccess: true,
                           renewal: "will_renew", status: "active", entitlements: [("entl_premium", "premium")], storeId: "tx\(i)")
        }
        rc.customers["many"] = .init(body: F.customer("many", active: [("entl_premium", "2026-12-15T09:00:00Z")]),
                                     subscriptions: subscriptions)
        for i in 0..<30 {
            rc.transactions["sub_\(i)"] = [F.transaction("tx\(i)", at: "2026-11-15T09:00:00Z", product: "pro", expires: "2026-12-15T09:00:00Z")]
        }
        rc.pageSize = 100
        let (result, seconds) = timed {
            runCLI(["--remote", rc.base, "--provider", "revenuecat", "--timeout", "2", "history", "many", "--json"],
                   env: ["SUBS_API_KEY": F.key, "XDG_CACHE_HOME": dir.path + "/cache"],
                   http: SlowTransport(inner: CurlTransport(), delay: 0.3))
        }
        XCTAssertLessThan(seconds, 2 + Self.slack, result.stderr)
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["complete"], .bool(false))
        let reason = try XCTUnwrap(doc["incompleteReason"]?.stringValue)
        XCTAssertTrue(reason.contains("subscriptions were not read: the --timeout of 2 s was spent"), reason)
        // Not one transactions list per subscription: the budget stopped them.
        XCTAssertLessThan(rc.paths.filter { $0.contains("/transactions") }.count, 10)
    }

    // MARK: Qonversion API v4: identity, entitlements and purchases share the budget

    func testQonversionV4StepsShareOneBudgetAndTheHistorySaysWhatDidNotFit() throws {
        typealias F = QonversionV4FakeAPI
        let api = try QonversionV4FakeAPI()
        defer { api.stop() }
        let dir = TempDir()
        api.set { api in
            api.identities = ["alice": "QON_alice"]
            api.entitlements["QON_alice"] = [F.entitlement("premium", product: "pro_monthly")]
            api.purchases["QON_alice"] = (0..<30).map { i in
                F.purchase("p\(i)", product: "pro_monthly", at: "2026-01-10T09:00:00Z", expires: "2026-02-10T09:00:00Z",
                           store: [("transaction_id", .string("t\(i)")), ("original_transaction_id", .string("t0"))])
            }
        }
        let (result, seconds) = timed {
            runQonversion(["--timeout", "1.5", "history", "alice", "--json"], remote: api.base, key: F.secretKey,
                          cache: dir.path + "/cache", transport: SlowTransport(inner: CurlTransport(), delay: 0.4))
        }
        XCTAssertLessThan(seconds, 1.5 + Self.slack, result.stderr)
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["complete"], .bool(false))
        let reason = try XCTUnwrap(doc["incompleteReason"]?.stringValue)
        XCTAssertTrue(reason.contains("the --timeout of 1.5 s was spent"), reason)
        // The purchases read before the budget ran out are shown, no more.
        XCTAssertLessThan(doc["entries"]?.arrayValue?.count ?? 99, 30)
        // A listing that did not reach its end keeps none of its pages in the cache.
        let cached = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/cache/subs").filter { $0.hasSuffix(".entry") }
        XCTAssertEqual(cached.count, 2, "the identity and the entitlements only")
    }

    func testQonversionV4ByteBoundStopsTheListingAndSaysSo() throws {
        typealias F = QonversionV4FakeAPI
        let api = try QonversionV4FakeAPI()
        defer { api.stop() }
        let dir = TempDir()
        api.set { api in
            api.identities = ["alice": "QON_alice"]
            api.entitlements["QON_alice"] = [F.entitlement("premium", product: "pro_monthly")]
            api.purchases["QON_alice"] = (0..<60).map { i in
                F.purchase("p\(i)", product: "pro_monthly", at: "2026-01-10T09:00:00Z", expires: "2026-02-10T09:00:00Z",
                           store: [("transaction_id", .string("t\(i)")), ("original_transaction_id", .string("t0"))])
            }
        }
        let result = runQonversion(["history", "alice", "--json"], remote: api.base, key: F.secretKey, cache: dir.path + "/cache",
                                   env: ["SUBS_TEST_ANSWER_BYTES": "8K"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["complete"], .bool(false))
        let reason = try XCTUnwrap(doc["incompleteReason"]?.stringValue)
        XCTAssertTrue(reason.contains("the command's remote answers reached the 8 KiB subs holds of them"), reason)
        let shown = doc["entries"]?.arrayValue?.count ?? 0
        XCTAssertGreaterThan(shown, 0)
        XCTAssertLessThan(shown, 60)
        XCTAssertTrue(result.stderr.contains("incomplete history"), result.stderr)
    }

    // MARK: Qonversion API v3, RevenueCat API v1, IAPHUB: batches answer those reached

    func testQonversionV3BatchAnswersThoseReachedAndTheOthersAreTimeouts() throws {
        let api = try QonversionFakeAPI()
        defer { api.stop() }
        let dir = TempDir()
        let ids = (1...8).map { "QON_\($0)" }
        for id in ids { api.setUser(id, []) }
        let (result, seconds) = timed {
            CLIHarness(env: ["SUBS_API_KEY": QonversionFakeAPI.projectKey, "XDG_CACHE_HOME": dir.path + "/cache"],
                       stdin: ids.joined(separator: "\n"),
                       http: SlowTransport(inner: PinnedDateTransport(inner: CurlTransport(), mode: .set(qonversionDate)), delay: 0.3))
                .run(["--remote", api.base, "--provider", "qonversion", "--timeout", "1", "check", "-", "--json"])
        }
        XCTAssertLessThan(seconds, 1 + Self.slack, result.stderr)
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        let codes = errors(try JSON.parse(result.stdout))
        XCTAssertEqual(codes.count, 8)
        XCTAssertTrue(codes.first! == nil, "the first customer is answered")
        XCTAssertTrue(codes.last! == "timeout", "the last is a timeout")
        XCTAssertEqual(result.stderr.components(separatedBy: "subs: error:").count - 1, 1, "one line for all of them")
        XCTAssertTrue(result.stderr.contains("customers not answered ('QON_"), result.stderr)
    }

    func testRevenueCatV1BatchCheckAndRequireNeverPassOnACustomerNotRead() throws {
        let body = try String(contentsOfFile: Repo.path("Tests/Fixtures/revenuecat/lifetime.json"), encoding: .utf8)
        let fake = InProcessTransport { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        }
        let ids = (1...10).map { "user\($0)" }
        let (result, seconds) = timed {
            CLIHarness(env: ["SUBS_API_KEY": "sk_test", "XDG_CACHE_HOME": TempDir().path], stdin: ids.joined(separator: "\n"),
                       http: SlowTransport(inner: fake, delay: 0.25))
                .run(["--provider", "revenuecat", "--timeout", "1", "check", "-", "--require", "premium", "--format", "tsv"])
        }
        XCTAssertLessThan(seconds, 1 + Self.slack)
        // 69, not 0: a gate never passes on customers that were not read.
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        let rows = result.stdout.split(separator: "\n").dropFirst()
        XCTAssertTrue(rows.contains { $0.hasSuffix("\ttimeout") }, result.stdout)
        XCTAssertTrue(rows.contains { !$0.hasSuffix("\ttimeout") }, result.stdout)
    }

    func testIAPHUBRenewCountBatchSharesTheBudget() throws {
        let server = try IAPHUBTestServer()
        defer { server.stop() }
        let dir = TempDir()
        let (result, seconds) = timed {
            CLIHarness(env: ["SUBS_API_KEY": IAPHUBTestServer.key, "XDG_CACHE_HOME": dir.path + "/cache"],
                       stdin: Array(repeating: "active-renewing", count: 6).joined(separator: "\n"),
                       http: SlowTransport(inner: CurlTransport(), delay: 0.2))
                .run(["--provider", "iaphub", "--remote", server.base, "--timeout", "1.2", "renew-count", "-", "--json"])
        }
        XCTAssertLessThan(seconds, 1.2 + Self.slack, result.stderr)
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc.arrayValue?.count, 6)
        XCTAssertEqual(doc.arrayValue?.first?["customerId"], .string("active-renewing"))
        XCTAssertEqual(errors(doc).last!, "timeout")
    }

    // MARK: subs serve: the batch and find

    func testSubsServeBatchAndFindEndWithinTheTimeout() throws {
        let dir = TempDir()
        defer { withExtendedLifetime(dir) {} }
        let store = dir.write("store.json", DemoStore.json)
        let server = try LoopbackSubsServer(store: store, token: "t0ken", onRequest: { RemoteClient.sleepSeconds(0.2) })
        defer { server.stop() }
        let env = ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"]
        let ids = Array(repeating: "alice", count: 12)
        let (check, checkSeconds) = timed {
            CLIHarness(env: env, stdin: ids.joined(separator: "\n")).run(["--remote", server.base, "--timeout", "1", "check", "-", "--json"])
        }
        XCTAssertLessThan(checkSeconds, 1 + Self.slack, check.stderr)
        XCTAssertEqual(check.status, .unavailable, check.stderr)
        let codes = errors(try JSON.parse(check.stdout))
        XCTAssertEqual(codes.count, 12)
        XCTAssertNil(codes[0] ?? nil)
        XCTAssertEqual(codes[11], "timeout")
        // find: one request per term, whose answer carries what the find table shows (issue 29):
        // it fits in the budget…
        let (find, findSeconds) = timed {
            CLIHarness(env: env.merging(["XDG_CACHE_HOME": dir.path + "/cache2"]) { $1 })
                .run(["--remote", server.base, "--timeout", "0.5", "find", "alice", "--json"])
        }
        XCTAssertLessThan(findSeconds, 0.5 + Self.slack, find.stderr)
        XCTAssertEqual(find.status, .success, find.stderr)
        // …and a second term that does not fit ends the command within it, with no answer that
        // looks complete.
        let (two, twoSeconds) = timed {
            CLIHarness(env: env.merging(["XDG_CACHE_HOME": dir.path + "/cache3"]) { $1 })
                .run(["--remote", server.base, "--timeout", "0.3", "find", "alice", "bob", "--json"])
        }
        XCTAssertLessThan(twoSeconds, 0.3 + Self.slack, two.stderr)
        XCTAssertEqual(two.status, .unavailable, two.stderr)
    }

    // MARK: end to end: the built binary against a slow subs serve

    func testTheBinaryEndsWithinTheTimeoutWhateverTheNumberOfCustomers() throws {
        let dir = TempDir()
        defer { withExtendedLifetime(dir) {} }
        let store = dir.write("store.json", DemoStore.json)
        let server = try LoopbackSubsServer(store: store, token: "t0ken", onRequest: { RemoteClient.sleepSeconds(0.25) })
        defer { server.stop() }
        let ids = Array(repeating: "alice", count: 40).joined(separator: "\n")
        let start = Date()
        let result = try Binary.run(["--remote", server.base, "--timeout", "1", "check", "-", "--format", "tsv"],
                                    env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"], stdin: ids)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertLessThan(seconds, 1 + Self.slack, result.stderr)
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        let rows = result.stdout.split(separator: "\n").dropFirst()
        XCTAssertTrue(rows.first?.hasPrefix("alice\t") == true, result.stdout)
        XCTAssertTrue(rows.last?.hasSuffix("\ttimeout") == true, result.stdout)
    }

    func testProcessesSharingTheCacheNeverCorruptItAndTheBoundHoldsAfterAWrite() throws {
        let dir = TempDir()
        defer { withExtendedLifetime(dir) {} }
        let store = dir.write("store.json", DemoStore.json)
        let server = try LoopbackSubsServer(store: store, token: "t0ken")
        defer { server.stop() }
        let names = ["alice", "bob", "carol", "dave", "erin", "frank", "gwen", "heidi", "ivan", "judy", "kim", "liam",
                     "mia", "nina", "olivia", "oscar", "peggy", "quentin", "sybil", "trent"]
        let env = ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache", "SUBS_CACHE_MAX": "12K"]
        // Six writers at once, each asking every customer, in its own order.
        let writers = try (0..<6).map { i in
            try Binary.start(["--remote", server.base, "check"] + Array(names[(i * 3)...] + names[..<(i * 3)]) + ["--format", "tsv"],
                             env: env)
        }
        for writer in writers { writer.waitUntilExit() }
        XCTAssertEqual(writers.map(\.terminationStatus), Array(repeating: 0, count: 6))
        // One more write: it lists the cache and evicts, so the bound holds again.
        XCTAssertEqual(try Binary.run(["--remote", server.base, "check", "yara"], env: env).status, .success)
        let folder = dir.path + "/cache/subs"
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder)
        let total = try entries.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as? Int) ?? 0) }
        XCTAssertLessThanOrEqual(total, 12 << 10)
        XCTAssertFalse(entries.contains { $0.hasPrefix(".tmp-") }, "no write left behind")
        // Every entry left is whole: an offline check answers from it, or finds none (evicted).
        server.stop()
        for name in names + ["yara"] {
            let offline = try Binary.run(["--remote", server.base, "--offline", "check", name, "--format", "tsv"], env: env)
            XCTAssertTrue([.success, .unavailable].contains(offline.status), "\(name): \(offline.status) \(offline.stderr)")
            if offline.status == .unavailable { XCTAssertTrue(offline.stderr.contains("no cached answer"), offline.stderr) }
        }
    }

    // MARK: the client: one budget for every request

    func testEveryRequestGetsWhatIsLeftAndNothingIsSentOnceItIsSpent() throws {
        var clock = 0.0
        let dir = TempDir()
        let cache = ResponseCache(directory: dir.path + "/c", clock: FixedClock(Instant(seconds: 0)))
        let transport = AnsweringTransport { _ in
            clock += 1
            return RemoteResponse(status: 200, body: Array("{}".utf8))
        }
        let client = RemoteClient(endpoint: RemoteEndpoint(provider: "subs", url: try RemoteURL("https://h.example/v1"), apiKey: nil),
                                  transport: transport, timeout: 2.5, version: "1", cache: cache,
                                  clock: FixedClock(Instant(seconds: 0)), monotonic: { clock })
        _ = try client.get("/a")
        _ = try client.get("/b")
        _ = try client.get("/c")
        XCTAssertEqual(transport.sent.map(\.timeout), [2.5, 1.5, 0.5])
        // Spent: the request is not sent, and the cached answer of /a does not stand in for it.
        XCTAssertThrowsError(try client.get("/a")) { error in
            guard case RemoteError.timeout(_, 2.5) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(transport.sent.count, 3)
    }

    func testTheByteBudgetIsTheBoundEachAnswerIsReceivedUnder() throws {
        let transport = AnsweringTransport { _ in
            RemoteResponse(status: 200, body: [UInt8](repeating: 0x20, count: 600) + Array("{}".utf8))
        }
        let budget = RemoteBudget(seconds: 10, byteLimit: 1000)
        let client = RemoteClient(endpoint: RemoteEndpoint(provider: "subs", url: try RemoteURL("https://h.example/v1"), apiKey: nil),
                                  transport: transport, timeout: 10, version: "1", cache: nil,
                                  clock: FixedClock(Instant(seconds: 0)), budget: budget)
        // A source done with a customer gives its bytes back.
        try budget.releasing { _ = try client.get("/a") } as Void
        XCTAssertEqual(budget.heldBytes, 0)
        _ = try client.get("/a")
        XCTAssertEqual(transport.sent.last?.maxBodySize, 1000)
        XCTAssertEqual(budget.heldBytes, 602)
        XCTAssertThrowsError(try client.get("/b")) { error in
            guard case RemoteError.answersTooLarge(_, 1000) = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(transport.sent.last?.maxBodySize, 398, "what was left")
    }

    func testWhatTheCommandHoldsIsReadFromTheHeapToo() {
        let budget = RemoteBudget(seconds: 10, byteLimit: 64 << 20, measuresHeap: true)
        XCTAssertGreaterThan(budget.bytesLeft, 0)
        // Items decoded from the answers: held though no answer is charged for them.
        var items = [UInt8](repeating: 1, count: 80 << 20)
        items[items.count - 1] = 2
        XCTAssertEqual(budget.bytesLeft, 0, "80 MiB held of 64")
        XCTAssertEqual(items.last, 2)
        items = []
        XCTAssertGreaterThan(budget.bytesLeft, 0, "given back")
        // Without the heap, only the answers charged count.
        XCTAssertEqual(RemoteBudget(seconds: 10, byteLimit: 64 << 20).bytesLeft, RemoteBudget.answerLimit)
    }

    func testLibcurlStopsAnAnswerAnnouncedOverWhatIsLeft() throws {
        guard let listener = LoopbackListener(reply: { _ in
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n"
                + String(repeating: " ", count: 4998) + "{}"
        }) else { throw XCTSkip("no IPv4 loopback") }
        defer { listener.stop() }
        let client = RemoteClient(endpoint: RemoteEndpoint(provider: "subs", url: try RemoteURL("http://127.0.0.1:\(listener.port)"), apiKey: nil),
                                  transport: CurlTransport(), timeout: 5, version: "1", cache: nil,
                                  clock: FixedClock(Instant(seconds: 0)), budget: RemoteBudget(seconds: 5, byteLimit: 4096))
        XCTAssertThrowsError(try client.get("/x")) { error in
            guard case RemoteError.answersTooLarge(_, 4096) = error else { return XCTFail("\(error)") }
        }
    }

    // MARK: the cache's bound

    func testTheCacheEvictsTheOldestEntriesPastItsBound() throws {
        let dir = TempDir()
        let cache = ResponseCache(directory: dir.path + "/c", clock: FixedClock(Instant(seconds: 0)), maxBytes: 10_000)
        let body = Array("[" + String(repeating: "1,", count: 500) + "1]").map { $0.asciiValue! }
        let keys = (0..<30).map { ResponseCache.Key(provider: "p", url: "https://h/\($0)", apiKey: nil) }
        for key in keys {
            try cache.store(RemoteResponse(status: 200, body: body), for: key)
            RemoteClient.sleepSeconds(0.01)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/c")
        let total = try names.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: dir.path + "/c/" + $1)[.size] as? Int) ?? 0) }
        XCTAssertLessThanOrEqual(total, 10_000)
        XCTAssertNotNil(cache.any(for: keys[29]), "the newest stays")
        XCTAssertNil(cache.any(for: keys[0]), "the oldest went first")
        // Larger than the whole bound: not stored, and nothing else is lost for it.
        try cache.store(RemoteResponse(status: 200, body: [UInt8](repeating: 0x20, count: 20_000) + Array("1".utf8)),
                        for: .init(provider: "p", url: "https://h/big", apiKey: nil))
        XCTAssertNil(cache.any(for: .init(provider: "p", url: "https://h/big", apiKey: nil)))
        XCTAssertNotNil(cache.any(for: keys[29]))
    }

    func testCacheMaxIsASettingAndZeroKeepsNoCache() throws {
        XCTAssertEqual(ValueCheck.bytes("128M"), 128 << 20)
        XCTAssertEqual(ValueCheck.bytes("64KiB"), 64 << 10)
        XCTAssertEqual(ValueCheck.bytes("1gb"), 1 << 30)
        XCTAssertEqual(ValueCheck.bytes("0"), 0)
        for bad in ["", "M", "1.5M", "-1", "12Q", "1MM", "99999999999999999999"] { XCTAssertNil(ValueCheck.bytes(bad), bad) }
        XCTAssertEqual(runCLI(["--cache-max", "12Q", "check", "alice"]).status, .usage)
        XCTAssertEqual(runCLI(["check", "alice"], env: ["SUBS_CACHE_MAX": "lots"]).status, .configError)

        let dir = TempDir()
        defer { withExtendedLifetime(dir) {} }
        let store = dir.write("store.json", DemoStore.json)
        let server = try LoopbackSubsServer(store: store, token: "t0ken")
        defer { server.stop() }
        let env = ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"]
        XCTAssertEqual(runCLI(["--remote", server.base, "--cache-max", "0", "check", "alice"], env: env).status, .success)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/cache/subs"), "nothing stored")
        XCTAssertEqual(runCLI(["--remote", server.base, "check", "alice"], env: env.merging(["SUBS_CACHE_MAX": "1M"]) { $1 }).status, .success)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/cache/subs").count, 1)
    }
}
