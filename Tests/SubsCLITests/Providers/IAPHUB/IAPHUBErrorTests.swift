// Provider `iaphub`: every error status (SPEC section 6), the cache and --offline, the Date
// header as the server's clock, and the pacing a batch `check -` needs under IAPHUB's limit of
// 5 requests a second.

import XCTest
import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsRemote
@testable import SubsProviders
@testable import SubsCLI

final class IAPHUBErrorTests: IAPHUBTestCase {
    private func expectError(_ user: String, _ status: ExitCode, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        let result = iaphub(["check", user])
        XCTAssertEqual(result.status, status, "\(user): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(words), "\(user): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        XCTAssertFalse(result.stderr.contains(IAPHUBTestServer.key), file: file, line: line)
    }

    func testEveryErrorStatus() {
        expectError("nobody", .notFound, "customer 'nobody' not found")
        expectError("status-401", .permissionDenied, "HTTP 401")
        expectError("status-403", .permissionDenied, "HTTP 403")
        expectError("status-429", .temporaryFailure, "rate limited")
        expectError("status-500", .unavailable, "HTTP 500")
        expectError("status-400", .protocolError, "HTTP status 400")
        expectError("redirect", .protocolError, "redirect")
        // A 200 that is not IAPHUB's user answer, with the JSON path or position of what is wrong.
        expectError("no-active-products", .protocolError, "activeProducts: missing")
        expectError("active-products-null", .protocolError, "activeProducts: expected an array, found null")
        expectError("not-json", .protocolError, "not JSON")
        expectError("truncated", .protocolError, "not JSON")
        expectError("array-body", .protocolError, "$: expected an object")
        expectError("bad-date", .protocolError, "activeProducts[0].expirationDate: expected an ISO 8601 date")
        expectError("wrong-type", .protocolError, "activeProducts[0].isFamilyShare: expected a boolean, found string")
        expectError("no-sku", .protocolError, "activeProducts[0]: no groupName, sku, group or id to tell which entitlement it is")
        expectError("product-not-object", .protocolError, "activeProducts[0]: expected an object, found number")
    }

    func testAWrongKeyIs77AndTheKeyNeverShows() {
        let result = runCLI(["--provider", "iaphub", "--remote", server.base, "check", "retry"],
                            env: ["SUBS_API_KEY": "sk_wr0ng", "XDG_CACHE_HOME": dir.path + "/cache"])
        XCTAssertEqual(result.status, .permissionDenied)
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: ") && result.stderr.contains("HTTP 401"), result.stderr)
        XCTAssertFalse(result.stderr.contains("sk_wr0ng"))
        // No key at all is said before anything is sent (as for every platform).
        let noKey = runCLI(["--provider", "iaphub", "--remote", server.base, "check", "retry"],
                           env: ["XDG_CACHE_HOME": dir.path + "/cache"])
        XCTAssertEqual(noKey.status, .configError, "no key at all")
        XCTAssertTrue(noKey.stderr.contains("provider iaphub needs an API key"), noKey.stderr)
    }

    func testA429IsRetriedHonouringRetryAfter() throws {
        let result = iaphub(["check", "flaky-429", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["activeEntitlements"], .array([.string("premium")]))
        XCTAssertEqual(server.paths.count, 2, "one 429, then the answer")
    }

    func testAnUnreachableServerIs69AndTheCacheAnswers() throws {
        XCTAssertEqual(iaphub(["check", "retry", "-q"]).status, .success)
        let fresh = iaphub(["--max-age", "P1D", "check", "retry", "--json"])
        XCTAssertEqual(fresh.status, .success, fresh.stderr)
        XCTAssertEqual(server.paths.count, 1, "--max-age answers from the cache without asking")
        server.stop()
        let cached = iaphub(["check", "retry", "--json"])
        XCTAssertEqual(cached.status, .success, cached.stderr)
        XCTAssertTrue(cached.stderr.contains("answered from the cache"), cached.stderr)
        XCTAssertEqual(try JSON.parse(cached.stdout)["entitlements"]?["premium"]?["state"], .string("billingRetry"))
        XCTAssertEqual(iaphub(["--offline", "check", "retry", "-q"]).status, .success)
        let offline = iaphub(["--offline", "check", "lifetime"])
        XCTAssertEqual(offline.status, .unavailable)
        XCTAssertTrue(offline.stderr.contains("no cached answer"), offline.stderr)
        let unreachable = iaphub(["check", "lifetime"])
        XCTAssertEqual(unreachable.status, .unavailable, unreachable.stderr)
        assertNoFileContains([IAPHUBTestServer.key], under: dir.path + "/cache")
        server = try IAPHUBTestServer()
    }

    func testPlainHttpToAnotherHostIsRefused() {
        let result = runCLI(["--provider", "iaphub", "--remote", "http://api.iaphub.com/v1/app/x", "check", "a"],
                            env: ["SUBS_API_KEY": "k"])
        XCTAssertTrue([ExitCode.usage, .configError].contains(result.status), result.stderr)
        XCTAssertTrue(result.stderr.contains("https"), result.stderr)
    }

    // MARK: pacing

    func testABatchPacesItselfUnderFiveRequestsASecond() throws {
        server.limitPerSecond = 5
        let ids = (1...8).map { "pace-\($0)" }
        let result = iaphub(["check", "-", "--json"], stdin: ids.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout).arrayValue?.count, ids.count)
        XCTAssertEqual(server.refused, 0, "the batch went over IAPHUB's limit")
        XCTAssertEqual(server.paths.count, ids.count)
    }

    func testTheLimitOfTheTestServerBitesWithoutPacing() throws {
        // So that the pacing test above can fail: the same burst, unpaced, meets 429s.
        server.limitPerSecond = 5
        let transport = CurlTransport()
        var statuses: [Int] = []
        for n in 1...7 {
            let request = RemoteRequest(method: "GET", url: server.base + "/user/pace-\(n)?environment=production&platform=ios",
                                        headers: [("Authorization", "ApiKey \(IAPHUBTestServer.key)"),
                                                  ("User-Agent", "subs/\(CLI.version)")])
            statuses.append(try transport.send(request).status)
        }
        XCTAssertTrue(statuses.contains(429), "\(statuses)")
    }
}

/// The pacer itself, on a scripted clock: no real waiting, exact counts.
final class IAPHUBPacerTests: XCTestCase {
    final class FakeTime: @unchecked Sendable {
        var now = 100.0
        var slept: [Double] = []
    }

