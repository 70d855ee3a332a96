// `--provider qonversion` failures: every error status of v3 (body `{"error": {"type", "code",
// "message"}}`, any part missing) and every answer that is not v3's, mapped to subs' statuses;
// the cache and --offline; the key in no output and no cache file.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsCLI

final class QonversionErrorTests: XCTestCase {
    private var api: QonversionFakeAPI!
    private var dir: TempDir!
    private var outputs: [CLIResult] = []

    override func setUpWithError() throws {
        api = try QonversionFakeAPI()
        dir = TempDir()
    }

    override func tearDown() {
        api.stop()
        XCTAssertEqual(api.problems, [], "requests the fake Qonversion API did not expect")
        for result in outputs {
            for key in [QonversionFakeAPI.projectKey, QonversionFakeAPI.secretKey] {
                XCTAssertFalse(result.stdout.contains(key) || result.stderr.contains(key), "the key in the output")
            }
        }
    }

    private func run(_ args: [String], key: String = QonversionFakeAPI.secretKey) -> CLIResult {
        let result = runQonversion(args, remote: api.base, key: key, cache: dir.path + "/cache")
        outputs.append(result)
        return result
    }

    private let entitlementsOfAlice = "/v3/users/QON_renewing/entitlements"

    func testErrorStatusesMapToSubsStatuses() {
        let grant = ["grant", "alice", "beta", "--duration", "P1D"]
        let cases: [(String, String, HTTPResponse, [String], ExitCode, String)] = [
            ("GET", entitlementsOfAlice, QonversionFakeAPI.error(401, message: "bad key"), ["check", "alice"], .permissionDenied,
             "permission denied (HTTP 401): check the API key"),
            ("GET", "/v3/identities/alice", QonversionFakeAPI.error(403), ["check", "alice"], .permissionDenied, "(HTTP 403)"),
            ("GET", entitlementsOfAlice, QonversionFakeAPI.error(404, code: "user_not_found"), ["check", "alice"], .notFound,
             "customer 'alice' not found"),
            ("POST", entitlementsOfAlice,
             QonversionFakeAPI.error(422, type: "invalid_request_error", code: "paid_entitlement", message: "Cannot modify a paid entitlement"),
             grant, .dataError, "Qonversion refused the request (HTTP 422): Cannot modify a paid entitlement (paid_entitlement)"),
            ("POST", entitlementsOfAlice, QonversionFakeAPI.error(422, code: "paid_entitlement"), grant, .dataError,
             "(HTTP 422): paid_entitlement"),
            ("POST", entitlementsOfAlice, QonversionFakeAPI.error(422, type: "invalid_request_error"), grant, .dataError,
             "(HTTP 422): invalid_request_error"),
            ("POST", entitlementsOfAlice, QonversionFakeAPI.error(422), grant, .dataError, "(HTTP 422): no reason given"),
            ("POST", entitlementsOfAlice, HTTPResponse(status: 422, body: Array("<html>".utf8)), grant, .dataError,
             "(HTTP 422): no reason given"),
            ("POST", entitlementsOfAlice, QonversionFakeAPI.error(400, message: "expires must be in the future"), grant, .dataError,
             "(HTTP 400): expires must be in the future"),
            ("GET", entitlementsOfAlice, QonversionFakeAPI.error(422, message: "user is being deleted"), ["check", "alice"],
             .dataError, "(HTTP 422): user is being deleted"),
            ("DELETE", "/v3/users/QON_manual/entitlements/beta", QonversionFakeAPI.error(422, code: "paid_entitlement"),
             ["revoke", "QON_manual", "beta"], .dataError, "(HTTP 422): paid_entitlement"),
            ("GET", entitlementsOfAlice, QonversionFakeAPI.error(418, message: "teapot"), ["check", "alice"], .protocolError,
             "unexpected HTTP status 418: teapot"),
            ("GET", entitlementsOfAlice, QonversionFakeAPI.error(501), ["check", "alice"], .unavailable, "remote unavailable: HTTP 501"),
            ("POST", entitlementsOfAlice, QonversionFakeAPI.error(503), grant, .unavailable, "HTTP 503"),
            ("POST", entitlementsOfAlice, QonversionFakeAPI.error(429), grant, .temporaryFailure, "rate limited"),
        ]
        for (method, target, response, args, status, words) in cases {
            let fresh = TempDir()
            api.answer(method, target, response)
            let result = runQonversion(args, remote: api.base, key: QonversionFakeAPI.secretKey, cache: fresh.path)
            outputs.append(result)
            XCTAssertEqual(result.status, status, "\(method) \(target) \(response.status): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), "\(response.status): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), result.stderr)
            api.forgetCanned()
        }
    }

    func testReadsAreRetriedOn429And5xxThenGiveUpWithTheirStatus() {
        api.answer("GET", entitlementsOfAlice, { var r = QonversionFakeAPI.error(429); r.headers.append(("Retry-After", "0")); return r }())
        api.forget()
        let limited = run(["check", "alice"])
        XCTAssertEqual(limited.status, .temporaryFailure, limited.stderr)
        XCTAssertEqual(api.seen.filter { $0.target == entitlementsOfAlice }.count, 4, "one attempt and three retries")

        api.answer("GET", entitlementsOfAlice, { var r = QonversionFakeAPI.error(503); r.headers.append(("Retry-After", "0")); return r }())
        api.forget()
        let down = run(["check", "alice"])
        XCTAssertEqual(down.status, .unavailable, down.stderr)
        XCTAssertEqual(api.seen.filter { $0.target == entitlementsOfAlice }.count, 4)

        // A write is not repeated: Qonversion has no idempotency key.
        api.answer("POST", entitlementsOfAlice, QonversionFakeAPI.error(503))
        api.forget()
        XCTAssertEqual(run(["grant", "alice", "beta", "--duration", "P1D"]).status, .unavailable)
        XCTAssertEqual(api.seen.filter { $0.method == "POST" }.count, 1)
    }

    func testAnswersThatAreNotV3sAreProtocolErrorsWithWhere() {
        let cases: [(String, String, String)] = [
            (entitlementsOfAlice, "not json", "the answer is not JSON"),
            (entitlementsOfAlice, "[]", "expected object, found array"),
            (entitlementsOfAlice, #"{"items": []}"#, "data: missing"),
            (entitlementsOfAlice, #"{"data": {"id": "plus"}}"#, "data: expected array, found object"),
            (entitlementsOfAlice, #"{"data": [7]}"#, "data[0]: expected object, found number"),
            (entitlementsOfAlice, #"{"data": [{"active": true}]}"#, "data[0].id: missing"),
            (entitlementsOfAlice, #"{"data": [{"id": "", "active": true}]}"#, "data[0].id: empty entitlement id"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus"}]}"#, "data[0].active: missing"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus", "active": "yes"}]}"#, "data[0].active: expected boolean, found string"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus", "active": true, "expires": "soon"}]}"#,
             "data[0].expires: expected epoch seconds, found string"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus", "active": true, "expires": 1796600000000}]}"#,
             "data[0].expires: 1796600000000 is not an epoch time in years 0001–9999"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus", "active": true, "started": 1e400}]}"#,
             "data[0].started: 1e400 is not an epoch time"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus", "active": true, "product": "main"}]}"#,
             "data[0].product: expected object, found string"),
            (entitlementsOfAlice, #"{"data": [{"id": "plus", "active": true, "product": {"subscription": {"renew_state": 1}}}]}"#,
             "data[0].product.subscription.renew_state: expected string, found number"),
            (entitlementsOfAlice, #"{"data": [], "data": []}"#, "the answer is not JSON"),
            ("/v3/identities/alice", #"{"id": "alice"}"#, "user_id: missing"),
            ("/v3/identities/alice", #"{"user_id": ""}"#, "user_id: empty user id"),
            ("/v3/identities/alice", #"{"user_id": 42}"#, "user_id: expected string, found number"),
        ]
        for (target, body, words) in cases {
            api.answer("GET", target, HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8)))
            let result = runQonversion(["check", "alice"], remote: api.base, cache: TempDir().path)
            XCTAssertEqual(result.status, .protocolError, "\(body): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("unexpected answer: \(words)"), "\(body): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(target), result.stderr)
            api.forgetCanned()
        }
        // The answer of a grant is checked the same way.
        api.answer("POST", entitlementsOfAlice, HTTPResponse(status: 201, body: Array(#"{"id": "beta"}"#.utf8)))
        let grant = run(["grant", "alice", "beta", "--duration", "P1D"])
        XCTAssertEqual(grant.status, .protocolError, grant.stderr)
        XCTAssertTrue(grant.stderr.contains("active: missing"), grant.stderr)
    }

    func testTheCacheAnswersWhenQonversionCannotBeReachedAndOfflineUsesItOnly() throws {
        XCTAssertEqual(run(["check", "alice", "-q"]).status, .success)
        XCTAssertEqual(run(["check", "QON_intro", "-q"]).status, .success)
        api.forget()
        let offline = run(["--offline", "check", "alice", "--json"])
        XCTAssertEqual(offline.status, .success, offline.stderr)
        XCTAssertEqual(api.seen, [], "--offline asks nothing")
        XCTAssertEqual(try JSON.parse(offline.stdout)["aliases"], .array([.string("QON_renewing")]))
        XCTAssertEqual(try JSON.parse(offline.stdout)["requestDate"], .string(testNow),
                       "a cached answer is judged at the local clock, not at the server's Date")
        XCTAssertEqual(run(["--offline", "check", "bob"]).status, .unavailable)
        XCTAssertEqual(run(["--max-age", "P1D", "check", "QON_intro", "-q"]).status, .success)
        XCTAssertEqual(api.seen, [], "--max-age answers from a fresh entry")

        api.stop()
        let cached = run(["check", "alice", "--json"])
        XCTAssertEqual(cached.status, .success, cached.stderr)
        XCTAssertTrue(cached.stderr.contains("subs: note: ") && cached.stderr.contains("answered from the cache"), cached.stderr)
        let gone = run(["check", "bob"])
        XCTAssertEqual(gone.status, .unavailable, gone.stderr)
        XCTAssertEqual(run(["grant", "alice", "beta", "--duration", "P1D"]).status, .unavailable, "a write needs Qonversion")

        assertNoFileContains([QonversionFakeAPI.projectKey, QonversionFakeAPI.secretKey], under: dir.path + "/cache")
    }

    func testAProjectKeyIsCachedApartFromTheSecretKey() {
        XCTAssertEqual(run(["check", "alice", "-q"], key: QonversionFakeAPI.projectKey).status, .success)
        XCTAssertEqual(run(["--offline", "check", "alice", "-q"], key: QonversionFakeAPI.secretKey).status, .unavailable,
                       "another key's answers are not served")
    }
}
