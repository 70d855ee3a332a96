// `find` when the command's remote budget ends before the customers a term found are read: the
// term is never reported as matching nothing (exit 3) — it is an error line, its TSV row says
// `timeout`, and the exit status is the budget's (69). Per family of `find`: RevenueCat API v2's
// search, `subs serve`'s search, and a platform that looks ids up (RevenueCat API v1). The server
// hangs on the request that would read the last customer, so the budget ends exactly there.

import Foundation
import XCTest
import SubsJSON
@testable import SubsCLI
@testable import SubsKit
@testable import SubsHTTP

/// Answers through `inner` until `hangsOn` says a request must hang: that one waits for all the
/// time it is given and times out, as a server that never answers would.
struct HangingTransport: HTTPTransport {
    let inner: HTTPTransport
    let hangsOn: @Sendable (RemoteRequest) -> Bool

    func send(_ request: RemoteRequest) throws -> RemoteResponse {
        guard !hangsOn(request) else {
            RemoteClient.sleepSeconds(max(0, request.timeout))
            throw TransportError.timedOut
        }
        return try inner.send(request)
    }
}

final class FindUnreadRevenueCatV2Tests: RevenueCatV2TestCase {
    private func find(_ args: [String], hangingOn path: String) -> CLIResult {
        let transport = HangingTransport(inner: PinnedDateTransport(inner: CurlTransport(), mode: .set(F.date))) { request in
            request.url.contains(path)
        }
        return runCLI(["--remote", rc.base, "--provider", "revenuecat", "--timeout", "1"] + args,
                      env: ["XDG_CACHE_HOME": dir.path + "/cache", "SUBS_API_KEY": F.key], http: transport)
    }

    func testATermWhoseOnlyMatchWasNotReadIsNotNotFound() throws {
        // Both searches answer; reading paula (the second term's only match) never does.
        let result = find(["find", "alice@example.com", "paula", "--format", "tsv"], hangingOn: "/customers/paula?expand")
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        XCTAssertFalse(result.stderr.contains("no customer matches 'paula'"), result.stderr)
        XCTAssertTrue(result.stderr.contains("subs: error: the customers 'paula' may match were not read: the --timeout of 1 s was spent"),
                      result.stderr)
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.count, 3, result.stdout)
        XCTAssertEqual(rows[1].prefix(3), ["alice@example.com", "alice", "email"])
        XCTAssertEqual(rows[2], ["paula", "", "", "", "", "timeout"])

        // JSON keeps its one shape: the term, no match shown.
        let json = find(["find", "alice@example.com", "paula", "--json"], hangingOn: "/customers/paula?expand")
        XCTAssertEqual(json.status, .unavailable, json.stderr)
        let doc = try JSON.parse(json.stdout)
        XCTAssertEqual(doc.arrayValue?.map { $0["term"] }, [.string("alice@example.com"), .string("paula")])
        XCTAssertEqual(doc.arrayValue?.last?["matches"], .array([]))
    }

    func testATermNotLookedUpAsAnIdForWantOfTimeIsNotNotFound() {
        // The search finds nothing for "ghost"; its lookup as an app user id is what hangs.
        let result = find(["find", "ghost"], hangingOn: "/customers/ghost?expand")
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        XCTAssertFalse(result.stderr.contains("no customer matches"), result.stderr)
    }

    func testAMatchNobodyHasIsStillExit3() {
        let result = find(["find", "nobody@example.com"], hangingOn: "/never")
        XCTAssertEqual(result.status, .notFound, result.stderr)
        XCTAssertTrue(result.stderr.contains("no customer matches 'nobody@example.com'"), result.stderr)
    }
}

final class FindUnreadTests: XCTestCase {
    func testSubsServeSearchThatWasNotReadIsNotNotFound() throws {
        // A `subs serve` that answers the search for "nobody@example.com" (no match) and never
        // the one for "team@example.com".
        let fake = InProcessTransport { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")],
                         body: Array(#"{"term":"nobody@example.com","matches":[],"next":null}"#.utf8))
        }
        let transport = HangingTransport(inner: fake) { $0.url.contains("search=team") }
        let result = runCLI(["--remote", "http://127.0.0.1:9", "--timeout", "1", "find", "nobody@example.com", "team@example.com",
                             "--format", "tsv"], env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": TempDir().path], http: transport)
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        XCTAssertFalse(result.stderr.contains("no customer matches 'team@example.com'"), result.stderr)
    }

    func testATermShownWithSomeOfItsMatchesIsFoundAndSaysWhatWasNotRead() throws {
        // The search for "team@example.com" names a next page, which never comes.
        let match = #"{"customerId":"alice","matchedBy":"email","email":"team@example.com","activeEntitlements":["premium"]}"#
        let fake = InProcessTransport { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")],
                         body: Array(#"{"term":"team@example.com","matches":[\#(match)],"next":"c2"}"#.utf8))
        }
        let transport = HangingTransport(inner: fake) { $0.url.contains("cursor=c2") }
        let result = runCLI(["--remote", "http://127.0.0.1:9", "--timeout", "1", "find", "team@example.com", "--format", "tsv"],
                            env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": TempDir().path], http: transport)
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stderr.contains("subs: note: the search for 'team@example.com' was read for 1 page only"), result.stderr)
        XCTAssertTrue(result.stdout.contains("team@example.com\talice\temail"), result.stdout)
    }

    func testAPlatformThatLooksIdsUpSaysTheUnreadIdIsNotKnown() throws {
        let body = try String(contentsOfFile: Repo.path("Tests/Fixtures/revenuecat/lifetime.json"), encoding: .utf8)
        let fake = InProcessTransport { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        }
        let transport = HangingTransport(inner: fake) { $0.url.contains("/subscribers/user2") }
        let result = runCLI(["--provider", "revenuecat", "--timeout", "1", "find", "user1", "user2", "--format", "tsv"],
                            env: ["SUBS_API_KEY": "sk_test", "XDG_CACHE_HOME": TempDir().path], http: transport)
        XCTAssertEqual(result.status, .unavailable, result.stderr)
        XCTAssertFalse(result.stderr.contains("no customer matches 'user2'"), result.stderr)
        XCTAssertTrue(result.stdout.hasSuffix("user2\t\t\t\t\ttimeout\n"), result.stdout)
    }
}
