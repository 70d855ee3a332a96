// `--remote` against `subs serve`'s API on loopback prints exactly what the local store prints
// for the same data, and remote failures keep their exit statuses.

import XCTest
import Foundation
import SubsJSON
@testable import SubsStore
@testable import SubsCLI

final class RemoteParityTests: XCTestCase {
    private var dir: TempDir!
    private var store: String!
    private var server: LoopbackSubsServer!
    private var base = ""

    override func setUpWithError() throws {
        dir = TempDir()
        store = dir.write("store.json", DemoStore.json)
        server = try LoopbackSubsServer(store: store, token: "t0ken")
        base = server.base
    }

    override func tearDown() {
        server.stop()
    }

    private func remote(_ args: [String], key: String = "t0ken") -> CLIResult {
        runCLI(["--remote", base] + args, env: ["SUBS_API_KEY": key, "XDG_CACHE_HOME": dir.path + "/cache"])
    }

    private func local(_ args: [String]) -> CLIResult { runCLI(["--store", store] + args) }

    func testEveryDemoCustomerReadsTheSameThroughTheServer() throws {
        let ids = ["alice", "bob", "dave", "erin", "frank", "ivan", "kim", "liam", "mia", "quentin", "sybil", "uma", "xavier", "yara"]
        for at in ["2026-11-20T00:00:00Z", "2026-12-01T12:00:00Z", "2027-02-01T00:00:00Z"] {
            for id in ids {
                for command in [["check", id, "--json"], ["history", id, "--json"], ["renew-count", id, "--json"], ["check", id]] {
                    let args = command + ["--at", at]
                    let there = remote(args), here = local(args)
                    XCTAssertEqual(there.status, here.status, "\(args): \(there.stderr)")
                    // The history document names who answered: the server, not the file.
                    let expected = command[0] == "history"
                        ? here.stdout.replacingOccurrences(of: "\"provider\": \"store\"", with: "\"provider\": \"subs\"")
                        : here.stdout
                    if command[0] == "history" { XCTAssertTrue(there.stdout.contains("\"provider\": \"subs\""), there.stdout) }
                    XCTAssertEqual(there.stdout, expected, "\(args)")
                }
            }
        }
    }

    func testAGrantThroughTheServerLandsInTheFile() throws {
        let result = remote(["grant", "trent", "premium", "--duration", "P1M", "--reason", "goodwill", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["entitlement"]?["state"], .string("active"))
        XCTAssertEqual(local(["check", "trent", "--require", "premium", "-q"]).status, .success)
        XCTAssertEqual(remote(["revoke", "trent", "premium", "-q"]).status, .success)
        XCTAssertEqual(local(["check", "trent", "--require", "premium", "-q"]).status, .requirementMissing)
        XCTAssertEqual(remote(["revoke", "trent", "premium"]).status, .notFound)
    }

    func testRemoteFailuresKeepTheirStatusesAndNeverShowTheKey() {
        let wrong = remote(["check", "alice"], key: "wr0ng-key")
        XCTAssertEqual(wrong.status, .permissionDenied)
        XCTAssertFalse(wrong.stderr.contains("wr0ng-key"))
        XCTAssertEqual(remote(["check", "nobody"]).status, .notFound)
        XCTAssertEqual(runCLI(["--remote", "http://example.com", "check", "a"], env: ["SUBS_API_KEY": "k"]).status, .usage)
        // Answered from the cache once the server is gone, with a warning giving its age.
        XCTAssertEqual(remote(["check", "alice", "-q"]).status, .success)
        server.stop()
        let cached = remote(["check", "alice", "--json"])
        XCTAssertEqual(cached.status, .success, cached.stderr)
        XCTAssertTrue(cached.stderr.contains("cache"), cached.stderr)
        XCTAssertEqual(remote(["--offline", "check", "bob"]).status, .unavailable)
        XCTAssertEqual(remote(["--offline", "check", "alice", "-q"]).status, .success)
        assertNoFileContains(["t0ken"], under: dir.path + "/cache")
    }
}
