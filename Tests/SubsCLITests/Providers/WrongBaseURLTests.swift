// A 404 that is not the vendor's own not-found answer means the base URL is wrong (exit 78, one
// line with the URL asked and the form the base URL should have), never "customer not found";
// a 200 that is not the API's JSON is 76; each vendor's genuine not-found stays exit 3.
// RevenueCat's GET /subscribers/{id} never answers 404 (it creates unknown app users): any 404
// there is a wrong base URL. (subs serve: SubsAPIErrorStatusTests, RemoteWriteParityTests.)

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsCLI

final class WrongBaseURLTests: XCTestCase {
    private var dir: TempDir!
    private var server: HTTPServer!
    private var base = ""
    private let canned = CannedAnswers()

    /// Answers by "METHOD path" (the query left out); anything else: an HTML 404 page.
    final class CannedAnswers: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [String: HTTPResponse] = [:]
        func set(_ key: String, _ response: HTTPResponse) { lock.lock(); answers[key] = response; lock.unlock() }
        func reset() { lock.lock(); answers = [:]; lock.unlock() }
        func answer(_ request: HTTPRequest) -> HTTPResponse {
            lock.lock(); defer { lock.unlock() }
            return answers["\(request.method) \(request.path)"] ?? WrongBaseURLTests.page(404)
        }
    }

    static func page(_ status: Int, _ text: String = "<html><body><h1>Not Found</h1></body></html>") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html")], body: Array(text.utf8))
    }

    static func json(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    /// Bodies that are not any vendor's own not-found: a page, nothing, another API's JSON.
    static let foreign404s: [(String, HTTPResponse)] = [
        ("an HTML page", page(404)),
        ("an empty body", HTTPResponse(status: 404)),
        ("plain text", HTTPResponse(status: 404, headers: [("Content-Type", "text/plain")], body: Array("404 page not found\n".utf8))),
        ("a JSON array", json(404, "[]")),
    ]

    override func setUpWithError() throws {
        dir = TempDir()
        let canned = self.canned
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: { canned.answer($0) })
        try server.start()
        base = "http://127.0.0.1:\(server.port)"
    }

    override func tearDown() {
        server.stop()
        server.wait()
    }

    private func run(_ provider: String, _ remote: String, _ args: [String]) -> CLIResult {
        runCLI(["--remote", remote, "--provider", provider] + args,
               env: ["SUBS_API_KEY": "sk_k3y", "XDG_CACHE_HOME": dir.path + "/cache-" + UUID().uuidString, "SUBS_TIMEOUT": "3"])
    }

    private func assertWrongBase(_ result: CLIResult, asked url: String, expected: String, _ label: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, .configError, "\(label): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(url): HTTP 404 "), "\(label): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasSuffix("the base URL (--remote) looks wrong; it should \(expected)\n"),
                      "\(label): \(result.stderr)", file: file, line: line)
        XCTAssertFalse(result.stderr.contains("not found ("), "\(label): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
    }

    func testRevenueCat() {
        let expected = "end in /v1, as in https://api.revenuecat.com/v1"
        // Whatever the body — RevenueCat's own error JSON included — a 404 on GET /subscribers/{id}.
        let rcError = Self.json(404, #"{"code": 7259, "message": "Subscriber not found"}"#)
        for (label, response) in Self.foreign404s + [("RevenueCat's error JSON", rcError)] {
            canned.set("GET /v1/subscribers/tina", response)
            assertWrongBase(run("revenuecat", base + "/v1", ["check", "tina"]), asked: base + "/v1/subscribers/tina",
                            expected: expected, label)
            XCTAssertEqual(run("revenuecat", base + "/v1", ["history", "tina"]).status, .configError, label)
        }
        // A base URL without /v1 (or another service at that address): its 404 page.
        canned.reset()
        assertWrongBase(run("revenuecat", base, ["check", "tina"]), asked: base + "/subscribers/tina", expected: expected, "no /v1")
        // A write's 404: RevenueCat's JSON is its "not found" (3); a page is the wrong base URL.
        let grant = ["grant", "tina", "gold", "--duration", "P1D", "--create"]
        canned.set("POST /v1/subscribers/tina/entitlements/gold/promotional", rcError)
        XCTAssertEqual(run("revenuecat", base + "/v1", grant).status, .notFound)
        canned.set("POST /v1/subscribers/tina/entitlements/gold/promotional", Self.page(404))
        assertWrongBase(run("revenuecat", base + "/v1", grant), asked: base + "/v1/subscribers/tina/entitlements/gold/promotional",
                        expected: expected, "a write")
        // A 200 that is not RevenueCat's JSON: 76.
        canned.set("GET /v1/subscribers/tina", Self.page(200, "<html>Welcome</html>"))
        XCTAssertEqual(run("revenuecat", base + "/v1", ["check", "tina"]).status, .protocolError)
    }

    func testQonversion() {
        let expected = "end in /v3, as in https://api.qonversion.io/v3"
        let own404 = Self.json(404, #"{"error": {"type": "not_found", "code": "identity_not_found", "message": "not found"}}"#)
        // Its own not-found: the identity, or a QON_ user's entitlements.
        canned.set("GET /v3/identities/zoe", own404)
        canned.set("GET /v3/users/QON_zoe/entitlements", Self.json(404, #"{"error": {"code": "user_not_found"}}"#))
        for user in ["zoe", "QON_zoe"] {
            let result = run("qonversion", base + "/v3", ["check", user])
            XCTAssertEqual(result.status, .notFound, result.stderr)
            XCTAssertEqual(result.stderr, "subs: error: customer '\(user)' not found\n")
        }
        for (label, response) in Self.foreign404s + [("another API's JSON", Self.json(404, #"{"code": 7259, "message": "x"}"#))] {
            canned.set("GET /v3/identities/zoe", response)
            canned.set("GET /v3/users/QON_zoe/entitlements", response)
            assertWrongBase(run("qonversion", base + "/v3", ["check", "zoe"]), asked: base + "/v3/identities/zoe", expected: expected, label)
            assertWrongBase(run("qonversion", base + "/v3", ["check", "QON_zoe"]), asked: base + "/v3/users/QON_zoe/entitlements",
                            expected: expected, label)
            // A write's 404 alike: the revoke's DELETE.
            canned.set("GET /v3/users/QON_zoe/entitlements", Self.json(200, #"{"data": []}"#))
            canned.set("DELETE /v3/users/QON_zoe/entitlements/plus", response)
            assertWrongBase(run("qonversion", base + "/v3", ["revoke", "QON_zoe", "plus"]),
                            asked: base + "/v3/users/QON_zoe/entitlements/plus", expected: expected, label)
        }
        canned.set("DELETE /v3/users/QON_zoe/entitlements/plus", Self.json(404, #"{"error": {"code": "entitlement_not_found"}}"#))
        XCTAssertEqual(run("qonversion", base + "/v3", ["revoke", "QON_zoe", "plus"]).status, .notFound)
        canned.set("GET /v3/users/QON_zoe/entitlements", Self.page(200, "<html>Welcome</html>"))
        XCTAssertEqual(run("qonversion", base + "/v3", ["check", "QON_zoe"]).status, .protocolError)
    }

    func testQonversionV4SaysItsOwnVersion() {
        // v4 reads through the v3 source's checks: a wrong v4 URL is told to end in /v4, never /v3.
        for args in [["check", "zoe"], ["history", "QON_zoe"], ["renew-count", "QON_zoe"]] {
            let result = run("qonversion", base + "/v4", args)
            XCTAssertEqual(result.status, .configError, result.stderr)
            XCTAssertTrue(result.stderr.hasSuffix("the base URL (--remote) looks wrong; it should end in /v4, as in https://api.qonversion.io/v4\n"),
                          result.stderr)
        }
    }

    func testIAPHUB() {
        let expected = "name your app, as in https://api.iaphub.com/v1/app/APP_ID"
        let app = base + "/v1/app/app1"
        for body in [#"{"error": "user_not_found"}"#, #"{"code": "user_not_found", "message": "user not found"}"#] {
            canned.set("GET /v1/app/app1/user/zoe", Self.json(404, body))
            let result = run("iaphub", app, ["check", "zoe"])
            XCTAssertEqual(result.status, .notFound, "\(body): \(result.stderr)")
            XCTAssertEqual(result.stderr, "subs: error: customer 'zoe' not found\n")
        }
        let others: [(String, HTTPResponse)] = [("a subs-shaped error", Self.json(404, #"{"error": {"code": "not_found"}}"#)),
                                                ("a numeric code", Self.json(404, #"{"code": 7259, "message": "x"}"#))]
        for (label, response) in Self.foreign404s + others {
            canned.set("GET /v1/app/app1/user/zoe", response)
            assertWrongBase(run("iaphub", app, ["check", "zoe"]), asked: app + "/user/zoe", expected: expected, label)
        }
        // The app id left out of the URL.
        assertWrongBase(run("iaphub", base + "/v1", ["check", "zoe"]), asked: base + "/v1/user/zoe", expected: expected, "no app")
        canned.set("GET /v1/app/app1/user/zoe", Self.page(200, "<html>Welcome</html>"))
        XCTAssertEqual(run("iaphub", app, ["check", "zoe"]).status, .protocolError)
    }
}