    func testNoWindowOfTheIntervalHoldsMoreThanTheLimit() {
        for (limit, interval, count) in [(5, 1.0, 23), (1, 0.5, 5), (3, 2.0, 10)] {
            let time = FakeTime()
            let pacer = RequestPacer(limit: limit, interval: interval, monotonic: { time.now },
                                     sleep: { time.slept.append($0); time.now += $0 })
            var starts: [Double] = []
            for n in 0..<count {
                pacer.admit()
                starts.append(time.now)
                // The first `limit` go at once.
                if n < limit { XCTAssertEqual(time.slept, []) }
                if n % 4 == 3 { time.now += 0.1 } // some requests take a while
            }
            for (i, start) in starts.enumerated() {
                let inWindow = starts[i...].filter { $0 < start + interval }.count
                XCTAssertLessThanOrEqual(inWindow, limit, "limit \(limit): window at \(start)")
            }
            XCTAssertFalse(time.slept.isEmpty)
            XCTAssertTrue(time.slept.allSatisfy { $0 > 0 && $0 <= interval })
        }
    }

    func testAWaitLongerThanTheBudgetIsRefusedWithoutCounting() {
        let time = FakeTime()
        let pacer = RequestPacer(limit: 1, interval: 1, monotonic: { time.now }, sleep: { time.now += $0 })
        XCTAssertTrue(pacer.admit())
        XCTAssertFalse(pacer.admit(budget: 0.5))
        XCTAssertEqual(time.now, 100, "a refused admission does not sleep")
        XCTAssertTrue(pacer.admit(budget: 1))
        XCTAssertEqual(time.now, 101)
    }

    func testAPacedTransportThatCannotStartInTimeTimesOut() {
        struct Never: HTTPTransport {
            func send(_ request: RemoteRequest) throws -> RemoteResponse { RemoteResponse(status: 200) }
        }
        let time = FakeTime()
        let paced = PacedTransport(Never(), pacer: RequestPacer(limit: 1, interval: 5, monotonic: { time.now }, sleep: { time.now += $0 }))
        XCTAssertEqual(try paced.send(RemoteRequest(method: "GET", url: "http://127.0.0.1/", timeout: 1)).status, 200)
        XCTAssertThrowsError(try paced.send(RemoteRequest(method: "GET", url: "http://127.0.0.1/", timeout: 1))) { error in
            XCTAssertEqual(error as? TransportError, .timedOut)
        }
    }
}

/// The Date header is IAPHUB's clock: scripted answers, so the dates are exact.
final class IAPHUBDateHeaderTests: XCTestCase {
    struct Scripted: HTTPTransport {
        var headers: [(name: String, value: String)]
        func send(_ request: RemoteRequest) throws -> RemoteResponse {
            RemoteResponse(status: 200, headers: headers, body: Array(IAPHUBFixture.text("retry").utf8))
        }
    }

