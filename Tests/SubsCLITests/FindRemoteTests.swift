// `find` everywhere the customers live: `subs serve`'s GET /v1/customers?search=TERM answers the
// same document as a local find, and `--remote` with provider subs prints what the local store
// prints; the platforms look up what their APIs allow (an id) and refuse, without a request, the
// kinds of term they cannot search (exit 64). And the hint of check, history and renew-count.

import Foundation
import SubsJSON
import XCTest
@testable import SubsCLI
@testable import SubsHTTP
@testable import SubsKit

final class FindServeTests: XCTestCase {
    private var dir: TempDir!
    private var store: String!
    private var api: SubsAPI!
    private var server: LoopbackSubsServer!
    private var base = ""

    override func setUpWithError() throws {
        dir = TempDir()
        store = dir.write("store.json", DemoStore.json)
        server = try LoopbackSubsServer(store: store, token: "t0ken")
        api = server.api
        base = server.base
    }

    override func tearDown() {
        server.stop()
    }

    private func get(_ target: String, token: String? = "t0ken", method: String = "GET") -> HTTPResponse {
        var headers = HTTPHeaders()
        if let token { headers.append(name: "Authorization", value: Array("Bearer \(token)".utf8)) }
        return api.handle(HTTPRequest(method: method, target: target, headers: headers))
    }

    func testTheSearchAnswersTheFindDocument() throws {
        let uma = get("/v1/customers?search=MN9C3VJ6HW")
        XCTAssertEqual(uma.status, 200)
        let doc = try JSON.parse(uma.body)
        XCTAssertEqual(doc, .object(JSONObject([("term", .string("MN9C3VJ6HW")), ("matches", .array([.object(JSONObject([
            ("customerId", .string("uma")), ("matchedBy", .string("orderId")), ("email", .string("uma@example.com")),
            ("activeEntitlements", .array([])),
        ]))]))])))
        // No match is an empty list, not a 404.
        let none = get("/v1/customers?search=nobody%40example.com")
        XCTAssertEqual(none.status, 200)
        XCTAssertEqual(try JSON.parse(none.body), .object(JSONObject([("term", .string("nobody@example.com")), ("matches", .array([]))])))
        // `+` is a plus sign (emails hold it); attribute keys, repeated or not.
        XCTAssertEqual(try JSON.parse(get("/v1/customers?search=PEGGY+qa@example.com").body)["matches"]?.arrayValue?.first?["customerId"],
                       .string("peggy"))
        let family = try JSON.parse(get("/v1/customers?attribute=team&search=fam_3921&attribute=familyId").body)
        XCTAssertEqual(family["matches"]?.arrayValue?.map { $0["customerId"] }, [.string("nina"), .string("oscar")])
        XCTAssertEqual(get("/v1/customers?search=%C3%A9", method: "HEAD").status, 200)
    }

    func testBadSearchesAreClearErrors() throws {
        let cases: [(String, Int, String)] = [
            ("/v1/customers", 400, "search: required"), ("/v1/customers?search=", 400, "empty"),
            ("/v1/customers?search=a&search=b", 400, "one term"), ("/v1/customers?search=a&page=3", 400, "unknown query parameter 'page'"),
            ("/v1/customers?search=a&limit=0", 400, "limit: '0'"), ("/v1/customers?search=a&limit=10001", 400, "from 1 to 10000"),
            ("/v1/customers?search=a&limit=+5", 400, "limit"), ("/v1/customers?search=a&limit=1&limit=2", 400, "limit: give it once"),
            ("/v1/customers?search=a&at=tomorrow", 400, "at: 'tomorrow'"), ("/v1/customers?search=a&at=0000-01-01T00:00:00Z", 400, "at:"),
            ("/v1/customers?search=a&cursor=xyz", 400, "cursor: not a cursor"), ("/v1/customers?search=a&cursor=%25%25", 400, "cursor"),
            ("/v1/customers?search=a%1Bb", 400, "U+001B"), ("/v1/customers?search=%ZZ", 400, "percent-encoded"),
            ("/v1/customers?search=%FF", 400, "percent-encoded"), ("/v1/customers?search=a&attribute=%09", 400, "attribute key"),
            ("/v1/customers?search=" + String(repeating: "a", count: 5000), 400, "5000 bytes"),
        ]
        for (target, status, words) in cases {
            let answer = get(target)
            XCTAssertEqual(answer.status, status, target.prefix(60).description)
            let error = try JSON.parse(answer.body)["error"]
            XCTAssertEqual(error?["code"], .string("invalid_request"), target.prefix(60).description)
            XCTAssertTrue(error?["message"]?.stringValue?.contains(words) == true, "\(target.prefix(60)): \(String(decoding: answer.body, as: UTF8.self))")
        }
        XCTAssertEqual(get("/v1/customers?search=alice", token: nil).status, 401)
        XCTAssertEqual(get("/v1/customers?search=alice", token: "wrong").status, 401)
        XCTAssertEqual(get("/v1/customers?search=alice", method: "POST").status, 405)
        XCTAssertEqual(get("/v1/customers/?search=alice").status, 404)
        // A store that is not valid JSON: the store's error, never a crash.
        _ = FileManager.default.createFile(atPath: store, contents: Data("{".utf8))
        XCTAssertEqual(get("/v1/customers?search=alice").status, 500)
    }

