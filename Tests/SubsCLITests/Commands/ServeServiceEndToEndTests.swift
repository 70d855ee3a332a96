// `subs serve` as an entitlements service, end to end against the built binary (issue 33): the
// status routes answer the bytes the commands print on the same store, `at` is never ignored,
// tokens have names and scopes, every answer carries a request id that the log line and the
// client's error message show.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import XCTest

final class ServeServiceEndToEndTests: XCTestCase {
    private let now = "2026-12-01T12:00:00Z"

    private struct Server {
        let process: Process
        let port: Int
        let store: String
        let log: String
        var base: String { "http://127.0.0.1:\(port)" }
    }

    /// A `subs serve` on a fresh copy of the demo store at SUBS_NOW, stopped when the test ends.
    private func startServer(in dir: TempDir, tokenFile: String? = nil) throws -> Server {
        let store = dir.path + "/store.json"
        let text = try String(contentsOfFile: Repo.exampleStore, encoding: .utf8)
        try text.write(toFile: store, atomically: false, encoding: .utf8)
        let log = dir.path + "/serve.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        var arguments = ["--store", store, "serve", "--listen", "127.0.0.1:0"]
        if let tokenFile { arguments += ["--token-file", tokenFile] }
        let process = try Binary.start(arguments, env: ["SUBS_NOW": now], stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        let giveUp = Date().addingTimeInterval(20)
        while Date() < giveUp {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                return Server(process: process, port: port, store: store, log: log)
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        XCTFail("subs serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        throw POSIXError(.ECHILD)
    }

    private func call(_ server: Server, _ method: String, _ target: String, token: String? = nil, body: String? = nil,
                      key: String? = nil) throws -> RawResponse {
        let client = try RawClient(port: server.port)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let key { head += "Idempotency-Key: \(key)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        XCTAssertTrue(client.send(head + "\r\n" + (body ?? "")))
        return try XCTUnwrap(client.readResponse(timeout: 10), "\(method) \(target): no answer")
    }

    private func tokenFile(_ dir: TempDir, _ text: String) -> String {
        let path = dir.write("tokens", text)
        chmod(path, 0o600)
        return path
    }

    // MARK: status routes

    func testTheStatusRoutesAnswerTheBytesTheCommandsPrint() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        let cases: [(String, [String])] = [
            ("/v1/customers/erin/entitlements", ["check", "erin"]),
            ("/v1/customers/alice/entitlements", ["check", "alice"]),
            ("/v1/customers/alice-android/entitlements", ["check", "alice-android"]),
            ("/v1/customers/alice/entitlements?at=2025-06-01", ["check", "alice", "--at", "2025-06-01"]),
            ("/v1/customers/erin/entitlements?at=2026-08-01%2012:00Z", ["check", "erin", "--at", "2026-08-01 12:00Z"]),
            ("/v1/customers/erin/entitlements?at=2026-08-01+12:00Z", ["check", "erin", "--at", "2026-08-01 12:00Z"]),
            ("/v1/customers/bob/entitlements?environment=production", ["check", "bob", "--environment", "production"]),
            ("/v1/customers/erin/history", ["history", "erin"]),
            ("/v1/customers/alice/history?since=2026-01-01&until=2026-06-01T00:00:00%2B02:00",
             ["history", "alice", "--since", "2026-01-01", "--until", "2026-06-01T00:00:00+02:00"]),
            ("/v1/customers/alice/history?entitlement=premium&at=2026-03-01", ["history", "alice", "--entitlement", "premium", "--at", "2026-03-01"]),
            ("/v1/customers/alice/renew-count", ["renew-count", "alice"]),
            ("/v1/customers/alice/renew-count?entitlement=premium&at=2026-01-01", ["renew-count", "alice", "premium", "--at", "2026-01-01"]),
        ]
        for (target, command) in cases {
            let answer = try call(server, "GET", target)
            let printed = try Binary.run(["--store", server.store] + command + ["--format", "json"], env: ["SUBS_NOW": now])
            XCTAssertEqual(printed.status.rawValue, 0, "\(command): \(printed.stderr)")
            XCTAssertEqual(answer.status, 200, "\(target): \(answer.text)")
            XCTAssertEqual(answer.headers["content-type"], "application/json", target)
            XCTAssertEqual(answer.text, printed.stdout, "\(target) is not what subs \(command.joined(separator: " ")) prints")
        }
    }

    func testAtIsNeverIgnored() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        // The record route: requestDate is the instant to evaluate at, and the client evaluates there.
        let record = try call(server, "GET", "/v1/customers/alice?at=2020-01-01")
        XCTAssertEqual(record.status, 200)
        XCTAssertEqual(record.json?["requestDate"], .string("2020-01-01T00:00:00Z"))
        XCTAssertEqual(try call(server, "GET", "/v1/customers/alice").json?["requestDate"], .string(now))
        // The status routes: an answer at another instant is another answer.
        let before = try call(server, "GET", "/v1/customers/erin/entitlements?at=2026-08-01").json
        let after = try call(server, "GET", "/v1/customers/erin/entitlements").json
        XCTAssertEqual(before?["requestDate"], .string("2026-08-01T00:00:00Z"))
        XCTAssertNotEqual(before?["activeEntitlements"], after?["activeEntitlements"], "erin's access at two instants")
        // Where a route cannot use it, 400 naming it — and nothing written.
        let untouched = try String(contentsOfFile: server.store, encoding: .utf8)
        for (method, target, body) in [("POST", "/v1/customers/alice/grants?at=2030-01-01", #"{"entitlement": "premium", "expirationDate": null}"#),
                                       ("POST", "/v1/customers/alice/entitlements/premium/revoke?at=now", "{}"),
                                       ("GET", "/v1/health?at=now", nil),
                                       ("GET", "/v1/customers/alice/entitlements?at=yesterday", nil),
                                       ("GET", "/v1/customers/alice/entitlements?at=2026-02-30", nil),
                                       ("GET", "/v1/customers/alice/entitlements?at=now&at=now", nil),
                                       ("GET", "/v1/customers/alice?environment=sandbox", nil),
                                       ("GET", "/v1/customers/alice/history?since=2026-06-01&until=2026-01-01", nil),
                                       ("GET", "/v1/customers/alice/renew-count?entitlement=", nil),
                                       ("GET", "/v1/customers/alice/entitlements?limit=3", nil)] as [(String, String, String?)] {
            let answer = try call(server, method, target, body: body)
            XCTAssertEqual(answer.status, 400, "\(method) \(target): \(answer.text)")
            XCTAssertEqual(answer.errorCode, "invalid_request", target)
            let name = target.split(separator: "?").last!.split(separator: "=").first!
            XCTAssertTrue(answer.json?["error"]?["message"]?.stringValue?.contains(String(name)) == true, "\(target): \(answer.text)")
        }
        XCTAssertEqual(try String(contentsOfFile: server.store, encoding: .utf8), untouched)
    }

    func testNotFoundsAndMethods() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        XCTAssertEqual(try call(server, "GET", "/v1/customers/nobody/entitlements").errorCode, "customer_not_found")
        XCTAssertEqual(try call(server, "GET", "/v1/customers/nobody/history").errorCode, "customer_not_found")
        XCTAssertEqual(try call(server, "GET", "/v1/customers/alice/history?entitlement=premum").errorCode, "entitlement_not_found")
        let never = try call(server, "GET", "/v1/customers/erin/renew-count?entitlement=family")
        XCTAssertEqual(never.status, 404, never.text)
        let wrong = try call(server, "DELETE", "/v1/customers/alice/entitlements")
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.headers["allow"], "GET, HEAD")
        // HEAD: the GET's status and headers, no body (read to the end: the connection closes).
        let client = try RawClient(port: server.port)
        XCTAssertTrue(client.send("HEAD /v1/customers/alice/entitlements HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
        let head = String(decoding: client.readToEnd(timeout: 10), as: UTF8.self)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200"), head)
        XCTAssertTrue(head.hasSuffix("\r\n\r\n"), "a HEAD answer has no body: \(head)")
        for target in ["/", "/v1"] {
            let list = try call(server, "GET", target)
            XCTAssertEqual(list.status, 200)
            XCTAssertTrue(list.json?["routes"]?.arrayValue?.contains { $0["path"] == .string("/v1/customers/{id}/entitlements") } == true)
        }
        let description = try call(server, "GET", "/v1/openapi.json")
        XCTAssertEqual(description.status, 200)
        XCTAssertEqual(description.text, try String(contentsOfFile: Repo.path("docs/openapi.json"), encoding: .utf8))
    }

    // MARK: tokens

    func testTokensHaveNamesAndScopes() throws {
        let dir = TempDir()
        let file = tokenFile(dir, "# the team\n\nreader read r-token\nwriter\tread,write\tw-token\nboss read,write,admin a-token\n")
        let server = try startServer(in: dir, tokenFile: file)
        let grant = #"{"entitlement": "premium", "expirationDate": null}"#
        // Public routes need no token; the others do.
        for target in ["/", "/v1", "/v1/health", "/v1/openapi.json"] { XCTAssertEqual(try call(server, "GET", target).status, 200, target) }
        XCTAssertEqual(try call(server, "GET", "/v1/customers/alice/entitlements").status, 401)
        XCTAssertEqual(try call(server, "GET", "/v1/customers/alice/entitlements", token: "nope").status, 401)
        XCTAssertEqual(try call(server, "GET", "/v1/customers/alice/entitlements", token: "r-token").status, 200)
        // A read-only token cannot write: 403 forbidden, nothing written.
        let untouched = try String(contentsOfFile: server.store, encoding: .utf8)
        let refused = try call(server, "POST", "/v1/customers/carol/grants", token: "r-token", body: grant)
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(refused.errorCode, "forbidden")
        XCTAssertEqual(try call(server, "POST", "/v1/customers/alice/entitlements/premium/revoke", token: "r-token").status, 403)
        XCTAssertEqual(try String(contentsOfFile: server.store, encoding: .utf8), untouched)
        // The writer's grants are the writer's: its name, whatever the body leaves out.
        let written = try call(server, "POST", "/v1/customers/carol/grants", token: "w-token", body: grant)
        XCTAssertEqual(written.status, 201, written.text)
        XCTAssertEqual(written.json?["customer"]?["grants"]?.arrayValue?.last?["grantedBy"], .string("writer"))
        // Naming someone else: 400 for the writer, kept for the admin.
        let other = #"{"entitlement": "premium", "expirationDate": null, "grantedBy": "mallory"}"#
        let impersonation = try call(server, "POST", "/v1/customers/dave/grants", token: "w-token", body: other)
        XCTAssertEqual(impersonation.status, 400, impersonation.text)
        XCTAssertTrue(impersonation.text.contains("grantedBy"), impersonation.text)
        let same = #"{"entitlement": "premium", "expirationDate": null, "grantedBy": "writer"}"#
        XCTAssertEqual(try call(server, "POST", "/v1/customers/dave/grants", token: "w-token", body: same).status, 201)
        let onBehalf = try call(server, "POST", "/v1/customers/frank/grants", token: "a-token", body: other)
        XCTAssertEqual(onBehalf.status, 201, onBehalf.text)
        let check = try call(server, "GET", "/v1/customers/carol/entitlements", token: "r-token")
        XCTAssertEqual(check.json?["entitlements"]?["premium"]?["grantedBy"], .string("writer"))
        // The client: a read-only token's write is exit 77 with the server's message and request id.
        let client = try Binary.run(["--remote", server.base, "grant", "gwen", "premium", "--lifetime"],
                                    env: ["SUBS_NOW": now, "SUBS_API_KEY": "r-token"])
        XCTAssertEqual(client.status.rawValue, 77, client.stderr)
        XCTAssertTrue(client.stderr.contains("write scope"), client.stderr)
        XCTAssertNotNil(client.stderr.range(of: #"request req_[0-9a-f]{16}"#, options: .regularExpression), client.stderr)
    }

    func testABadTokenFileIsRefusedWithItsLine() throws {
        let dir = TempDir()
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        for (text, expected) in [("dana read,wrte t1\n", "line 1"), ("dana read t1\nerin read\n", "line 2"),
                                 ("dana read t1\ndana write t2\n", "line 2"), ("dana read t1\nerin write t1\n", "line 2"),
                                 ("# nothing\n\n", "no token")] {
            let file = tokenFile(dir, text)
            let run = try Binary.run(["--store", store, "serve", "--listen", "127.0.0.1:0", "--token-file", file])
            XCTAssertEqual(run.status.rawValue, 78, "\(text): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(expected), "\(text): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("t1"), "a token is never printed: \(run.stderr)")
        }
    }

    // MARK: request ids

    func testEveryAnswerCarriesARequestIdThatTheLogLineShows() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        var ids: [String] = []
        for (method, target) in [("GET", "/v1/health"), ("GET", "/v1/customers/alice"), ("GET", "/v1/customers/nobody"),
                                 ("GET", "/nowhere"), ("PUT", "/v1/health"), ("GET", "/v1/customers/alice/entitlements?at=x"),
                                 ("POST", "/v1/customers/alice/grants")] {
            let answer = try call(server, method, target, body: method == "POST" ? "{" : nil)
            let id = try XCTUnwrap(answer.headers["subs-request-id"], "\(method) \(target)")
            XCTAssertNotNil(id.range(of: "^req_[0-9a-f]{16}$", options: .regularExpression), id)
            ids.append(id)
        }
        // A request the engine refuses itself, before any route (a request line it cannot read, a
        // head over its bound): the answer's id is in its log line too.
        for raw in ["BLAH\r\n\r\n", "GET /v1/health HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n"] {
            let client = try RawClient(port: server.port)
            XCTAssertTrue(client.send(raw))
            let answer = try XCTUnwrap(client.readResponse(timeout: 10), "a refusal: no answer")
            XCTAssertGreaterThanOrEqual(answer.status, 400)
            ids.append(try XCTUnwrap(answer.headers["subs-request-id"], "a refusal without an id"))
        }
        XCTAssertEqual(Set(ids).count, ids.count, "request ids repeat")
        // The log line of each says its id.
        let giveUp = Date().addingTimeInterval(5)
        var log = ""
        while Date() < giveUp {
            log = try String(contentsOfFile: server.log, encoding: .utf8)
            if ids.allSatisfy(log.contains) { break }
            usleep(50_000)
        }
        for id in ids { XCTAssertTrue(log.contains(id), "\(id) not in the log:\n\(log)") }
        // The client's error message names the answer's id.
        let client = try Binary.run(["--remote", server.base, "revoke", "alice", "premium"], env: ["SUBS_NOW": now])
        XCTAssertEqual(client.status.rawValue, 3, client.stderr)
        let shown = try XCTUnwrap(client.stderr.range(of: #"req_[0-9a-f]{16}"#, options: .regularExpression).map { String(client.stderr[$0]) },
                                  client.stderr)
        usleep(200_000)
        XCTAssertTrue(try String(contentsOfFile: server.log, encoding: .utf8).contains(shown))
    }

    // MARK: audit

    private func auditLines(_ server: Server) throws -> [JSONValue] {
        let text = (try? String(contentsOfFile: server.store + ".audit.jsonl", encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try JSON.parse(String($0)) }
    }

    func testEveryWriteLeavesExactlyOneAuditLineNamingTheTokensPerson() throws {
        let dir = TempDir()
        let file = tokenFile(dir, "reader read r-token\nwriter read,write w-token\nboss read,write,admin a-token\n")
        let server = try startServer(in: dir, tokenFile: file)
        let grant = #"{"entitlement": "premium", "expirationDate": null, "reason": "goodwill"}"#
        // Refusals write nothing and leave no line.
        XCTAssertEqual(try call(server, "POST", "/v1/customers/carol/grants", token: "r-token", body: grant).status, 403)
        XCTAssertEqual(try call(server, "POST", "/v1/customers/carol/grants", token: "w-token",
                                body: #"{"entitlement": "premium", "expirationDate": null, "grantedBy": "x"}"#).status, 400)
        XCTAssertEqual(try call(server, "POST", "/v1/customers/nobody/grants", token: "w-token", body: grant).status, 404)
        XCTAssertEqual(try call(server, "POST", "/v1/customers/carol/entitlements/premium/revoke", token: "w-token").status, 404)
        XCTAssertEqual(try auditLines(server), [])
        // Three writes, three lines; a replay of the first is no write and no line.
        let first = try call(server, "POST", "/v1/customers/carol/grants", token: "w-token", body: grant, key: "k-1")
        XCTAssertEqual(first.status, 201, first.text)
        let replay = try call(server, "POST", "/v1/customers/carol/grants", token: "w-token", body: grant, key: "k-1")
        XCTAssertEqual(replay.headers["idempotent-replayed"], "true")
        let revoke = try call(server, "POST", "/v1/customers/carol/entitlements/premium/revoke", token: "w-token", body: "{}")
        XCTAssertEqual(revoke.status, 200, revoke.text)
        let behalf = try call(server, "POST", "/v1/customers/dave/grants", token: "a-token",
                              body: #"{"entitlement": "premium", "expirationDate": null, "grantedBy": "mallory"}"#)
        XCTAssertEqual(behalf.status, 201, behalf.text)
        XCTAssertEqual(behalf.json?["customer"]?["grants"]?.arrayValue?.last?["grantedBy"], .string("boss"))
        let lines = try auditLines(server)
        XCTAssertEqual(lines.count, 3, "\(lines)")
        guard lines.count == 3 else { return }
        XCTAssertEqual(lines.map { $0["actor"] }, [.string("writer"), .string("writer"), .string("boss")])
        XCTAssertEqual(lines.map { $0["action"] }, [.string("grant"), .string("revoke"), .string("grant")])
        XCTAssertEqual(lines.map { $0["customer"] }, [.string("carol"), .string("carol"), .string("dave")])
        XCTAssertEqual(lines.map { $0["onBehalfOf"] }, [.null, .null, .string("mallory")])
        XCTAssertEqual(lines.map { $0["via"] }, Array(repeating: .string("serve"), count: 3))
        XCTAssertEqual(lines[0]["reason"], .string("goodwill"))
        XCTAssertEqual(lines[0]["idempotencyKey"], .string("k-1"))
        XCTAssertEqual(lines.map { $0["requestId"] }, [first, revoke, behalf].map { .string($0.headers["subs-request-id"] ?? "?") })
        XCTAssertEqual(lines[0]["result"]?.stringValue?.hasPrefix("granted grant-"), true)
        XCTAssertEqual(lines[1]["result"]?.stringValue?.hasPrefix("revoked grant-"), true)
        // GET /v1/audit is the admin's; subs audit reads the same file.
        XCTAssertEqual(try call(server, "GET", "/v1/audit", token: "w-token").status, 403)
        let all = try call(server, "GET", "/v1/audit?actor=writer&since=2026-12-01", token: "a-token")
        XCTAssertEqual(all.status, 200, all.text)
        XCTAssertEqual(all.json?["entries"]?.arrayValue?.count, 2)
        XCTAssertEqual(try call(server, "GET", "/v1/audit?customer=dave", token: "a-token").json?["entries"]?.arrayValue?.count, 1)
        XCTAssertEqual(try call(server, "GET", "/v1/audit?at=now", token: "a-token").status, 400)
        let local = try Binary.run(["--store", server.store, "audit", "--actor", "writer", "--format", "jsonl"], env: ["SUBS_NOW": now])
        XCTAssertEqual(local.status.rawValue, 0, local.stderr)
        XCTAssertEqual(local.stdout.split(separator: "\n").count, 2, local.stdout)
    }

    func testALocalWriteLeavesItsLineAndAuditReadsEveryFormat() throws {
        let dir = TempDir()
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let env = ["SUBS_NOW": now]
        XCTAssertEqual(try Binary.run(["--store", store, "grant", "alice", "bob", "premium", "--lifetime", "--actor", "dana",
                                       "--reason", "apology"], env: env).status.rawValue, 0)
        XCTAssertEqual(try Binary.run(["--store", store, "grant", "carol", "premium", "--lifetime", "--dry-run"], env: env).status.rawValue, 0)
        XCTAssertEqual(try Binary.run(["--store", store, "revoke", "zed", "premium"], env: env).status.rawValue, 3)
        let json = try Binary.run(["--store", store, "audit", "--format", "json"], env: env)
        XCTAssertEqual(json.status.rawValue, 0, json.stderr)
        let entries = try JSON.parse(json.stdout)["entries"]?.arrayValue ?? []
        XCTAssertEqual(entries.map { $0["customer"] }, [.string("alice"), .string("bob")], "one line per customer written, none for a dry run or a refusal")
        XCTAssertEqual(entries.first?["actor"], .string("dana"))
        XCTAssertEqual(entries.first?["via"], .string("cli"))
        XCTAssertNotEqual(entries.first?["user"], .null)
        // The log takes the store's mode: whoever may write the store may append its lines.
        chmod(store, 0o640)
        try? FileManager.default.removeItem(atPath: store + ".audit.jsonl")
        XCTAssertEqual(try Binary.run(["--store", store, "grant", "alice", "bob", "premium", "--lifetime", "--actor", "dana",
                                       "--reason", "apology"], env: env).status.rawValue, 0)
        var info = stat()
        XCTAssertEqual(stat(store + ".audit.jsonl", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o640)
        for format in ["table", "tsv", "csv", "jsonl"] {
            let run = try Binary.run(["--store", store, "audit", "--customer", "bob", "--format", format], env: env)
            XCTAssertEqual(run.status.rawValue, 0, "\(format): \(run.stderr)")
            XCTAssertTrue(run.stdout.contains("bob") && !run.stdout.contains("alice"), "\(format): \(run.stdout)")
        }
        // A torn last line (a crash while appending) is skipped; a bad line before it is exit 65 naming it.
        let log = store + ".audit.jsonl"
        let whole = try String(contentsOfFile: log, encoding: .utf8)
        try (whole + #"{"time":"2026-12-"#).write(toFile: log, atomically: false, encoding: .utf8)
        XCTAssertEqual(try Binary.run(["--store", store, "audit", "--format", "jsonl"], env: env).stdout.split(separator: "\n").count, 2)
        try ("junk\n" + whole).write(toFile: log, atomically: false, encoding: .utf8)
        let bad = try Binary.run(["--store", store, "audit"], env: env)
        XCTAssertEqual(bad.status.rawValue, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains(":1:"), bad.stderr)
        // The log is the store's: a remote audit is refused with where to look.
        XCTAssertEqual(try Binary.run(["--remote", "http://127.0.0.1:9", "audit"], env: env).status.rawValue, 64)
    }
}
