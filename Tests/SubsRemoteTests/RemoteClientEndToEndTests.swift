// CurlTransport + RemoteClient against a misbehaving loopback server (RemoteTestServer).

import Foundation
import XCTest
@testable import SubsModel
@testable import SubsRemote

final class MutableClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Instant
    init(_ seconds: Int64) { current = Instant(seconds: seconds) }
    func now() -> Instant { lock.lock(); defer { lock.unlock() }; return current }
    func advance(_ seconds: Int64) { lock.lock(); current = current.adding(seconds: seconds)!; lock.unlock() }
}

final class RemoteClientEndToEndTests: XCTestCase {
    static let secret = "sk_live_S3CRETkey0123456789"
    let transport = CurlTransport()
    var cacheDirectory = ""
    var sleeps: [Double] = []
    var logLines: [String] = []
    let clock = MutableClock(1_795_000_000)

    override func setUp() {
        cacheDirectory = NSTemporaryDirectory() + "subs-remote-\(UUID().uuidString)/cache/subs"
        sleeps = []
        logLines = []
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: String(cacheDirectory.dropLast("/cache/subs".count)))
    }

    func client(_ url: String, timeout: Double = 5, cache: Bool = true, sleepForReal: Bool = false) throws -> RemoteClient {
        RemoteClient(endpoint: RemoteEndpoint(provider: "subs", url: try RemoteURL(url), apiKey: APIKey(Self.secret)),
                     transport: transport, timeout: timeout, version: "1.2.3",
                     cache: cache ? ResponseCache(directory: cacheDirectory, clock: clock) : nil, clock: clock,
                     retry: RetryPolicy(maxRetries: 3, baseDelay: 0.01, maxDelay: 0.05),
                     random: { 0.5 },
                     sleep: { [unowned self] s in sleeps.append(s); if sleepForReal { RemoteClient.sleepSeconds(s) } },
                     log: { [unowned self] line in logLines.append(line) })
    }

    static func ok(_ body: String = #"{"status":"ok"}"#) -> RemoteTestServer.Action {
        .respond(status: 200, headers: [("Content-Type", "application/json"), ("Date", "Mon, 23 Nov 2026 09:00:00 GMT")], body: body)
    }

    func assertRemoteError(_ expression: @autoclosure () throws -> Any, file: StaticString = #filePath, line: UInt = #line,
                           _ check: (RemoteError) -> Bool) {
        do {
            _ = try expression()
            XCTFail("expected a RemoteError", file: file, line: line)
        } catch let error as RemoteError {
            XCTAssertTrue(check(error), "unexpected error: \(error)", file: file, line: line)
            XCTAssertFalse("\(error)".contains(Self.secret), file: file, line: line)
        } catch {
            XCTFail("unexpected error type: \(error)", file: file, line: line)
        }
    }

    // MARK: success and headers

    func testGetSendsUserAgentAndKeyAndReturnsBody() throws {
        let server = RemoteTestServer { _, _ in Self.ok() }
        let answer = try client(server.url).get("/v1/health")
        XCTAssertEqual(answer.response.status, 200)
        XCTAssertEqual(String(decoding: answer.response.body, as: UTF8.self), #"{"status":"ok"}"#)
        XCTAssertNil(answer.cacheAge)
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertTrue(request.hasPrefix("GET /v1/health HTTP/1.1\r\n"), request)
        XCTAssertTrue(request.contains("User-Agent: subs/1.2.3\r\n"), request)
        XCTAssertTrue(request.contains("Authorization: Bearer \(Self.secret)\r\n"), request)
    }

    func testApiKeySchemeIsWhatTheProviderWants() throws {
        let server = RemoteTestServer { _, _ in Self.ok() }
        let c = RemoteClient(endpoint: RemoteEndpoint(provider: "iaphub", url: try RemoteURL(server.url), apiKey: APIKey("k1"), scheme: .apiKey),
                             transport: transport, timeout: 5, version: "0.1", cache: nil, clock: clock)
        _ = try c.get("/user/alice?environment=production")
        XCTAssertTrue(server.requests[0].contains("Authorization: ApiKey k1\r\n"))
        XCTAssertTrue(server.requests[0].hasPrefix("GET /user/alice?environment=production "))
    }

    func testGarbageBodyPassesThroughAsBytes() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 200, headers: [], body: "<html>not json\u{1}") }
        let answer = try client(server.url).get("/x")
        XCTAssertEqual(answer.response.body, Array("<html>not json\u{1}".utf8))
    }

    func testNotHTTPIsAProtocolErrorOrUnavailable() throws {
        let server = RemoteTestServer { _, _ in .raw("SSH-2.0-OpenSSH_9.6\r\n\r\ngarbage garbage\r\n") }
        assertRemoteError(try client(server.url, cache: false).get("/x")) {
            if case .protocolError = $0 { return true }
            if case .unavailable = $0 { return true }
            return false
        }
    }

    // MARK: connection faults

    func testConnectionRefusedIsUnavailableAfterThreeRetries() throws {
        let url = "http://127.0.0.1:\(RemoteTestServer.closedPort())"
        assertRemoteError(try client(url, cache: false).get("/v1/customers/alice")) {
            if case .unavailable(let shown, _, let attempts) = $0 { return attempts == 4 && shown == url + "/v1/customers/alice" }
            return false
        }
        XCTAssertEqual(sleeps.count, 3)
    }

    func testResetMidBodyIsAnErrorAndRetried() throws {
        for action in [RemoteTestServer.Action.resetAfter("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":"),
                       .raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":")] {
            let server = RemoteTestServer { _, _ in action }
            sleeps = []
            assertRemoteError(try client(server.url, cache: false).get("/x")) {
                if case .unavailable(_, _, let attempts) = $0 { return attempts == 4 }
                return false
            }
            XCTAssertEqual(server.requestCount, 4)
        }
    }

    func testTruncatedBodyThenSuccessIsRetried() throws {
        let server = RemoteTestServer { i, _ in i == 0 ? .raw("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}") : Self.ok() }
        let answer = try client(server.url).get("/x")
        XCTAssertEqual(answer.response.status, 200)
        XCTAssertEqual(server.requestCount, 2)
    }

    // MARK: statuses

    func testServerErrorThenSuccessIsRetried() throws {
        for status in [500, 502, 503, 504] {
            let server = RemoteTestServer { i, _ in i < 2 ? .respond(status: status, headers: [], body: "oops") : Self.ok() }
            let answer = try client(server.url).get("/x")
            XCTAssertEqual(answer.response.status, 200)
            XCTAssertEqual(server.requestCount, 3, "status \(status)")
        }
    }

    func testServerErrorForeverIsUnavailableAfterThreeRetries() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 500, headers: [], body: "{}") }
        assertRemoteError(try client(server.url, cache: false).get("/x")) {
            if case .unavailable(_, let reason, 4) = $0 { return reason == "HTTP 500" }
            return false
        }
        XCTAssertEqual(server.requestCount, 4)
        XCTAssertEqual(sleeps.count, 3)
        // Exponential windows (0.01, 0.02, 0.04) with the injected jitter of 0.5.
        XCTAssertEqual(sleeps, [0.005, 0.01, 0.02])
    }

    func testRetryAfterIsHonouredThenSuccess() throws {
        let server = RemoteTestServer { i, _ in
            i == 0 ? .respond(status: 429, headers: [("Retry-After", "2")], body: "{}") : Self.ok()
        }
        let answer = try client(server.url).get("/x")
        XCTAssertEqual(answer.response.status, 200)
        XCTAssertEqual(sleeps, [2])
    }

    func testRateLimitedForeverIsRateLimitedAfterRetries() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 429, headers: [("Retry-After", "1")], body: "{}") }
        assertRemoteError(try client(server.url, cache: false).get("/x")) {
            if case .rateLimited(_, 1) = $0 { return true }
            return false
        }
        XCTAssertEqual(server.requestCount, 4)
        XCTAssertEqual(sleeps, [1, 1, 1])
    }

    func testRetryAfterBeyondTheDeadlineStopsAtOnce() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 429, headers: [("Retry-After", "120")], body: "{}") }
        assertRemoteError(try client(server.url, timeout: 5, cache: false).get("/x")) {
            if case .rateLimited(_, 120) = $0 { return true }
            return false
        }
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(sleeps, [])
    }

    func testUnauthorizedIsNotRetried() throws {
        for status in [401, 403] {
            let server = RemoteTestServer { _, _ in .respond(status: status, headers: [], body: #"{"code":7225,"message":"invalid key"}"#) }
            assertRemoteError(try client(server.url).get("/x")) {
                if case .unauthorized(_, status) = $0 { return true }
                return false
            }
            XCTAssertEqual(server.requestCount, 1)
        }
    }

    func testNotFoundIsReturnedForTheProviderToDecide() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 404, headers: [], body: #"{"error":{"code":"customer_not_found"}}"#) }
        let answer = try client(server.url).get("/v1/customers/bob")
        XCTAssertEqual(answer.response.status, 404)
        XCTAssertEqual(answer.unexpectedStatusError(), .notFound(url: server.url + "/v1/customers/bob"))
        XCTAssertEqual(server.requestCount, 1)
    }

    func testRedirectIsNotFollowed() throws {
        let server = RemoteTestServer { i, _ in
            i == 0 ? .respond(status: 302, headers: [("Location", "/elsewhere")], body: "") : Self.ok()
        }
        assertRemoteError(try client(server.url).get("/x")) {
            if case .protocolError = $0 { return true }
            return false
        }
        XCTAssertEqual(server.requestCount, 1)
    }

    // MARK: POST

    func testPostWithoutIdempotencyKeyIsNotRetried() throws {
        for method in ["POST", "DELETE"] {
            let server = RemoteTestServer { _, _ in .respond(status: 503, headers: [], body: "{}") }
            assertRemoteError(try client(server.url).send(method, "/v1/customers/alice/grants", body: Array("{}".utf8))) {
                if case .unavailable(_, _, 1) = $0 { return true }
                return false
            }
            XCTAssertEqual(server.requestCount, 1, method)
        }
    }

    func testPostWithIdempotencyKeyIsRetried() throws {
        let server = RemoteTestServer { i, _ in i < 2 ? .respond(status: 503, headers: [], body: "{}") : .respond(status: 201, headers: [], body: "{}") }
        let answer = try client(server.url).send("POST", "/v1/customers/alice/grants", headers: [("Idempotency-Key", "abc-1")], body: Array(#"{"entitlement":"premium"}"#.utf8))
        XCTAssertEqual(answer.response.status, 201)
        XCTAssertEqual(server.requestCount, 3)
        XCTAssertTrue(server.requests.allSatisfy { $0.contains("Idempotency-Key: abc-1\r\n") && $0.hasSuffix(#"{"entitlement":"premium"}"#) })
        XCTAssertTrue(server.requests[0].contains("Content-Type: application/json\r\n"))
    }

    // MARK: deadline

    func testServerThatNeverAnswersTimesOutWithinTheDeadline() throws {
        for timeout in [0.5, 2.0] {
            let server = RemoteTestServer { _, _ in .hang }
            let start = Date()
            assertRemoteError(try client(server.url, timeout: timeout, cache: false).get("/x")) {
                if case .timeout(_, timeout) = $0 { return true }
                return false
            }
            let elapsed = Date().timeIntervalSince(start)
            XCTAssertGreaterThanOrEqual(elapsed, timeout * 0.9, "timeout \(timeout)")
            XCTAssertLessThan(elapsed, timeout + 1, "timeout \(timeout)")
            server.stop()
        }
    }

    func testRetriesAllEndWithinTheDeadline() throws {
        // Real sleeps: each 503 comes at once, the backoff is real; the whole stays in budget.
        let server = RemoteTestServer { i, _ in i == 0 ? .respond(status: 503, headers: [("Retry-After", "1")], body: "") : .hang }
        let start = Date()
        assertRemoteError(try client(server.url, timeout: 1.5, cache: false, sleepForReal: true).get("/x")) {
            if case .timeout = $0 { return true }
            return false
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
        XCTAssertEqual(sleeps, [1])
        server.stop()
    }

    // MARK: cache

    func testCacheIsWrittenPrivateAndWithoutTheKey() throws {
        let server = RemoteTestServer { _, _ in Self.ok(#"{"customer":"alice"}"#) }
        _ = try client(server.url).get("/v1/customers/alice")
        let dirMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: cacheDirectory)[.posixPermissions] as? Int)
        XCTAssertEqual(dirMode & 0o777, 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: cacheDirectory)
        XCTAssertEqual(files.count, 1, "no stray temporary files")
        for file in files {
            let path = cacheDirectory + "/" + file
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            XCTAssertEqual(mode & 0o777, 0o600)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertNil(bytes.range(of: Data(Self.secret.utf8)), "the key is in the cache file")
            XCTAssertFalse(file.contains(Self.secret))
            XCTAssertNotNil(bytes.range(of: Data(#"{"customer":"alice"}"#.utf8)))
        }
        for line in logLines { XCTAssertFalse(line.contains(Self.secret), line) }
    }

    func testCacheAnswersAfterTheServerStopsWithItsAge() throws {
        let server = RemoteTestServer { _, _ in Self.ok(#"{"customer":"alice"}"#) }
        let c = try client(server.url)
        _ = try c.get("/v1/customers/alice")
        server.stop()
        clock.advance(3 * 3600 + 120)
        let answer = try c.get("/v1/customers/alice")
        XCTAssertEqual(String(decoding: answer.response.body, as: UTF8.self), #"{"customer":"alice"}"#)
        XCTAssertEqual(answer.cacheAge, Double(3 * 3600 + 120))
        XCTAssertEqual(answer.warnings.count, 1)
        XCTAssertTrue(answer.warnings[0].contains("answered from the cache, 3 h old: server unreachable"), answer.warnings[0])
        XCTAssertEqual(answer.response.header("Date"), "Mon, 23 Nov 2026 09:00:00 GMT")
        // Another path was never cached: the failure stands.
        assertRemoteError(try c.get("/v1/customers/bob")) {
            if case .unavailable = $0 { return true }
            return false
        }
    }

    /// A 200 that is not JSON (a captive portal's page) is the server's answer now, but never kept:
    /// once the server is gone it is "not cached", not that page again.
    func testAnAnswerThatIsNotJSONIsNeverCached() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 200, headers: [("Content-Type", "text/html")], body: "<html>log in</html>") }
        let c = try client(server.url)
        XCTAssertEqual(String(decoding: try c.get("/v1/customers/alice").response.body, as: UTF8.self), "<html>log in</html>")
        server.stop()
        assertRemoteError(try c.get("/v1/customers/alice")) { if case .unavailable = $0 { return true }; return false }
        assertRemoteError(try c.get("/v1/customers/alice", cachePolicy: .offline)) { if case .notCached = $0 { return true }; return false }
    }

    func testCacheDoesNotAnswerForErrorsThatAreNotUnreachability() throws {
        var status = 200
        let server = RemoteTestServer { _, _ in .respond(status: status, headers: [], body: "{}") }
        let c = try client(server.url)
        _ = try c.get("/x")
        status = 401
        assertRemoteError(try c.get("/x")) { if case .unauthorized = $0 { return true }; return false }
    }

    func testCacheIsPartitionedByKey() throws {
        let server = RemoteTestServer { i, _ in Self.ok("{\"n\":\(i)}") }
        let base = try RemoteURL(server.url)
        func make(_ key: String) -> RemoteClient {
            RemoteClient(endpoint: RemoteEndpoint(provider: "revenuecat", url: base, apiKey: APIKey(key)), transport: transport,
                         timeout: 5, version: "1", cache: ResponseCache(directory: cacheDirectory, clock: clock), clock: clock)
        }
        _ = try make("project-a-key").get("/subscribers/alice")
        assertRemoteError(try make("project-b-key").get("/subscribers/alice", cachePolicy: .offline)) {
            if case .notCached = $0 { return true }; return false
        }
        XCTAssertEqual(String(decoding: try make("project-a-key").get("/subscribers/alice", cachePolicy: .offline).response.body, as: UTF8.self), #"{"n":0}"#)
    }

    func testOfflineWithoutCacheIsNotCachedAndSendsNothing() throws {
        let server = RemoteTestServer { _, _ in Self.ok() }
        assertRemoteError(try client(server.url).get("/v1/customers/alice", cachePolicy: .offline)) {
            $0 == .notCached(url: server.url + "/v1/customers/alice")
        }
        assertRemoteError(try client(server.url, cache: false).get("/v1/customers/alice", cachePolicy: .offline)) {
            if case .notCached = $0 { return true }; return false
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testOfflineAnswersFromCacheWithoutContactingTheServer() throws {
        let server = RemoteTestServer { _, _ in Self.ok() }
        let c = try client(server.url)
        _ = try c.get("/a")
        clock.advance(7200)
        let answer = try c.get("/a", cachePolicy: .offline)
        XCTAssertEqual(answer.cacheAge, 7200)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testMaxAgeUsesAFreshEntryWithoutContactingTheServer() throws {
        let server = RemoteTestServer { i, _ in Self.ok("{\"n\":\(i)}") }
        let c = try client(server.url)
        _ = try c.get("/a")
        clock.advance(59)
        XCTAssertEqual(String(decoding: try c.get("/a", cachePolicy: .maxAge(60)).response.body, as: UTF8.self), #"{"n":0}"#)
        XCTAssertEqual(server.requestCount, 1)
        clock.advance(1)
        // Now as old as --max-age: asked again, and the new answer replaces the entry.
        XCTAssertEqual(String(decoding: try c.get("/a", cachePolicy: .maxAge(60)).response.body, as: UTF8.self), #"{"n":1}"#)
        XCTAssertEqual(server.requestCount, 2)
        XCTAssertEqual(String(decoding: try c.get("/a", cachePolicy: .maxAge(60)).response.body, as: UTF8.self), #"{"n":1}"#)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testPostAnswersAreNotCached() throws {
        let server = RemoteTestServer { _, _ in Self.ok() }
        _ = try client(server.url).send("POST", "/a", body: [])
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory))?.count ?? 0, 0)
    }
}