    private func remote(_ args: [String]) -> CLIResult {
        runCLI(["--remote", base] + args, env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"])
    }

    func testFindThroughTheServerPrintsWhatTheLocalStorePrints() throws {
        let asks: [[String]] = [
            ["find", "alice"], ["find", "alice-android", "--json"], ["find", "ALICE@example.com", "--format", "tsv"],
            ["find", "MN9C3VJ6HW", "--json"], ["find", "in_1SSd81LkdIwHu7ixUq2mJ9aR", "--format", "jsonl"],
            ["find", "fam_3921", "--attribute", "familyId", "--json"], ["find", "nobody@example.com", "--json"],
            ["find", "dave", "erin@example.com", "nobody"], ["find", "dave@example.com", "--json", "--at", "2026-12-13"],
            ["find", "gwen@example.com", "--json", "--at", "2027-04-01"],
        ]
        for args in asks {
            let there = remote(args), here = runCLI(["--store", store] + args)
            XCTAssertEqual(there.status, here.status, "\(args): \(there.stderr)")
            XCTAssertEqual(there.stdout, here.stdout, "\(args)")
            XCTAssertEqual(there.stderr, here.stderr, "\(args)")
        }
        // A base URL given with /v1 is the same server.
        let v1 = runCLI(["--remote", base + "/v1", "find", "MN9C3VJ6HW", "--json"],
                        env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache-v1"])
        XCTAssertEqual(v1.stdout, runCLI(["--store", store, "find", "MN9C3VJ6HW", "--json"]).stdout, v1.stderr)
        // A store the server cannot read is the local store's status (65), with the server's message.
        _ = FileManager.default.createFile(atPath: store, contents: Data(#"{"schemaVersion": 1, "#.utf8))
        let broken = runCLI(["--remote", base, "find", "someone@example.com"],
                            env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache-broken"])
        XCTAssertEqual(broken.status, runCLI(["--store", store, "find", "someone@example.com"]).status)
        XCTAssertEqual(broken.status, .dataError, broken.stderr)
        _ = FileManager.default.createFile(atPath: store, contents: Data(DemoStore.json.utf8))
        // Terms refused before any request, as locally.
        XCTAssertEqual(remote(["find", "a\u{1b}b"]).status, .usage)
        XCTAssertEqual(remote(["--provider", "subs", "find", "x", "--offline"]).status, .unavailable)
    }

    /// The search answer carries what the find table shows: `--remote find` asks one request per
    /// term (per page) and reads no customer on its own, whatever the number of matches.
    func testFindThroughTheServerIsOneRequestPerTerm() throws {
        let real = api!
        let asked = Recorder()
        let transport = InProcessTransport { request in
            asked.add(request.method + " " + request.target)
            return real.handle(request)
        }
        let harness = CLIHarness(env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache-count"], http: transport)
        for args in [["find", "fam_3921", "--attribute", "familyId", "--json"], ["find", "MN9C3VJ6HW", "alice@example.com", "nobody"],
                     ["find", "dave@example.com", "--at", "2026-12-13", "--format", "tsv"]] {
            asked.clear()
            let there = harness.run(["--remote", "http://127.0.0.1:9"] + args), here = runCLI(["--store", store] + args)
            XCTAssertEqual(there.stdout, here.stdout, "\(args)")
            XCTAssertEqual(there.status, here.status, "\(args): \(there.stderr)")
            let terms = args.dropFirst().prefix { !$0.hasPrefix("-") }.count
            XCTAssertEqual(asked.all.count, terms, "\(args): \(asked.all)")
            XCTAssertTrue(asked.all.allSatisfy { $0.hasPrefix("GET /v1/customers?search=") }, "\(asked.all)")
        }
        // --at is the instant the server evaluates at.
        XCTAssertTrue(asked.all.first?.contains("&at=2026-12-13T00%3A00%3A00Z") == true, "\(asked.all)")
    }

    /// A term matching more customers than a page holds: the client follows `next` to the last
    /// page and prints what the local store prints.
    func testAFindOfMorePagesFollowsNext() throws {
        // 30 customers share an attribute; pages of 7 (the client asks 10 000: a server that
        // gives fewer is followed as well).
        var customers: [String] = []
        for i in 0..<30 {
            customers.append(#""c\#(i)": {"attributes": {"team": "blue", "email": "c\#(i)@example.com"}, "grants": [{"id": "g", "entitlement": "premium", "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": \#(i % 3 == 0 ? "null" : #""2026-06-01T00:00:00Z""#)}]}"#)
        }
        let big = dir.write("big.json", #"{"schemaVersion": 1, "products": {"pro": {"type": "subscription", "entitlements": ["premium"]}}, "customers": {"#
                            + customers.joined(separator: ",") + "}}")
        let api = SubsAPI(store: LocalStore(path: big), token: nil, clock: FixedClock(ISODate.parse(testNow)!))
        let asked = Recorder()
        let transport = InProcessTransport { request in
            asked.add(request.target)
            return api.handle(HTTPRequest(method: request.method, target: request.target.replacingOccurrences(of: "limit=10000", with: "limit=7"),
                                          headers: request.headers, body: request.body))
        }
        let harness = CLIHarness(env: ["XDG_CACHE_HOME": dir.path + "/cache-pages"], http: transport)
        let there = harness.run(["--remote", "http://127.0.0.1:9", "find", "blue", "--attribute", "team", "--json"])
        let here = runCLI(["--store", big, "find", "blue", "--attribute", "team", "--json"])
        XCTAssertEqual(there.status, .success, there.stderr)
        XCTAssertEqual(there.stdout, here.stdout)
        XCTAssertEqual(try JSON.parse(here.stdout)["matches"]?.arrayValue?.count, 30)
        XCTAssertEqual(asked.all.count, 5, "\(asked.all)")
        XCTAssertEqual(asked.all.filter { $0.contains("&cursor=") }.count, 4)
    }

    func testAServerThatAnswersSomethingElseIsAProtocolError() throws {
        let liar = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { request in
            if request.query?.contains("other") == true { return .json(.object(JSONObject([("term", .string("else")), ("matches", .array([]))]))) }
            return .json(.object(JSONObject([("term", .string("x")), ("matches", .string("none"))])))
        }
        try liar.start()
        defer { liar.stop(); liar.wait() }
        for term in ["x", "other"] {
            let result = runCLI(["--remote", "http://127.0.0.1:\(liar.port)", "find", term],
                                env: ["SUBS_API_KEY": "k", "XDG_CACHE_HOME": dir.path + "/cache2"])
            XCTAssertEqual(result.status, .protocolError, result.stderr)
        }
    }

    /// The pages of a search share the command's budget: the pages read in time are shown, and
    /// a note says the search was read for so many pages only.
    func testPagesPastTheBudgetAreSaidNotWaitedFor() throws {
        let match = JSONValue.object(JSONObject([("customerId", .string("a")), ("matchedBy", .string("customerId")),
                                                 ("email", .null), ("activeEntitlements", .array([]))]))
        let transport = InProcessTransport { request in
            // Each page takes longer than the budget leaves for the next one.
            RemoteClient.sleepSeconds(0.4)
            return .json(.object(JSONObject([("term", .string("a")), ("matches", .array([match])),
                                             ("next", .string("page-after-" + request.target.suffix(8)))])))
        }
        let result = CLIHarness(env: ["XDG_CACHE_HOME": dir.path + "/cache-budget"], http: transport)
            .run(["--remote", "http://127.0.0.1:9", "--timeout", "0.5", "find", "a", "--format", "tsv"])
        XCTAssertEqual(result.status, .success, result.stderr)
        // The in-process transport cannot cut a request short: the last one sent may end past
        // the budget; the one after it is not sent. Each page read is shown, and said.
        let rows = result.stdout.split(separator: "\n").dropFirst().filter { $0.hasPrefix("a\ta\tcustomerId") }
        XCTAssertGreaterThanOrEqual(rows.count, 1, result.stdout)
        XCTAssertLessThanOrEqual(rows.count, 2, result.stdout)
        let said = rows.count == 1 ? "1 page only (1 match)" : "\(rows.count) pages only (\(rows.count) matches)"
        XCTAssertTrue(result.stderr.contains("subs: note: the search for 'a' was read for " + said + ": the --timeout of 0.5 s was spent"),
                      result.stderr)
    }

    /// A server whose `next` never ends the search — not a string, the same cursor again, a next
    /// page after an empty one, or new cursors without end — is a protocol error, not a loop.
    func testANextThatNeverEndsIsAProtocolError() throws {
        let match = JSONValue.object(JSONObject([("customerId", .string("a")), ("matchedBy", .string("customerId")),
                                                 ("email", .null), ("activeEntitlements", .array([]))]))
        let served = Recorder()
        for (name, next, matches) in [("number", JSONValue.number("1"), [match]), ("same", .string("c"), [match]),
                                      ("empty", .string("e"), []), ("endless", .string(""), [match])] {
            served.clear()
            let transport = InProcessTransport { request in
                served.add(request.target)
                var cursor = next
                if name == "endless" { cursor = .string("page-\(served.all.count)") }
                if name == "same", !request.target.contains("cursor=") { cursor = .string("c") }
                return .json(.object(JSONObject([("term", .string("a")), ("matches", .array(matches)), ("next", cursor)])))
            }
            let result = CLIHarness(env: ["XDG_CACHE_HOME": dir.path + "/cache-\(name)"], http: transport)
                .run(["--remote", "http://127.0.0.1:9", "find", "a"])
            XCTAssertEqual(result.status, .protocolError, "\(name): \(result.stderr)")
            XCTAssertLessThanOrEqual(served.all.count, RemoteRecordStore.searchPageCap, name)
        }
        XCTAssertEqual(served.all.count, RemoteRecordStore.searchPageCap, "the endless server was asked up to the cap")
    }
}

final class FindRevenueCatTests: RevenueCatTestCase {
    func testAnAppUserIdOrAliasIsLookedUp() throws {
        let tina = run(["find", "tina", "--json"])
        XCTAssertEqual(tina.status, .success, tina.stderr)
        let match = try JSON.parse(tina.stdout)["matches"]?.arrayValue?.first
        XCTAssertEqual(match?["customerId"], .string("tina"))
        XCTAssertEqual(match?["matchedBy"], .string("customerId"))
        // An alias RevenueCat resolves to its original app user id; the email is `$email`.
        rc.set("fay", try FakeRevenueCat.fixture("family"))
        let fay = try JSON.parse(run(["find", "fay", "--json"]).stdout)["matches"]?.arrayValue?.first
        XCTAssertEqual(fay?["customerId"], .string("$RCAnonymousID:4b6f2a"))
        XCTAssertEqual(fay?["matchedBy"], .string("alias"))
        XCTAssertEqual(fay?["email"], .string("fay@example.com"))
        XCTAssertEqual(fay?["activeEntitlements"], .array([.string("premium")]))
        // RevenueCat creates an unknown app user id on GET: an empty new subscriber is no match.
        let newbie = run(["find", "newbie"])
        XCTAssertEqual(newbie.status, .notFound, newbie.stderr)
        XCTAssertTrue(newbie.stderr.contains("no customer matches 'newbie'"), newbie.stderr)
    }

    func testEmailsOrderIdsAndAttributesAreRefusedWithoutARequest() throws {
        for args in [["find", "fay@example.com"], ["find", "tina", "MK3Q9Z7X1T"], ["find", "GPA.3312-8841-0923-55170"],
                     ["find", "tina", "--attribute", "team"]] {
            let result = run(args)
            XCTAssertEqual(result.status, .usage, "\(args)")
            XCTAssertTrue(result.stderr.contains("RevenueCat's API v1 looks a customer up by app user id only"), result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        }
        XCTAssertEqual(rc.requestCount, 0, "nothing was asked (RevenueCat would have created subscribers)")
        // check says nothing of find for a term RevenueCat cannot search.
        let check = run(["check", "someone@example.com"])
        XCTAssertEqual(check.status, .notFound)
        XCTAssertFalse(check.stderr.contains("subs find"), check.stderr)
    }
}

final class FindIAPHUBTests: IAPHUBTestCase {
    func testAUserIdIsLookedUpAndEmailsAreRefused() throws {
        let found = iaphub(["find", "active-renewing", "--format", "tsv"])
        XCTAssertEqual(found.status, .success, found.stderr)
        XCTAssertTrue(found.stdout.hasPrefix("term\tcustomerId\tmatchedBy\temail\tactiveEntitlements\terror\nactive-renewing\tactive-renewing\tcustomerId\t\t"),
                      found.stdout)
        XCTAssertEqual(iaphub(["find", "nobody-here"]).status, .notFound)
        let before = server.paths.count
        let email = iaphub(["find", "a@example.com"])
        XCTAssertEqual(email.status, .usage)
        XCTAssertTrue(email.stderr.contains("IAPHUB's API looks a user up by user id only, not by email"), email.stderr)
        XCTAssertEqual(iaphub(["find", "2000000700041201"]).status, .usage)
        XCTAssertEqual(server.paths.count, before)
    }
}

final class FindQonversionTests: XCTestCase {
    func testAnIdentityOrUserIdIsLookedUpAndEmailsAreRefused() throws {
        let api = try QonversionFakeAPI()
        defer { api.stop() }
        let dir = TempDir()
        let run = { (args: [String]) in runQonversion(args, remote: api.base, cache: dir.path + "/cache") }
        for term in ["alice", "QON_renewing"] {
            let result = run(["find", term, "--json"])
            XCTAssertEqual(result.status, .success, result.stderr)
            let match = try JSON.parse(result.stdout)["matches"]?.arrayValue?.first
            XCTAssertEqual(match?["customerId"], .string(term))
            XCTAssertEqual(match?["matchedBy"], .string("customerId"))
        }
        XCTAssertEqual(run(["find", "nobody"]).status, .notFound)
        let seen = api.seen.count
        let email = run(["find", "alice@example.com"])
        XCTAssertEqual(email.status, .usage)
        XCTAssertTrue(email.stderr.contains("Qonversion's API looks a user up by identity or QON_ user id only, not by email"), email.stderr)
        XCTAssertEqual(run(["find", "in_1QKv2ZLkdIwHu7ixB8c0Fh3T"]).status, .usage)
        XCTAssertEqual(api.seen.count, seen)
        XCTAssertEqual(api.problems, [])
    }
}

final class FindHintTests: XCTestCase {
    func testCheckHistoryAndRenewCountPointAtFindForAnEmailOrAnOrderId() {
        let store = Repo.exampleStore
        let email = runCLI(["--store", store, "check", "alice@EXAMPLE.com"])
        XCTAssertEqual(email.status, .notFound)
        XCTAssertEqual(email.stderr, "subs: error: customer 'alice@EXAMPLE.com' not found; it looks like an email: subs find alice@EXAMPLE.com\n")
        let order = runCLI(["--store", store, "history", "MN9C3VJ6HW"])
        XCTAssertEqual(order.stderr, "subs: error: customer 'MN9C3VJ6HW' not found; it looks like a transaction or order id: subs find MN9C3VJ6HW\n")
        let renewals = runCLI(["--store", store, "renew-count", "GPA.3381-2207-6410-90322..2", "premium"])
        XCTAssertEqual(renewals.status, .notFound)
        XCTAssertTrue(renewals.stderr.hasSuffix(": subs find GPA.3381-2207-6410-90322..2\n"), renewals.stderr)
        // An id gets no hint; an email that needs quoting for the shell is quoted.
        XCTAssertEqual(runCLI(["--store", store, "check", "nobody"]).stderr, "subs: error: customer 'nobody' not found\n")
        let quoted = runCLI(["--store", store, "check", "o'brien@example.com", "dave"])
        XCTAssertEqual(quoted.status, .notFound)
        XCTAssertTrue(quoted.stderr.contains(#"subs find "o'brien@example.com""#), quoted.stderr)
        XCTAssertTrue(runCLI(["--store", store, "check", "a b@example.com"]).stderr.contains("subs find 'a b@example.com'") == false,
                      "a space: not an email")
        XCTAssertTrue(runCLI(["--store", store, "check", "a&b@example.com"]).stderr.hasSuffix("subs find 'a&b@example.com'\n"))
        XCTAssertTrue(quoted.stdout.hasPrefix("dave"), "the others are still printed")
    }
}

/// Requests seen by a transport, from any thread.
private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [String] = []
    func add(_ line: String) { lock.withLock { seen.append(line) } }
    func clear() { lock.withLock { seen.removeAll() } }
    var all: [String] { lock.withLock { seen } }
}
