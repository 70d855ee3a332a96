// The remote client's pieces without a network: URL checks, API key loading, the cache,
// retry arithmetic, HTTP-dates, SHA-256, and the client's policy over a scripted transport.

import Foundation
import XCTest
@testable import SubsSystem
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsRemote

/// A transport that answers from a script and records what it was sent.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    var sent: [RemoteRequest] = []
    let answer: (Int) throws -> RemoteResponse
    init(_ answer: @escaping (Int) throws -> RemoteResponse) { self.answer = answer }
    func send(_ request: RemoteRequest) throws -> RemoteResponse {
        sent.append(request)
        return try answer(sent.count - 1)
    }
}

final class RemotePiecesTests: XCTestCase {
    let secret = "sk_test_TOPsecret987654321"
    var scratch = ""

    override func setUp() { scratch = NSTemporaryDirectory() + "subs-pieces-\(UUID().uuidString)" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: scratch) }

    func write(_ text: String, mode: Int) throws -> String {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let path = scratch + "/key-\(UUID().uuidString)"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    // MARK: URLs

    func testPlainHttpIsRefusedForHostsThatAreNotLoopback() {
        for url in ["http://api.revenuecat.com/v1", "http://10.0.0.1:8787", "http://128.0.0.1", "http://127.0.0.1.example.com",
                    "http://localhost.evil.com", "http://[::2]:80", "HTTP://example.com", "http://0x7f000001", "http://api.localhost", "http://127.1",
                    // Spellings of loopback that libcurl would hand to the resolver, or that parsers read differently.
                    "http://localhost.:8787", "http://127.0.0.1.:8787", "http://LOCALHOST.", "http://127.0.0.1.", "http://0x7f.1",
                    "http://0177.0.0.1", "http://127.0.0.01", "http://2130706433", "http://localhost.localdomain",
                    "http://\u{FF4C}ocalhost", "http://loc\u{430}lhost", "http://%6cocalhost:1", "http://[::127.0.0.1]",
                    "http://[::ffff:128.0.0.1]", "http://[::]", "http://0.0.0.0", "http://127.0.0.1:0", "http://127.0.0.1:65536",
                    "http://127.0.0.1:", "http://127.0.0.1:80:80", "http://[fe80::1%25lo]:1"] {
            XCTAssertThrowsError(try RemoteURL(url), url) { error in
                switch error as? RemoteError {
                case .insecureURL?, .invalidURL?: break
                default: XCTFail("\(url): \(error)")
                }
            }
        }
        for url in ["http://localhost.:8787", "http://127.0.0.1.:8787", "http://127.1", "http://0x7f.1", "http://localhost.localdomain"] {
            XCTAssertThrowsError(try RemoteURL(url), url) { error in
                XCTAssertEqual(error as? RemoteError, .insecureURL(url: url))
            }
        }
    }

    func testLoopbackTargetIsTheAddressConnectedTo() {
        XCTAssertEqual(RemoteURL.loopbackTarget("http://127.0.0.1:8787/v1"), .init(host: "127.0.0.1", port: 8787, isName: false))
        XCTAssertEqual(RemoteURL.loopbackTarget("http://127.9.8.7"), .init(host: "127.9.8.7", port: 80, isName: false))
        XCTAssertEqual(RemoteURL.loopbackTarget("HTTP://LocalHost:9/x"), .init(host: "LocalHost", port: 9, isName: true))
        XCTAssertEqual(RemoteURL.loopbackTarget("http://[::1]:1"), .init(host: "::1", port: 1, isName: false))
        XCTAssertEqual(RemoteURL.loopbackTarget("http://[::ffff:127.0.0.1]"), .init(host: "::ffff:127.0.0.1", port: 80, isName: false))
        // `localhost` is resolved by subs: both loopback addresses, no resolver.
        XCTAssertEqual(RemoteURL.loopbackTarget("http://localhost:8787")?.resolveEntry, "localhost:8787:127.0.0.1,[::1]")
        XCTAssertNil(RemoteURL.loopbackTarget("http://127.0.0.1:8787")?.resolveEntry)
        for url in ["https://127.0.0.1", "http://127.0.0.1@example.com", "http://example.com#@127.0.0.1", "http://127.0.0.1\\@example.com",
                    "http://[::1]x", "http://[::1", "http://127.0.0.1 ", "http:/127.0.0.1", "http://", "http://:80"] {
            XCTAssertNil(RemoteURL.loopbackTarget(url), url)
        }
    }

    func testLoopbackIsDecidedOnTheAddress() {
        for host in ["127.0.0.1", "127.255.255.254", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
                     "[::ffff:7f00:2]", "0:0:0:0:0:ffff:7f01:203"] {
            XCTAssertTrue(RemoteURL.isLoopback(host: host), host)
        }
        for host in ["localhost.", "127.0.0.1.", "127.1", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.01", "2130706433", "::", "::2",
                     "::127.0.0.1", "::ffff:128.0.0.1", "::1%lo", "0.0.0.0", "128.0.0.1", "localhost.localdomain", "", "[]",
                     "\u{FF4C}\u{FF4F}\u{FF43}\u{FF41}\u{FF4C}\u{FF48}\u{FF4F}\u{FF53}\u{FF54}", "LOCALHOST\u{0}"] {
            XCTAssertFalse(RemoteURL.isLoopback(host: host), host)
        }
    }

    func testPlainHttpIsAllowedForLoopback() throws {
        for url in ["http://127.0.0.1:8787", "http://127.1.2.3", "http://localhost:9", "http://LOCALHOST", "http://[::1]:8787",
                    "http://[0:0:0:0:0:0:0:1]/", "https://api.revenuecat.com/v1/", "https://10.0.0.1"] {
            XCTAssertNoThrow(try RemoteURL(url), url)
        }
        XCTAssertEqual(try RemoteURL("https://h.example/v1/").appending("/subscribers/a%20b"), "https://h.example/v1/subscribers/a%20b")
    }

    func testInvalidURLsAreRefusedWithoutTheSecret() {
        for url in ["ftp://x", "api.example.com", "", "https://user:\(secret)@api.example.com", "https://api.example.com/v1?token=\(secret)"] {
            XCTAssertThrowsError(try RemoteURL(url), url) { error in
                guard case RemoteError.invalidURL = error else { return XCTFail("\(url): \(error)") }
                XCTAssertFalse("\(error)".contains(self.secret))
            }
        }
    }

    func testInsecureURLIsRefusedBeforeAnythingIsSent() throws {
        // The check is in RemoteURL, which the endpoint requires: no client can exist for it.
        XCTAssertThrowsError(try RemoteURL("http://example.com")) { XCTAssertEqual($0 as? RemoteError, .insecureURL(url: "http://example.com")) }
    }

    func testDisplayDropsCredentialsQueryAndFragment() {
        XCTAssertEqual(RemoteURL.display("https://u:\(secret)@h.example:8443/v1/x?key=\(secret)#\(secret)"), "https://h.example:8443/v1/x")
        XCTAssertFalse(RemoteURL.display("not a url ?key=\(secret)").contains(secret))
        XCTAssertFalse(RemoteURL.display("weird://\(secret)@host").contains(secret))
        XCTAssertEqual(RemoteURL.display("https://h/\u{1b}[31m"), "https://h/%1B%5B31m")
        // Unparseable text keeps its characters, but a control or an invisible one as a URL spells it.
        XCTAssertEqual(RemoteURL.display("fi\u{93}x \u{1b}[2J\u{202e}"), "fi%C2%93x %1B[2J%E2%80%AE")
    }

    func testPathSegmentIsPercentEncoded() {
        XCTAssertEqual(RemoteURL.segment("alice"), "alice")
        XCTAssertEqual(RemoteURL.segment("$anon:8d1f/x y?#é"), "%24anon%3A8d1f%2Fx%20y%3F%23%C3%A9")
        XCTAssertEqual(RemoteURL.segment(".."), "%2E%2E")
        XCTAssertEqual(RemoteURL.segment("."), "%2E")
    }

    // MARK: API key

    func testKeyPrecedenceFlagThenEnvironmentFileThenValue() throws {
        let flag = try write("from-flag\n", mode: 0o600)
        let env = try write("from-env-file\n", mode: 0o600)
        func header(_ loaded: APIKey.Loaded) -> String? { loaded.key?.headerValue(.bearer) }
        XCTAssertEqual(header(try APIKey.load(flagFile: flag, environmentFile: env, environmentValue: "v")), "Bearer from-flag")
        XCTAssertEqual(header(try APIKey.load(flagFile: nil, environmentFile: env, environmentValue: "v")), "Bearer from-env-file")
        XCTAssertEqual(header(try APIKey.load(flagFile: nil, environmentFile: nil, environmentValue: "v\n")), "Bearer v")
        XCTAssertEqual(header(try APIKey.load(flagFile: nil, environmentFile: "", environmentValue: "v")), "Bearer v")
        XCTAssertNil(try APIKey.load(flagFile: nil, environmentFile: nil, environmentValue: nil).key)
    }

    func testOneTrailingNewlineIsTrimmed() throws {
        for (text, expected) in [("k\n", "k"), ("k\r\n", "k"), ("k", "k")] {
            let path = try write(text, mode: 0o600)
            XCTAssertEqual(try APIKey.load(flagFile: path, environmentFile: nil, environmentValue: nil).key?.headerValue(.apiKey), "ApiKey " + expected)
        }
        // Two newlines: the second line (empty) makes it more than one line.
        XCTAssertThrowsError(try APIKey.load(flagFile: try write("k\n\n", mode: 0o600), environmentFile: nil, environmentValue: nil))
    }

    func testEmptyKeyIsAnError() throws {
        for text in ["", "\n", "\r\n"] {
            let path = try write(text, mode: 0o600)
            XCTAssertThrowsError(try APIKey.load(flagFile: path, environmentFile: nil, environmentValue: nil)) {
                XCTAssertEqual($0 as? RemoteError, .apiKeyEmpty(source: path))
            }
        }
        XCTAssertThrowsError(try APIKey.load(flagFile: nil, environmentFile: nil, environmentValue: "")) {
            XCTAssertEqual($0 as? RemoteError, .apiKeyEmpty(source: "SUBS_API_KEY"))
        }
    }

    func testKeysThatWouldInjectHeadersAreRefusedWithoutQuotingThem() throws {
        for text in ["\(secret)\r\nX-Evil: 1", "\(secret)\nmore", "\(secret)\u{0}", " \(secret)", "\(secret)\tx", "\(secret)é"] {
            XCTAssertThrowsError(try APIKey.load(flagFile: nil, environmentFile: nil, environmentValue: text)) { error in
                XCTAssertFalse("\(error)".contains(self.secret), "\(error)")
            }
        }
    }

    func testKeyFileReadableOrWritableByOthersIsRefusedNamingTheFix() throws {
        for mode in [0o644, 0o640, 0o604, 0o620, 0o602, 0o660, 0o666] {
            let path = try write(secret, mode: mode)
            XCTAssertThrowsError(try APIKey.load(flagFile: path, environmentFile: nil, environmentValue: nil), String(mode, radix: 8)) {
                guard let error = $0 as? SecretFileError else { return XCTFail("\($0)") }
                XCTAssertEqual(error.problem, .unsafe)
                XCTAssertTrue(error.message.hasPrefix(path + ": the API key file is "), error.message)
                XCTAssertTrue(error.message.hasSuffix("; chmod 600 " + path), error.message)
                XCTAssertFalse(error.message.contains(self.secret))
            }
        }
        for mode in [0o600, 0o400] {
            XCTAssertNotNil(try APIKey.load(flagFile: try write(secret, mode: mode), environmentFile: nil, environmentValue: nil).key)
        }
    }

    func testMissingKeyFileOrADirectoryIsAConfigurationProblem() throws {
        XCTAssertThrowsError(try APIKey.load(flagFile: "/nonexistent/key", environmentFile: nil, environmentValue: "x")) {
            XCTAssertEqual(($0 as? SecretFileError)?.problem, .missing, "\($0)")
            XCTAssertEqual(($0 as? SecretFileError)?.message, "/nonexistent/key: cannot read the API key file: no such file or directory")
        }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        XCTAssertThrowsError(try APIKey.load(flagFile: scratch, environmentFile: nil, environmentValue: nil)) {
            XCTAssertEqual(($0 as? SecretFileError)?.problem, .notAFile, "\($0)")
        }
    }

    func testKeyNeverAppearsInDescriptions() {
        let key = APIKey(secret)
        var dumped = ""
        dump(key, to: &dumped)
        let endpoint = RemoteEndpoint(provider: "subs", url: try! RemoteURL("https://h"), apiKey: key)
        var dumpedEndpoint = ""
        dump(endpoint, to: &dumpedEndpoint)
        for text in ["\(key)", String(describing: key), String(reflecting: key), dumped, "\(endpoint)", String(reflecting: endpoint), dumpedEndpoint] {
            XCTAssertFalse(text.contains(secret), text)
        }
    }

    // MARK: the client's policy (scripted transport, fake clocks)

    func makeClient(_ transport: ScriptedTransport, timeout: Double = 10, now: @escaping () -> Double = { 0 },
                    sleep: @escaping (Double) -> Void = { _ in }, random: @escaping () -> Double = { 0.5 },
                    log: ((String) -> Void)? = nil, cache: ResponseCache? = nil) -> RemoteClient {
        RemoteClient(endpoint: RemoteEndpoint(provider: "subs", url: try! RemoteURL("https://api.example.com/v1"), apiKey: APIKey(secret)),
                     transport: transport, timeout: timeout, version: "9.9", cache: cache, clock: FixedClock(Instant(seconds: 1_800_000_000)),
                     random: random, sleep: sleep, monotonic: now, log: log)
    }

    func testEachAttemptGetsWhatIsLeftOfTheBudget() throws {
        var clock = 0.0
        let transport = ScriptedTransport { i in
            clock += 1 // each attempt takes one second
            return RemoteResponse(status: i < 3 ? 503 : 200)
        }
        let answer = try makeClient(transport, timeout: 10, now: { clock }, sleep: { clock += $0 }, random: { 0.99 }).get("/x")
        XCTAssertEqual(answer.response.status, 200)
        XCTAssertEqual(transport.sent.count, 4)
        XCTAssertEqual(transport.sent[0].timeout, 10)
        for pair in zip(transport.sent, transport.sent.dropFirst()) { XCTAssertLessThan(pair.1.timeout, pair.0.timeout) }
        XCTAssertLessThanOrEqual(clock, 10)
    }

    func testNoAttemptStartsAfterTheDeadline() {
        var clock = 0.0
        var slept: [Double] = []
        let transport = ScriptedTransport { _ in clock += 3; return RemoteResponse(status: 503, headers: [("Retry-After", "2")]) }
        XCTAssertThrowsError(try makeClient(transport, timeout: 6, now: { clock }, sleep: { slept.append($0); clock += $0 }).get("/x")) {
            guard case RemoteError.unavailable(_, "HTTP 503", 2) = $0 else { return XCTFail("\($0)") }
        }
        // 3 s, wait 2 s, 3 s: 8 > 6, but the second attempt started at 5 with 1 s left; no third.
        XCTAssertEqual(transport.sent.count, 2)
        XCTAssertEqual(slept, [2])
    }

    func testFullJitterUsesTheRandomSourceWithinExponentialWindows() {
        let policy = RetryPolicy(maxRetries: 3, baseDelay: 0.25, maxDelay: 4)
        XCTAssertEqual(policy.backoff(retry: 0, unit: 0), 0)
        XCTAssertEqual(policy.backoff(retry: 0, unit: 0.5), 0.125)
        XCTAssertEqual(policy.backoff(retry: 2, unit: 0.5), 0.5)
        XCTAssertEqual(policy.backoff(retry: 10, unit: 0.5), 2)
        XCTAssertEqual(policy.backoff(retry: 1000, unit: 1), 4)
    }

    func testRetryAfterForms() {
        let now = HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")!
        XCTAssertEqual(now.seconds, 784111777)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), now)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), now)
        XCTAssertEqual(RetryPolicy.retryAfter("120", now: now), 120)
        XCTAssertEqual(RetryPolicy.retryAfter(" 0 ", now: now), 0)
        XCTAssertEqual(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: now), 30)
        XCTAssertEqual(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now: now), 0)
        for bad in ["-5", "1.5", "soon", "", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 32 Nov 1994 08:00:00 GMT"] {
            XCTAssertNil(RetryPolicy.retryAfter(bad, now: now), bad)
        }
    }

    func testHttpDateRetryAfterIsHonouredByTheClient() throws {
        var slept: [Double] = []
        let transport = ScriptedTransport { i in
            i == 0 ? RemoteResponse(status: 429, headers: [("Retry-After", "Fri, 15 Jan 2027 08:00:03 GMT")]) : RemoteResponse(status: 200)
        }
        // FixedClock in makeClient is 1_800_000_000 = 2027-01-15T08:00:00Z.
        _ = try makeClient(transport, sleep: { slept.append($0) }).get("/x")
        XCTAssertEqual(slept, [3])
    }

    func testLogAndErrorsNeverCarryTheKey() {
        var lines: [String] = []
        let transport = ScriptedTransport { _ in throw TransportError.connectionLost }
        XCTAssertThrowsError(try makeClient(transport, log: { lines.append($0) }).get("/x?token=\(secret)")) { error in
            XCTAssertFalse("\(error)".contains(self.secret))
        }
        XCTAssertFalse(lines.isEmpty)
        for line in lines { XCTAssertFalse(line.contains(secret), line) }
        XCTAssertEqual(transport.sent[0].header("Authorization"), "Bearer \(secret)")
        XCTAssertEqual(transport.sent[0].header("User-Agent"), "subs/9.9")
    }

    func testCallerCannotReplaceTheKeyOrUserAgentHeaders() throws {
        let transport = ScriptedTransport { _ in RemoteResponse(status: 200) }
        _ = try makeClient(transport).get("/x", headers: [("authorization", "Bearer other"), ("X-Extra", "1")])
        XCTAssertEqual(transport.sent[0].headers.filter { $0.name.lowercased() == "authorization" }.count, 1)
        XCTAssertEqual(transport.sent[0].header("X-Extra"), "1")
    }

    func testTransportFailuresMapToTypedErrors() {
        let cases: [(TransportError, (RemoteError) -> Bool)] = [
            (.timedOut, { if case .timeout = $0 { return true }; return false }),
            (.tls("bad certificate"), { if case .unavailable(_, _, 1) = $0 { return true }; return false }),
            (.dnsFailure(host: "nowhere.invalid"), { if case .unavailable(_, _, 4) = $0 { return true }; return false }),
            (.cannotConnect("refused"), { if case .unavailable(_, _, 4) = $0 { return true }; return false }),
            (.malformedResponse, { if case .protocolError = $0 { return true }; return false }),
            (.bodyTooLarge(limit: 16 << 20), { if case .protocolError = $0 { return true }; return false }),
        ]
        for (failure, check) in cases {
            let transport = ScriptedTransport { _ in throw failure }
            XCTAssertThrowsError(try makeClient(transport).get("/x")) { XCTAssertTrue(check($0 as! RemoteError), "\(failure) → \($0)") }
        }
    }

    // MARK: cache

    func testCacheRefusesBodiesOver16MiBAndTheClientSaysSo() throws {
        let cache = ResponseCache(directory: scratch + "/c", clock: FixedClock(Instant(seconds: 0)))
        let key = ResponseCache.Key(provider: "subs", url: "https://h/x", apiKey: nil)
        XCTAssertThrowsError(try cache.store(RemoteResponse(status: 200, body: [UInt8](repeating: 0x20, count: (16 << 20) + 1)), for: key))
        XCTAssertNil(cache.any(for: key))
        try cache.store(RemoteResponse(status: 200, body: [UInt8](repeating: 0x20, count: 16 << 20)), for: key)
        XCTAssertEqual(cache.any(for: key)?.response.body.count, 16 << 20)
    }

    func testDamagedOrForeignEntriesAreMisses() throws {
        let cache = ResponseCache(directory: scratch + "/c", clock: FixedClock(Instant(seconds: 100)))
        let key = ResponseCache.Key(provider: "subs", url: "https://h/x", apiKey: APIKey("k"))
        try cache.store(RemoteResponse(status: 200, body: Array("{}".utf8)), for: key)
        let path = cache.path(for: key)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        for damaged in [good.dropLast(), good + Data("x".utf8), Data("garbage".utf8), Data()] {
            try damaged.write(to: URL(fileURLWithPath: path))
            XCTAssertNil(cache.any(for: key))
        }
        // A symbolic link in place of an entry is not followed.
        try FileManager.default.removeItem(atPath: path)
        let elsewhere = scratch + "/elsewhere"
        try good.write(to: URL(fileURLWithPath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        XCTAssertNil(cache.any(for: key))
    }

    func testEntryFromTheFutureIsNeverFresh() throws {
        let dir = scratch + "/c"
        let key = ResponseCache.Key(provider: "subs", url: "https://h/x", apiKey: nil)
        try ResponseCache(directory: dir, clock: FixedClock(Instant(seconds: 1000))).store(RemoteResponse(status: 200), for: key)
        let earlier = ResponseCache(directory: dir, clock: FixedClock(Instant(seconds: 900)))
        XCTAssertNil(earlier.fresh(for: key, maxAge: 3600))
        XCTAssertNotNil(earlier.any(for: key))
    }

    func testCacheDirectoryFollowsXDG() {
        XCTAssertEqual(ResponseCache.defaultDirectory(xdgCacheHome: "/x/cache", home: "/home/a"), "/x/cache/subs")
        XCTAssertEqual(ResponseCache.defaultDirectory(xdgCacheHome: "relative", home: "/home/a"), "/home/a/.cache/subs")
        XCTAssertEqual(ResponseCache.defaultDirectory(xdgCacheHome: nil, home: "/home/a/"), "/home/a/.cache/subs")
        XCTAssertNil(ResponseCache.defaultDirectory(xdgCacheHome: nil, home: nil))
    }

    func testCacheDirectoryIsTightenedTo0700() throws {
        let dir = scratch + "/loose/subs"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try ResponseCache(directory: dir, clock: FixedClock(Instant(seconds: 0))).store(RemoteResponse(status: 200), for: .init(provider: "p", url: "https://h", apiKey: nil))
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int).map { $0 & 0o777 }, 0o700)
    }

    func testCacheWriteFailureIsAWarningNotAFailure() throws {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: scratch + "/file", contents: Data()), "cannot create a test file")
        let transport = ScriptedTransport { _ in RemoteResponse(status: 200, body: Array("{}".utf8)) }
        let answer = try makeClient(transport, cache: ResponseCache(directory: scratch + "/file/subs", clock: FixedClock(Instant(seconds: 0)))).get("/x")
        XCTAssertEqual(answer.response.status, 200)
        XCTAssertEqual(answer.warnings.count, 1)
    }

    func testSha256Vectors() {
        XCTAssertEqual(SHA256.hex(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
