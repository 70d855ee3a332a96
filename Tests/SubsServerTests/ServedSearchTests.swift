// serve's search is bounded (issue 29): `GET /v1/customers?search=TERM` answers one page at a
// time — at most `limit` matches and about 1 MiB — with a `next` cursor when more follow; the
// pages together are the local find document, evaluated at one instant, and a cursor goes on
// where its page ended however the store changed in between. Searches run a few at a time.

import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsServer
import XCTest

final class ServedSearchTests: XCTestCase {
    private var dir: TempDir!
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!

    override func setUp() {
        dir = TempDir()
    }

    private static let catalog = #""products": {"pro": {"type": "subscription", "entitlements": ["premium"]}, "#
        + #""fam": {"type": "subscription", "entitlements": ["family"]}}"#

    /// `count` customers in team blue (grants that end at different times), with `others`
    /// customers of team red between them; `email`: its length.
    private func customer(_ i: Int, team: String = "blue", emailBytes: Int = 0) -> String {
        let email = emailBytes > 0 ? String(repeating: "e", count: emailBytes) + "@example.com" : "c\(i)@example.com"
        let end = ["null", #""2026-12-05T00:00:00Z""#, #""2026-06-01T00:00:00Z""#][i % 3]
        return #""c\#(i)": {"attributes": {"team": "\#(team)", "email": "\#(email)"}, "grants": [{"id": "g1", "#
            + #""entitlement": "\#(i % 2 == 0 ? "premium" : "family")", "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": \#(end)}]}"#
    }

    private func store(_ customers: [String]) -> String {
        dir.write("store.json", #"{"schemaVersion": 1, \#(Self.catalog), "customers": {"# + customers.joined(separator: ",\n") + "}}")
    }

    private func api(_ path: String, clock: (any Clock)? = nil, searches: SearchGate = SearchGate()) -> SubsAPI {
        SubsAPI(store: LocalStore(path: path), token: nil, clock: clock ?? FixedClock(now), searches: searches)
    }

    private func search(_ api: SubsAPI, _ query: String) throws -> (status: Int, document: JSONValue) {
        let answer = api.handle(HTTPRequest(method: "GET", target: "/v1/customers?" + query))
        return (answer.status, try JSON.parse(answer.body))
    }

    /// Every page from the first, following `next`; `between` runs before each page but the first.
    private func pages(_ api: SubsAPI, _ query: String, between: (Int) throws -> Void = { _ in }) throws -> [JSONValue] {
        var documents: [JSONValue] = []
        var target = query
        while true {
            if !documents.isEmpty { try between(documents.count) }
            let page = try search(api, target)
            XCTAssertEqual(page.status, 200, "\(page.document)")
            documents.append(page.document)
            guard case .string(let next)? = page.document["next"] else { break }
            target = query + "&cursor=" + next
            if documents.count > 100 { XCTFail("no last page"); break }
        }
        return documents
    }

    private func ids(_ pages: [JSONValue]) -> [String] {
        pages.flatMap { $0["matches"]?.arrayValue ?? [] }.compactMap { $0["customerId"]?.stringValue }
    }

    private func localFind(_ path: String, _ term: String, attribute: String?) throws -> JSONValue {
        let found = try LocalStore(path: path).find(FindQuery(terms: [term], attributes: attribute.map { [$0] } ?? []))
        return found.results([term], at: now)[0].document
    }

    func testPagesTogetherAreTheLocalFindDocumentAndOnePageIsExactlyIt() throws {
        let path = store((0..<25).map { customer($0, team: $0 % 5 == 4 ? "red" : "blue") })
        let api = api(path)
        let whole = try localFind(path, "blue", attribute: "team")
        XCTAssertEqual(whole["matches"]?.arrayValue?.count, 20)
        // One page: the find document itself, no member more.
        XCTAssertEqual(try search(api, "search=blue&attribute=team").document, whole)
        for limit in [1, 3, 7, 19, 20] {
            let documents = try pages(api, "search=blue&attribute=team&limit=\(limit)")
            XCTAssertEqual(documents.count, (20 + limit - 1) / limit, "limit \(limit)")
            XCTAssertEqual(documents.flatMap { $0["matches"]?.arrayValue ?? [] }, whole["matches"]?.arrayValue, "limit \(limit)")
            XCTAssertEqual(documents.last?["next"], nil, "the last page has no next")
            for page in documents { XCTAssertEqual(page["term"], .string("blue")) }
        }
        // Matched by id first, then by email, then by attribute: the order holds across pages.
        let mixed = store((0..<6).map { customer($0) } + [#""blue": {"attributes": {"email": "BLUE"}}"#,
                                                            #""x": {"attributes": {"email": "blue"}}"#])
        let mixedAPI = self.api(mixed)
        let split = try pages(mixedAPI, "search=blue&attribute=team&limit=2")
        XCTAssertEqual(split.flatMap { $0["matches"]?.arrayValue ?? [] }, try localFind(mixed, "blue", attribute: "team")["matches"]?.arrayValue)
        XCTAssertEqual(ids(split).prefix(2), ["blue", "x"])
    }

    func testEveryPageIsEvaluatedAtTheFirstPagesInstant() throws {
        let path = store((0..<6).map { customer($0) })
        let clock = MovingClock(now)
        let api = api(path, clock: clock)
        // c1's grant ends on 2026-12-05: active on the first page, not after the clock moved on.
        let documents = try pages(api, "search=blue&attribute=team&limit=2") { _ in clock.set(ISODate.parse("2026-12-20T00:00:00Z")!) }
        XCTAssertEqual(documents.flatMap { $0["matches"]?.arrayValue ?? [] }, try localFind(path, "blue", attribute: "team")["matches"]?.arrayValue)
        // `at` is the instant asked for, on every page.
        clock.set(now)
        let at = try pages(api, "search=blue&attribute=team&limit=4&at=2026-12-20T00:00:00Z")
        let local = try LocalStore(path: path).find(FindQuery(terms: ["blue"], attributes: ["team"]))
            .results(["blue"], at: ISODate.parse("2026-12-20T00:00:00Z")!)[0].document
        XCTAssertEqual(at.flatMap { $0["matches"]?.arrayValue ?? [] }, local["matches"]?.arrayValue)
        XCTAssertNotEqual(local, try localFind(path, "blue", attribute: "team"))
    }

    func testACursorGoesOnWhereItsPageEndedWhileTheStoreChanges() throws {
        let path = store((0..<12).map { customer($0) })
        let api = api(path)
        var removedBeforeTheCursor = false
        let documents = try pages(api, "search=blue&attribute=team&limit=4") { page in
            switch page {
            case 1:
                // Another program grants to a customer already shown and to one not shown yet,
                // and a new matching customer is added (at the end, as subs adds them).
                _ = try LocalStore(path: path).apply(.grant(entitlement: "premium", expirationDate: nil, reason: "x", actor: nil,
                                                           createMissing: false), to: ["c1", "c9"], now: now, dryRun: false)
                // Edited by hand next: the journal folded in first, as the man page says.
                _ = try LocalStore(path: path).compact()
                var text = try String(contentsOfFile: path, encoding: .utf8)
                text = String(text.dropLast(2)) + ",\n" + customer(12) + "}}"
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            case 2:
                // The customer the page ended on is removed: the next page goes on from its place.
                var text = try String(contentsOfFile: path, encoding: .utf8)
                let line = text.components(separatedBy: ",\n").first { $0.hasPrefix(#""c7""#) }!
                text = text.replacingOccurrences(of: line + ",\n", with: "")
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                removedBeforeTheCursor = true
            default:
                break
            }
        }
        XCTAssertTrue(removedBeforeTheCursor)
        let seen = ids(documents)
        XCTAssertEqual(seen, (0...12).map { "c\($0)" }, "repeated or skipped matches: \(seen)")
        XCTAssertEqual(Set(seen).count, seen.count)
        // The customer changed after its page was shown is shown once; the one changed before
        // its page came is shown as changed.
        let c9 = documents.flatMap { $0["matches"]?.arrayValue ?? [] }.first { $0["customerId"] == .string("c9") }
        XCTAssertEqual(Set(c9?["activeEntitlements"]?.arrayValue?.compactMap(\.stringValue) ?? []), ["premium", "family"])
    }

    func testAPageEndsNearOneMebibyte() throws {
        // 40 matches with an email of 100 KB each: about 4 MB in all.
        let path = store((0..<40).map { customer($0, emailBytes: 100_000) })
        let api = api(path)
        let documents = try pages(api, "search=blue&attribute=team&limit=10000")
        XCTAssertGreaterThanOrEqual(documents.count, 4)
        for page in documents {
            let bytes = JSONWriter.compact(page).utf8.count
            XCTAssertLessThan(bytes, CustomerSearchRoute.pageBytes + 200_000, "a page of \(bytes) bytes")
            XCTAssertGreaterThan(page["matches"]?.arrayValue?.count ?? 0, 0)
        }
        XCTAssertEqual(ids(documents), (0..<40).map { "c\($0)" })
        // One match larger than the bound still makes a page of its own.
        let huge = store([customer(0, emailBytes: 2 << 20), customer(1)])
        let hugePages = try pages(self.api(huge), "search=blue&attribute=team")
        XCTAssertEqual(hugePages.count, 2)
        XCTAssertEqual(ids(hugePages), ["c0", "c1"])
    }

    func testACursorOfAnotherSearchOrInstantIsRefused() throws {
        let path = store((0..<6).map { customer($0) })
        let api = api(path)
        let first = try search(api, "search=blue&attribute=team&limit=2")
        guard case .string(let next)? = first.document["next"] else { return XCTFail("no next: \(first.document)") }
        for (query, words) in [("search=red&attribute=team&cursor=\(next)", "another search"),
                               ("search=blue&cursor=\(next)", "another search"),
                               ("search=blue&attribute=team&cursor=\(next)&at=2027-01-01T00:00:00Z", "evaluated at 2026-12-01T12:00:00Z"),
                               ("search=blue&attribute=team&cursor=\(next.dropLast())", "cursor"),
                               ("search=blue&attribute=team&cursor=\(next)x", "cursor")] {
            let refused = try search(api, query)
            XCTAssertEqual(refused.status, 400, query)
            XCTAssertTrue(refused.document["error"]?["message"]?.stringValue?.contains(words) == true, "\(query): \(refused.document)")
        }
        // The same instant given again is fine.
        XCTAssertEqual(try search(api, "search=blue&attribute=team&cursor=\(next)&at=2026-12-01T12:00:00Z").status, 200)
    }

    func testCursorsSurviveOddCustomerIds() throws {
        let odd = ["caf\u{E9}", "cafe\u{301}", "a\nb", "with \"quotes\" and \\", String(repeating: "x", count: 3000), "=&?%+"]
        let customers = odd.enumerated().map { i, id in
            JSON.quote(id) + #": {"attributes": {"team": "blue"}, "firstSeen": "2026-01-0\#(i + 1)T00:00:00Z"}"#
        }
        let path = store(customers)
        let documents = try pages(api(path), "search=blue&attribute=team&limit=1")
        XCTAssertEqual(ids(documents).map { Array($0.utf8) }, odd.map { Array($0.utf8) })
    }

    func testBase64URLRoundTrips() {
        for bytes in [[], [0], [0xFF, 0xFE], Array("hello\nworld".utf8), (0..<300).map { UInt8($0 % 256) }] as [[UInt8]] {
            let text = Base64URL.encode(bytes)
            XCTAssertFalse(text.contains("=") || text.contains("+") || text.contains("/"), text)
            XCTAssertEqual(Base64URL.decode(text), bytes)
        }
        XCTAssertNil(Base64URL.decode("a"))
        XCTAssertNil(Base64URL.decode("ab=c"))
        XCTAssertNil(Base64URL.decode("aB"), "bits left over that are not zero")
    }

    func testSearchesBeyondTheGateAreBusyNotQueuedWithoutEnd() throws {
        let gate = SearchGate(running: 1, waiting: 1, patience: 0.3)
        let hold = DispatchSemaphore(value: 0)
        let inside = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { _ = gate.run { inside.signal(); hold.wait() } }
        XCTAssertEqual(inside.wait(timeout: .now() + 5), .success)
        // One waits its turn (and gets it once the first ends)…
        let waited = DispatchSemaphore(value: 0)
        final class Box: @unchecked Sendable { var ran = false }
        let box = Box()
        DispatchQueue.global().async {
            box.ran = gate.run { true } ?? false
            waited.signal()
        }
        usleep(50_000)
        // …a third finds no room and is refused at once.
        let started = Date()
        XCTAssertNil(gate.run { true })
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.2)
        hold.signal()
        XCTAssertEqual(waited.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(box.ran)
        // A wait longer than the patience is refused.
        DispatchQueue.global().async { _ = gate.run { inside.signal(); hold.wait() } }
        XCTAssertEqual(inside.wait(timeout: .now() + 5), .success)
        let late = Date()
        XCTAssertNil(gate.run { true })
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(late), 0.25)
        hold.signal()

        // Through the API: 503 busy with Retry-After, as a busy store lock.
        let path = store((0..<3).map { customer($0) })
        let closed = SearchGate(running: 1, waiting: 0, patience: 0)
        let api = api(path, searches: closed)
        DispatchQueue.global().async { _ = closed.run { inside.signal(); hold.wait() } }
        XCTAssertEqual(inside.wait(timeout: .now() + 5), .success)
        let busy = api.handle(HTTPRequest(method: "GET", target: "/v1/customers?search=blue"))
        hold.signal()
        XCTAssertEqual(busy.status, 503)
        XCTAssertEqual(try JSON.parse(busy.body)["error"]?["code"], .string("busy"))
        XCTAssertTrue(busy.headers.contains { $0.0 == "Retry-After" && $0.1 == "1" })
        XCTAssertEqual(api.handle(HTTPRequest(method: "GET", target: "/v1/customers?search=blue")).status, 200)
    }
}

/// A clock a test moves.
private final class MovingClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Instant
    init(_ instant: Instant) { self.instant = instant }
    func set(_ instant: Instant) { lock.withLock { self.instant = instant } }
    func now() -> Instant { lock.withLock { instant } }
}