    private func run(_ args: [String], headers: [(name: String, value: String)]) -> CLIResult {
        CLIHarness(env: ["SUBS_API_KEY": "k", "XDG_CACHE_HOME": "/nonexistent-cache"], http: Scripted(headers: headers))
            .run(["--provider", "iaphub", "--remote", "https://api.iaphub.com/v1/app/a1"] + args)
    }

    func testRequestDateIsTheDateHeaderElseTheLocalClock() throws {
        let cases: [([(name: String, value: String)], String)] = [
            ([("Date", "Sun, 22 Nov 2026 10:00:00 GMT")], "2026-11-22T10:00:00Z"),
            ([("date", "Sunday, 22-Nov-26 10:00:01 GMT")], "2026-11-22T10:00:01Z"),
            ([], testNow),
            ([("Date", "yesterday")], testNow),
        ]
        for (headers, expected) in cases {
            let result = run(["check", "retry", "--json"], headers: headers)
            XCTAssertEqual(result.status, .success, result.stderr)
            XCTAssertEqual(try JSON.parse(result.stdout)["requestDate"], .string(expected), "\(headers)")
        }
    }
}

/// The decoder and the mapping alone (what the fuzz harness drives).
final class IAPHUBMappingTests: XCTestCase {
    private func product(_ sku: ID, group: ID? = "premium", expires: String?, state: String = "active") -> IAPHUBProduct {
        IAPHUBProduct(sku: sku, type: "renewable_subscription", platform: "ios", purchaseDate: ISODate.parse("2026-01-01T00:00:00Z"),
                      expirationDate: expires.flatMap(ISODate.parse), groupName: group, isSubscriptionRenewable: true,
                      subscriptionState: state)
    }

