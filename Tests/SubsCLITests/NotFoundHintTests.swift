// Issue 30: every hint names something that exists where it is read, and a customer not found
// gets a did-you-mean (the nearest ids and aliases), as commands, options and entitlements do.

import Foundation
import SubsJSON
import XCTest

final class NotFoundHintTests: XCTestCase {
    /// A copy of the demo store: a revoke that is not a dry run takes the store's lock (and
    /// would write), which must never happen to the repository's own file.
    private let dir = TempDir()
    private lazy var store = dir.write("store.json", try! String(contentsOfFile: Repo.exampleStore, encoding: .utf8))

    private func demo(_ args: [String], stdin: String? = nil) -> CLIResult {
        runCLI(["--store", store] + args, stdin: stdin)
    }

    func testRevokeNeverHintsAtACreateItDoesNotHave() {
        let revoke = demo(["revoke", "nobody", "premium"])
        XCTAssertEqual(revoke.status, .notFound)
        XCTAssertEqual(revoke.stderr, "subs: error: customer 'nobody' not found; nothing written\n")
        XCTAssertFalse(revoke.stderr.contains("--create"))
        let dry = demo(["revoke", "nobody", "premium", "--dry-run"])
        XCTAssertFalse(dry.stderr.contains("--create"), dry.stderr)
        // grant has --create: its hint names it.
        let grant = demo(["grant", "nobody", "premium", "--duration", "P1D", "--dry-run"])
        XCTAssertEqual(grant.stderr, "subs: error: customer 'nobody' not found; nothing written; add --create to create it\n")
        let batch = demo(["grant", "nobody", "zed", "alice", "premium", "--duration", "P1D", "--dry-run"])
        XCTAssertEqual(batch.stderr, "subs: error: customers 'nobody', 'zed' not found; nothing written; add --create to create them\n")
    }

    func testACustomerNotFoundGetsTheNearestIdsAndAliases() throws {
        XCTAssertEqual(demo(["check", "alicee"]).stderr, "subs: error: customer 'alicee' not found (did you mean 'alice'?)\n")
        XCTAssertEqual(demo(["history", "alice-androd"]).stderr,
                       "subs: error: customer 'alice-androd' not found (did you mean 'alice-android'?)\n")
        XCTAssertEqual(demo(["renew-count", "wlater"]).stderr, "subs: error: customer 'wlater' not found (did you mean 'walter'?)\n")
        XCTAssertEqual(demo(["revoke", "lima", "premium"]).stderr,
                       "subs: error: customer 'lima' not found (did you mean 'liam'?); nothing written\n")
        XCTAssertEqual(demo(["check", "ima"]).stderr, "subs: error: customer 'ima' not found (did you mean 'mia' or 'uma'?)\n")
        XCTAssertEqual(demo(["grant", "trnet", "premium", "--lifetime", "--dry-run"]).stderr,
                       "subs: error: customer 'trnet' not found (did you mean 'trent'?); nothing written; add --create to create it\n")
        // A batch of unknown ids: the first ten get a suggestion, the rest none (one pass each).
        let batch = demo(["check", "-", "-q"], stdin: String(repeating: "alicee\n", count: 12))
        let lines = batch.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 12)
        XCTAssertEqual(lines.filter { $0.contains("did you mean 'alice'") }.count, 10)
        // Nothing near: no suggestion at all.
        XCTAssertEqual(demo(["check", "zzzzzz"]).stderr, "subs: error: customer 'zzzzzz' not found\n")
        // The JSON error element says the same words as stderr.
        let json = try JSON.parse(demo(["check", "alicee", "bob", "--json"]).stdout)
        XCTAssertEqual(json.arrayValue?.first?["error"]?["message"], .string("customer 'alicee' not found (did you mean 'alice'?)"))
        // With the find hint after it when the USER looks like an email.
        XCTAssertEqual(demo(["check", "alice@example.con"]).stderr,
                       "subs: error: customer 'alice@example.con' not found; it looks like an email: subs find alice@example.con\n")
    }

    /// Ids are bytes (SPEC section 7): an NFD spelling of an NFC id is not that id, and the
    /// suggestion shows the one that is.
    func testAnotherNormalisationOfAnIdIsSuggestedNotTakenForIt() throws {
        let dir = TempDir()
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"life": {"type": "nonConsumable", "entitlements": ["premium"]}},
             "customers": {"caf\u{E9}": {}}}
            """)
        let result = runCLI(["--store", store, "check", "cafe\u{301}"])
        XCTAssertEqual(result.status, .notFound)
        XCTAssertEqual(result.stderr, "subs: error: customer 'cafe\u{301}' not found (did you mean 'caf\u{E9}'? — the same letters "
                       + "in another Unicode form; ids are compared by their bytes)\n")
    }

    /// A source that cannot list its customers (subs serve, a platform) suggests nothing, and
    /// asks nothing more for it.
    func testARemoteSourceSuggestsNothing() throws {
        let server = try LoopbackSubsServer(store: store, token: "t0ken")
        defer { server.stop() }
        let cache = TempDir()
        let result = runCLI(["--remote", server.base, "check", "alicee"],
                            env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": cache.path])
        XCTAssertEqual(result.status, .notFound, result.stderr)
        XCTAssertEqual(result.stderr, "subs: error: customer 'alicee' not found\n")
        // Through serve, a write's miss is worded as locally: --create, never the API's body field.
        let grant = runCLI(["--remote", server.base, "grant", "nobody", "premium", "--duration", "P1D"],
                           env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": cache.path])
        XCTAssertEqual(grant.status, .notFound)
        XCTAssertEqual(grant.stderr, "subs: error: customer 'nobody' not found; nothing written; add --create to create it\n")
        let revoke = runCLI(["--remote", server.base, "revoke", "nobody", "premium"],
                            env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": cache.path])
        XCTAssertEqual(revoke.stderr, "subs: error: customer 'nobody' not found; nothing written\n")
    }
}
