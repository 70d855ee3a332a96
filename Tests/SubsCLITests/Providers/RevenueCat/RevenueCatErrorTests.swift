// Provider `revenuecat`: every error status RevenueCat can answer mapped to ours, retries (429
// with Retry-After, 5xx), faults (garbage, a server that never answers, refused connection),
// bodies that are not the documented shape (76 saying where), and the key in no output.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsCLI

final class RevenueCatErrorTests: RevenueCatTestCase {
    private static func error(_ status: Int, code: Int, _ message: String, headers: [(String, String)] = []) -> HTTPResponse {
        .json(.object(JSONObject([("code", .number(String(code))), ("message", .string(message))])), status: status, headers: headers)
    }

    /// Answers every request with `response`.
    private func always(_ response: HTTPResponse) { rc.script = { _, _ in response } }

    func testEveryErrorStatusMapsToOurs() {
        let cases: [(HTTPResponse, ExitCode, String)] = [
            (Self.error(400, code: 7000, "Invalid app user id"), .dataError,
             "/subscribers/tina: RevenueCat refused the request (HTTP 400, code 7000): Invalid app user id"),
            (Self.error(422, code: 7226, "Cannot process"), .dataError, "(HTTP 422, code 7226): Cannot process"),
            (Self.error(409, code: 7638, "Conflict"), .dataError, "(HTTP 409, code 7638): Conflict"),
            // GET /subscribers/{id} creates unknown app users: its 404 means the base URL is wrong.
            (Self.error(404, code: 7259, "Subscriber not found"), .configError,
             "/v1/subscribers/tina: HTTP 404 (RevenueCat's GET /subscribers/{id} never answers 404: it creates unknown app users): "
                + "the base URL (--remote) looks wrong; it should end in /v1, as in https://api.revenuecat.com/v1"),
            (Self.error(401, code: 7225, "Invalid API key"), .permissionDenied, "permission denied (HTTP 401)"),
            (Self.error(403, code: 7243, "Secret API keys should not be used in your app."), .permissionDenied, "permission denied (HTTP 403)"),
            (Self.error(501, code: 1, "Not implemented"), .unavailable, "remote unavailable: HTTP 501"),
            (HTTPResponse(status: 400, body: Array("<html>bad</html>".utf8)), .dataError, "RevenueCat refused the request (HTTP 400)"),
            (HTTPResponse(status: 418, body: []), .dataError, "(HTTP 418)"),
            (HTTPResponse(status: 302, headers: [("Location", "https://evil.example/")], body: []), .protocolError, "unexpected redirect"),
            (HTTPResponse(status: 204, body: []), .protocolError, "unexpected HTTP status 204"),
        ]
        for (response, status, message) in cases {
            always(response)
            let result = run(["check", "tina"])
            XCTAssertEqual(result.status, status, "\(response.status): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: ") && result.stderr.contains(message), "\(response.status): \(result.stderr)")
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
            XCTAssertEqual(result.stdout, "")
        }
        // A write gets the same statuses, with RevenueCat's message.
        rc.script = { _, r in r.method == "POST" ? Self.error(400, code: 7103, "Entitlement not found") : nil }
        let grant = run(["grant", "tina", "nosuch", "--duration", "P1D"])
        XCTAssertEqual(grant.status, .dataError)
        XCTAssertTrue(grant.stderr.contains("Entitlement not found"), grant.stderr)
        rc.script = { _, r in r.method == "POST" ? Self.error(404, code: 7259, "Not found") : nil }
        XCTAssertEqual(run(["grant", "tina", "nosuch", "--duration", "P1D"]).status, .notFound)
        rc.script = { _, r in r.method == "POST" ? Self.error(403, code: 7243, "needs a secret key") : nil }
        XCTAssertEqual(run(["grant", "tina", "gold", "--duration", "P1D"]).status, .permissionDenied)
    }

    func testRateLimitIsRetriedHonouringRetryAfter() throws {
        rc.script = { n, _ in n <= 2 ? Self.error(429, code: 7264, "Too many requests", headers: [("Retry-After", "0")]) : nil }
        let result = run(["check", "tina", "-q"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(rc.requestCount, 3)
    }

    func testStillRateLimitedAfterThreeRetriesIsExit75() {
        always(Self.error(429, code: 7264, "Too many requests", headers: [("Retry-After", "0")]))
        let result = run(["check", "tina"])
        XCTAssertEqual(result.status, .temporaryFailure, result.stderr)
        XCTAssertEqual(rc.requestCount, 4)
        XCTAssertTrue(result.stderr.contains("rate limited (HTTP 429) after retries"), result.stderr)
    }

    func testARetryAfterBeyondTheTimeoutIsNotWaitedForNorCutShort() {
        // The server asks for 60 s; the budget is 2 s: no early retry, exit 75 at once, saying so.
        always(Self.error(429, code: 7264, "Too many requests", headers: [("Retry-After", "60")]))
        let result = run(["--timeout", "2", "check", "tina"])
        XCTAssertEqual(result.status, .temporaryFailure, result.stderr)
        XCTAssertEqual(rc.requestCount, 1)
        XCTAssertTrue(result.stderr.contains("the server asks to retry after 60 s"), result.stderr)
    }

    func testAWriteIsNeverRepeated() {
        // v1 takes no Idempotency-Key: a retried grant could grant twice.
        rc.script = { _, r in r.method == "POST" ? Self.error(429, code: 7264, "slow down", headers: [("Retry-After", "0")]) : nil }
        let result = run(["grant", "tina", "gold", "--duration", "P1D"])
        XCTAssertEqual(result.status, .temporaryFailure, result.stderr)
        XCTAssertEqual(rc.requests.filter { $0.method == "POST" }.count, 1)
        XCTAssertNil(rc.requests.last?.headers["Idempotency-Key"])
        rc.script = { _, r in r.method == "POST" ? HTTPResponse(status: 503) : nil }
        XCTAssertEqual(run(["grant", "tina", "gold", "--duration", "P1D"]).status, .unavailable)
        XCTAssertEqual(rc.requests.filter { $0.method == "POST" }.count, 2)
    }

    func testServerErrorsAreRetriedThenExit69() {
        rc.script = { n, _ in n == 1 ? HTTPResponse(status: 503) : nil }
        XCTAssertEqual(run(["check", "tina", "-q"]).status, .success)
        XCTAssertEqual(rc.requestCount, 2)
        for status in [500, 502, 503, 504] {
            always(HTTPResponse(status: status))
            let before = rc.requestCount
            // (A fresh cache: a cached answer would stand in for the failing server.)
            let result = run(["check", "tina"], env: ["XDG_CACHE_HOME": dir.path + "/cache-\(status)"])
            XCTAssertEqual(result.status, .unavailable, "\(status): \(result.stderr)")
            XCTAssertEqual(rc.requestCount - before, 4, "\(status)")
        }
    }

    func testGarbageAndShapesThatAreNotTheAPIsAreExit76SayingWhere() {
        let cases: [(String, String)] = [
            ("not json", "the answer is not JSON: 1:"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {", "the answer is not JSON"),
            ("[]", "unexpected answer: expected an object, found array"),
            ("{}", "request_date: required"),
            ("{\"request_date\": 5, \"subscriber\": {}}", "request_date: expected a string, found number"),
            ("{\"request_date\": \"yesterday\", \"subscriber\": {}}", "request_date: expected an ISO 8601 date-time"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\"}", "subscriber: required"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": []}", "subscriber: expected an object, found array"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"entitlements\": []}}",
             "subscriber.entitlements: expected an object, found array"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"entitlements\": {\"premium\": {\"expires_date\": 1}}}}",
             "subscriber.entitlements.premium.expires_date: expected a string, found number"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"entitlements\": {\"a\": 1, \"b\": {\"purchase_date\": []}}}}",
             "subscriber.entitlements.a: expected an object, found number"),
            ("{\"request_date\": \"10000-01-01T00:00:00Z\", \"subscriber\": {}}", "request_date: expected an ISO 8601 date-time in years 0001-9999"),
        ]
        for (body, message) in cases {
            always(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8)))
            let result = run(["check", "tina"])
            XCTAssertEqual(result.status, .protocolError, "\(body): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: ") && result.stderr.contains(message), "\(body): \(result.stderr)")
            XCTAssertEqual(result.stdout, "")
        }
        // The answer of a write is checked the same way.
        rc.script = { _, r in r.method == "POST" ? HTTPResponse(status: 201, body: Array("{\"request_date\": null}".utf8)) : nil }
        XCTAssertEqual(run(["grant", "tina", "gold", "--duration", "P1D"]).status, .protocolError)
    }

    /// A malformed subscription or purchase is a part of the subscriber, not all of it: left out
    /// with a warning naming its path, the customer answered, exit 0.
    func testAMalformedSubscriptionOrPurchaseIsAWarningNotAnError() {
        let cases: [(String, String)] = [
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"subscriptions\": {\"p\": {\"is_sandbox\": \"no\"}}}}",
             "subscriber.subscriptions.p.is_sandbox: expected true or false, found string"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"non_subscriptions\": {\"p\": {}}}}",
             "subscriber.non_subscriptions.p: expected an array, found object"),
            ("{\"request_date\": \"2026-12-01T12:00:00Z\", \"subscriber\": {\"non_subscriptions\": {\"p\": [7]}}}",
             "subscriber.non_subscriptions.p[0]: expected an object, found number"),
        ]
        for (body, message) in cases {
            always(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8)))
            let result = run(["check", "tina"])
            XCTAssertEqual(result.status, .success, "\(body): \(result.stderr)")
            XCTAssertEqual(result.stderr, "subs: warning: \(message) (RevenueCat's subscriber 'tina': this item is left out, "
                           + "the rest is answered)\n", body)
            XCTAssertEqual(result.stdout, "tina\nno entitlements\n", body)
        }
    }

    func testControlCharactersInRevenueCatsMessageNeverReachTheTerminalRaw() {
        always(Self.error(400, code: 1, "bad \u{1B}[31mred\u{07} \u{202E}x"))
        let result = run(["check", "tina"])
        XCTAssertEqual(result.status, .dataError)
        XCTAssertFalse(result.stderr.contains("\u{1B}") || result.stderr.contains("\u{07}") || result.stderr.contains("\u{202E}"), result.stderr)
    }

    func testAServerThatNeverAnswersOrIsGoneIsExit69() throws {
        let listener = try ServerSocketForTests()
        let silent = runCLI(["--remote", "http://127.0.0.1:\(listener.port)/v1", "--provider", "revenuecat", "--timeout", "0.5",
                             "check", "tina"], env: ["SUBS_API_KEY": FakeRevenueCat.key, "XDG_CACHE_HOME": dir.path + "/cache"])
        XCTAssertEqual(silent.status, .unavailable, silent.stderr)
        XCTAssertTrue(silent.stderr.contains("no answer within the timeout (0.5 s)"), silent.stderr)
        rc.stop()
        let gone = run(["check", "tina"])
        XCTAssertEqual(gone.status, .unavailable, gone.stderr)
    }

    func testTheKeyIsInNoOutputWhateverHappens() throws {
        // run() asserts it for every call; here the failures that name the URL or the key's source.
        let keyFile = dir.write("key", FakeRevenueCat.key + "\n")
        chmod(keyFile, 0o644)
        let arguments = ["--remote", rc.base, "--provider", "revenuecat", "--api-key-file", keyFile, "check", "tina", "--json"]
        let refused = runCLI(arguments, env: ["XDG_CACHE_HOME": dir.path + "/cache"])
        XCTAssertEqual(refused.status, .permissionDenied, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("readable by group or others"), refused.stderr)
        XCTAssertFalse((refused.stdout + refused.stderr).contains(FakeRevenueCat.key))
        chmod(keyFile, 0o600)
        let result = runCLI(arguments, env: ["XDG_CACHE_HOME": dir.path + "/cache"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains(FakeRevenueCat.key))
        always(Self.error(401, code: 7225, "Invalid API key"))
        rc.expectedKey = "sk_WRONGkey999"
        let denied = run(["check", "tina"], key: "sk_WRONGkey999")
        XCTAssertEqual(denied.status, .permissionDenied)
        XCTAssertFalse(denied.stderr.contains("sk_WRONGkey999"), denied.stderr)
        XCTAssertEqual(rc.requests.last?.headers["Authorization"], "Bearer sk_WRONGkey999")
        rc.script = nil
    }
}

/// A TCP listener that accepts connections and never answers (a hung server).
final class ServerSocketForTests {
    let fd: Int32
    let port: Int
    init() throws {
        guard let (fd, port) = LoopbackSocket.listen(backlog: 8) else { throw NSError(domain: "listen", code: Int(errno)) }
        self.fd = fd
        self.port = port
    }
    deinit { close(fd) }
}
