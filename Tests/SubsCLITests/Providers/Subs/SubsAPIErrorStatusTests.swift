// Every error answer of the subs REST API gives the exit status the same command gives on a local
// store (SPEC section 6 table) and shows the server's own message; answers that are not the API's
// JSON are 76, or 78 for a 404 (a wrong base URL). Against a canned fake, then a real `subs
// serve` whose store is broken, missing, locked or cannot be written.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsServer
@testable import SubsCLI

final class SubsAPIErrorStatusTests: XCTestCase {
    private var dir: TempDir!
    private var server: HTTPServer?

    override func setUp() { dir = TempDir() }

    override func tearDown() {
        server?.stop()
        server?.wait()
    }

    private func serve(_ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> String {
        let server = HTTPServer(configuration: HTTPServerConfiguration.subsAPI(host: "127.0.0.1", port: 0), handler: handler)
        try server.start()
        self.server = server
        return "http://127.0.0.1:\(server.port)"
    }

    /// (Each call with a cache of its own: a 200 cached by one case would stand in for a later 5xx.)
    private func remote(_ base: String, _ args: [String]) -> CLIResult {
        runCLI(["--remote", base] + args,
               env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache-" + UUID().uuidString, "SUBS_TIMEOUT": "3"])
    }

    func testEveryErrorCodeMapsToTheLocalStatusWithTheServersMessage() throws {
        final class Canned: @unchecked Sendable {
            let lock = NSLock()
            var response = HTTPResponse(status: 200)
            var count = 0
        }
        let canned = Canned()
        let base = try serve { _ in
            canned.lock.lock(); defer { canned.lock.unlock() }
            canned.count += 1
            return canned.response
        }
        let cases: [(Int, String, ExitCode)] = [
            (400, "invalid_request", .usage), (413, "payload_too_large", .usage), (422, "idempotency_key_reused", .usage),
            (404, "customer_not_found", .notFound), (404, "entitlement_not_found", .notFound), (404, "grant_not_found", .notFound),
            (500, "invalid_store", .dataError), (500, "store_unreadable", .noInput), (500, "store_unwritable", .cannotWrite),
            (503, "busy", .temporaryFailure), (500, "internal", .internalError), (405, "method_not_allowed", .protocolError),
            (409, "conflict", .protocolError),
        ]
        for (status, code, exit) in cases {
            canned.lock.lock()
            canned.response = .error(status: status, code: code, message: "the server says \(code) \u{1B}[31m")
            canned.count = 0
            canned.lock.unlock()
            for command in [["grant", "alice", "premium", "--duration", "P1D"], ["revoke", "alice", "premium"], ["history", "alice"]] {
                // customer_not_found is a customer not found, said by the command itself as on a local
                // store: a grant's hint names --create (not the API's "create": true), a revoke's none.
                let expected = code == "customer_not_found" ? nil : "the server says \(code) \\x1b[31m"
                let result = remote(base, command)
                XCTAssertEqual(result.status, exit, "\(code) \(command[0]): \(result.stderr)")
                if let expected {
                    XCTAssertEqual(result.stderr, "subs: error: \(expected)\n", "\(code) \(command[0])")
                } else if command[0] != "history" {
                    let hint = command[0] == "grant" ? "; add --create to create it" : ""
                    XCTAssertEqual(result.stderr, "subs: error: customer 'alice' not found; nothing written\(hint)\n", command[0])
                }
                XCTAssertEqual(result.stdout, "")
            }
            // The server answered: a refusal is never retried (busy and internal included).
            XCTAssertEqual(canned.count, 3, code)
        }
        canned.response = .error(status: 401, code: "unauthorized", message: "missing or wrong bearer token")
        XCTAssertEqual(remote(base, ["check", "alice"]).status, .permissionDenied)
        XCTAssertEqual(remote(base, ["grant", "alice", "premium", "--lifetime"]).status, .permissionDenied)

        // Not this API's JSON: 76; a 404 of that kind: 78 (the base URL is wrong); a 5xx page: 69.
        let pages: [(HTTPResponse, ExitCode, String)] = [
            (HTTPResponse(status: 400, body: Array("<html>Bad Request</html>".utf8)), .protocolError, "HTTP 400 that is not the subs REST API's error JSON"),
            (HTTPResponse(status: 200, body: Array("<html>Welcome to nginx</html>".utf8)), .protocolError, "the answer is not JSON"),
            (.json(.object(JSONObject([("ok", .bool(true))]))), .protocolError, "requestDate missing"),
            (HTTPResponse(status: 404, body: Array("<html>Not Found</html>".utf8)), .configError, "the base URL (--remote) looks wrong"),
            (HTTPResponse(status: 404), .configError, "the base URL (--remote) looks wrong"),
            (.json(.object(JSONObject([("code", .number("7259")), ("message", .string("Subscriber not found"))])), status: 404),
             .configError, "HTTP 404 and a body that is not the subs REST API's error JSON"),
            (.error(status: 404, code: "not_found", message: "no such resource"), .configError, "subs serve has no such route: not_found"),
            (HTTPResponse(status: 500, body: Array("<html>oops</html>".utf8)), .unavailable, "remote unavailable: HTTP 500"),
        ]
        for (response, exit, words) in pages {
            canned.response = response
            for command in [["check", "alice"], ["grant", "alice", "premium", "--duration", "P1D"]] {
                let result = remote(base, command)
                // A grant's answer is checked alike, except a 200 (a grant answers 201, any 2xx read).
                XCTAssertEqual(result.status, exit, "\(response.status) \(command[0]): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("subs: error: ") && result.stderr.contains(words),
                              "\(response.status) \(command[0]): \(result.stderr)")
                XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
            }
        }
    }

    /// A server that lies: a message that would drive the terminal or fill the screen, a code
    /// that is no string, an error object without a code, the created header on a failure.
    func testAHostileErrorAnswerIsOneSafeLine() throws {
        let bodies: [(Int, String, ExitCode)] = [
            (400, #"{"error": {"code": "invalid_request", "message": "line one\nline two\r\u001b[2J\u0007 \u202e"}}"#, .usage),
            (400, #"{"error": {"code": "invalid_request", "message": "\#(String(repeating: "x", count: 100_000))"}}"#, .usage),
            (404, #"{"error": {"code": 404, "message": "customer not found"}}"#, .configError),
            (404, #"{"error": {"message": "customer not found"}}"#, .configError),
            (400, #"{"error": "invalid_request"}"#, .protocolError),
            (503, #"{"error": {"code": "busy\u001b[31m", "message": "?"}}"#, .unavailable),
            (418, #"{"error": {"code": "teapot", "message": "short and stout"}}"#, .protocolError),
        ]
        for (status, body, exit) in bodies {
            let base = try serve { _ in
                HTTPResponse(status: status, headers: [("Content-Type", "application/json"), (StoredRecord.createdHeader, "true")],
                             body: Array(body.utf8))
            }
            let result = remote(base, ["grant", "alice", "premium", "--duration", "P1D"])
            XCTAssertEqual(result.status, exit, "\(body.prefix(80)): \(result.stderr.prefix(300))")
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, String(result.stderr.prefix(300)))
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: "))
            XCTAssertLessThan(result.stderr.count, 700)
            XCTAssertFalse(result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x0D || $0.value == 0x202E })
            XCTAssertEqual(result.stdout, "")
            server?.stop()
            server?.wait()
            server = nil
        }
    }

    func testAServedStoreThatIsBrokenMissingOrLockedGivesTheLocalStatus() throws {
        let path = dir.write("store.json", DemoStore.json)
        let api = SubsAPI(store: LocalStore(path: path, lockTimeout: 0.2), token: "t0ken", clock: FixedClock(ISODate.parse(testNow)!))
        let base = try serve { api.handle($0) }
        let grant = ["grant", "trent", "premium", "--duration", "P1D"]

        // The lock held by another writer: 503 busy, exit 75 as locally.
        let lock = open(path + ".lock", O_RDWR | O_CREAT, 0o600)
        XCTAssertEqual(flock(lock, LOCK_EX), 0)
        let busy = remote(base, grant)
        XCTAssertEqual(busy.status, .temporaryFailure, busy.stderr)
        XCTAssertTrue(busy.stderr.contains("store is locked by another writer"), busy.stderr)
        XCTAssertEqual(runCLI(["--store", path] + grant, env: ["SUBS_LOCK_TIMEOUT": "0.2"]).status, .temporaryFailure)
        flock(lock, LOCK_UN)
        close(lock)

        // Not a valid store: 65, the server's message naming the problem.
        try #"{"schemaVersion": 1, "products": {}, "customers": {"#.write(toFile: path, atomically: true, encoding: .utf8)
        for args in [["check", "alice"], grant] {
            let broken = remote(base, args)
            XCTAssertEqual(broken.status, .dataError, broken.stderr)
            XCTAssertTrue(broken.stderr.hasPrefix("subs: error: the store cannot be served: \(path):1:"), broken.stderr)
            XCTAssertEqual(runCLI(["--store", path] + args).status, .dataError)
        }

        // Gone: 66.
        unlink(path)
        let missing = remote(base, ["check", "alice"])
        XCTAssertEqual(missing.status, .noInput, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("\(path): no such store"), missing.stderr)
        XCTAssertEqual(remote(base, grant).status, .noInput)

        // Cannot be written (a directory that refuses new files; root writes anyway): 73 or 77 locally, 73 remotely.
        try DemoStore.json.write(toFile: path, atomically: true, encoding: .utf8)
        guard geteuid() != 0 else { return }
        chmod(dir.path, 0o555)
        defer { chmod(dir.path, 0o755) }
        let unwritable = remote(base, grant)
        XCTAssertEqual(unwritable.status, .cannotWrite, unwritable.stderr)
        XCTAssertTrue(unwritable.stderr.contains(path), unwritable.stderr)
        XCTAssertEqual(remote(base, ["check", "alice", "-q"]).status, .success, "reads still served")
    }
}