    func testOneEntitlementPerGroupTheLaterExpirationWinsAndNoneIsLatest() {
        let cases: [([IAPHUBProduct], ID)] = [
            ([product("a", expires: "2026-02-01T00:00:00Z"), product("b", expires: "2026-03-01T00:00:00Z")], "b"),
            ([product("b", expires: "2026-03-01T00:00:00Z"), product("a", expires: "2026-02-01T00:00:00Z")], "b"),
            ([product("a", expires: "2026-02-01T00:00:00Z"), product("b", expires: nil)], "b"),
            ([product("b", expires: nil), product("a", expires: "2099-02-01T00:00:00Z")], "b"),
            ([product("a", expires: "2026-02-01T00:00:00Z"), product("b", expires: "2026-02-01T00:00:00Z")], "a"),
            // A later but inactive product of the group still describes it (the spec's rule).
            ([product("a", expires: "2026-02-01T00:00:00Z"), product("b", expires: "2026-03-01T00:00:00Z", state: "retry_period")], "b"),
        ]
        for (products, sku) in cases {
            let found = IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: products), environment: "production")
            XCTAssertEqual(found.map(\.id), ["premium"])
            XCTAssertEqual(found.first?.productId, sku, "\(products.map(\.sku))")
        }
        // An empty group name is no group: the sku keys it.
        let ungrouped = IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [product("solo", group: "", expires: nil)]), environment: "production")
        XCTAssertEqual(ungrouped.map(\.id), ["solo"])
    }

    func testEveryStateMapsAndUnknownOnesAreInactive() {
        let table: [(String?, EntitlementState, Bool, RenewState)] = [
            ("active", .active, true, .willRenew), ("grace_period", .gracePeriod, true, .billingIssue),
            ("retry_period", .billingRetry, false, .billingIssue), ("paused", .paused, false, .willRenew),
            // `expired` is IAPHUB's own word for a lapsed subscription (its purchases and webhooks):
            // expired, no renewal promised, never unknown.
            ("expired", .expired, false, .unknown), ("ACTIVE", .unknown, false, .willRenew), (nil, .unknown, false, .willRenew),
        ]
        for (raw, state, active, renew) in table {
            var p = product("a", expires: "2026-02-01T00:00:00Z")
            p.subscriptionState = raw
            let e = IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [p]), environment: "production")[0]
            XCTAssertEqual(e.state, state, "\(raw ?? "nil")")
            XCTAssertEqual(e.isActive, active, "\(raw ?? "nil")")
            XCTAssertEqual(e.renewState, renew, "\(raw ?? "nil")")
            XCTAssertEqual(e.willRenew, state == .active, "\(raw ?? "nil")")
        }
        for type in ["subscription", "non_consumable"] {
            var p = product("a", expires: nil)
            p.type = type
            let e = IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [p]), environment: "production")[0]
            XCTAssertEqual([e.state.rawValue, e.renewState.rawValue, "\(e.isActive)", "\(e.willRenew)"], ["active", "nonRenewable", "true", "false"])
        }
        var odd = product("a", expires: nil)
        odd.type = "bundle"
        XCTAssertEqual(IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [odd]), environment: "production")[0].isActive, false)
        for (platform, source) in [("ios", EntitlementSource.appstore), ("android", .playstore), ("stripe", .stripe), ("amazon", .unknown), ("IOS", .unknown)] {
            var p = product("a", expires: nil)
            p.platform = platform
            XCTAssertEqual(IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [p]), environment: "production")[0].source, source)
        }
        for (period, type) in [("trial", PeriodType.trial), ("intro", .intro), ("normal", .normal), ("promo", .unknown), ("TRIAL", .unknown)] {
            var p = product("a", expires: nil)
            p.subscriptionPeriodType = period
            XCTAssertEqual(IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [p]), environment: "production")[0].periodType, type)
        }
    }

    func testSentencesSayOnlyWhatIAPHUBTells() {
        func sentence(_ state: String, renewable: Bool = true, resume: String? = nil) -> String? {
            var p = product("a", expires: "2026-02-01T00:00:00Z", state: state)
            p.isSubscriptionRenewable = renewable
            p.autoResumeDate = resume.flatMap(ISODate.parse)
            return Explanation.sentence(for: IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [p]), environment: "production")[0])
        }
        XCTAssertEqual(sentence("paused", resume: "2026-03-01T00:00:00Z"), "premium: paused from 2026-02-01 until 2026-03-01")
        XCTAssertEqual(sentence("paused"), "premium: paused from 2026-02-01, no resume date known")
        XCTAssertEqual(sentence("grace_period"), "premium: in grace period — a renewal payment failed; access ends 2026-02-01 unless payment recovers")
        XCTAssertEqual(sentence("retry_period", renewable: false), "premium: billing retry — a renewal payment failed, access lost on 2026-02-01")
        XCTAssertEqual(sentence("active", renewable: false), "premium: cancelled (auto-renew off), active until 2026-02-01")
        XCTAssertEqual(sentence("on_hold"), "premium: state not known to this version of subs (a); treated as inactive")
        XCTAssertNil(sentence("active"))
        for text in [sentence("paused"), sentence("grace_period"), sentence("retry_period"), sentence("active", renewable: false)] {
            XCTAssertFalse(text?.contains("?") ?? true, "a date IAPHUB does not give shown as '?': \(text ?? "nil")")
        }
    }

    func testFamilySharingWinsOverAPromoCode() {
        var p = product("a", expires: nil)
        p.isFamilyShare = true
        p.isPromo = true
        p.promoCode = "X"
        let e = IAPHUBSource.entitlements(IAPHUBAnswer(activeProducts: [p]), environment: "production")[0]
        XCTAssertEqual(e.grantType, .familySharing)
        XCTAssertEqual(e.lastActivatedOfferCode, "X")
    }

    func testMillisecondsAreDroppedAndOffsetsApplied() throws {
        let body = #"{"activeProducts":[{"sku":"a","type":"non_consumable","purchaseDate":"2026-03-01T12:00:00.999Z","expirationDate":"2026-03-01T14:00:00.5+02:00"}]}"#
        let answer = try IAPHUBAnswer.decode(Array(body.utf8))
        XCTAssertEqual(answer.activeProducts[0].purchaseDate, ISODate.parse("2026-03-01T12:00:00Z"))
        XCTAssertEqual(answer.activeProducts[0].expirationDate, ISODate.parse("2026-03-01T12:00:00Z"))
    }

    func testTheDecoderThrowsOnlyItsErrorWithAPath() {
        let bodies = ["", "{", "null", #"{"activeProducts":{}}"#, #"{"activeProducts":[{"sku":1,"type":"x"}]}"#,
                      #"{"activeProducts":[{"sku":"a","type":"x","purchaseDate":"0000-01-01T00:00:00Z"}]}"#,
                      #"{"activeProducts":[], "activeProducts":[]}"#, "\u{FEFF}{}"]
        for body in bodies {
            XCTAssertThrowsError(try IAPHUBAnswer.decode(Array(body.utf8)), body) { error in
                XCTAssertTrue(error is IAPHUBAnswerError, "\(body): \(error)")
                XCTAssertFalse("\(error)".isEmpty)
            }
        }
        // productsForSale is only a help: a malformed one is skipped, not fatal.
        XCTAssertNoThrow(try IAPHUBAnswer.decode(Array(#"{"activeProducts":[],"productsForSale":"x"}"#.utf8)))
    }
}
