// Writes through `subs serve` read like writes on the local store: every write option is carried
// (or refused in one line), a refusal gives the local message and exit status, `grant --create`
// creates, a base URL with /v1 works, and --offline never sends a write (any provider).

import XCTest
import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
@testable import SubsCLI

final class RemoteWriteParityTests: XCTestCase {
    private var dir: TempDir!
    /// The store behind the server, and a copy of the same bytes that local runs change.
    private var served: String!
    private var local: String!
    private var server: LoopbackSubsServer!
    private var base = ""
    private let requests = Counter()

    override func setUpWithError() throws {
        dir = TempDir()
        served = dir.write("served.json", DemoStore.json)
        local = dir.write("local.json", DemoStore.json)
        let requests = self.requests
        server = try LoopbackSubsServer(store: served, token: "t0ken", onRequest: { requests.add() })
        base = server.base
    }

    override func tearDown() {
        server.stop()
    }

    private func remote(_ args: [String], base: String? = nil, env: [String: String] = [:]) -> CLIResult {
        runCLI(["--remote", base ?? self.base] + args,
               env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache", "SUBS_ACTOR": "dana"].merging(env) { $1 })
    }

    private func here(_ args: [String]) -> CLIResult {
        runCLI(["--store", local] + args, env: ["SUBS_ACTOR": "dana"])
    }

    /// Runs `args` on the local copy and through the server: same status, stdout and stderr.
    @discardableResult
    private func assertSame(_ args: [String], file: StaticString = #filePath, line: UInt = #line) -> CLIResult {
        let there = remote(args), mine = here(args)
        XCTAssertEqual(there.status, mine.status, "\(args): \(there.stderr)", file: file, line: line)
        // The history document names who answered: the server, not the file (as in RemoteParityTests).
        let expected = args.first == "history"
            ? mine.stdout.replacingOccurrences(of: "\"provider\": \"store\"", with: "\"provider\": \"subs\"") : mine.stdout
        if args.first == "history" { XCTAssertTrue(there.stdout.contains("\"provider\": \"subs\""), there.stdout, file: file, line: line) }
        XCTAssertEqual(there.stdout, expected, "\(args)", file: file, line: line)
        // A refusal the server made ends with its request id (SPEC section 6 rev. 4: ServeServiceEndToEndTests);
        // the rest reads as the local one. A refusal the client makes itself has none.
        let id = #" \(request req_[0-9a-f]{16}\)\n"#
        XCTAssertEqual(there.stderr.replacingOccurrences(of: id, with: "\n", options: .regularExpression), mine.stderr, "\(args)",
                       file: file, line: line)
        return there
    }

    func testEveryWriteOptionGivesWhatTheLocalStoreGives() throws {
        // --duration, --until, --lifetime, --reason, --actor, and the options of revoke.
        for args in [["grant", "trent", "premium", "--duration", "P1M", "--reason", "goodwill", "--json"],
                     ["grant", "trent", "premium", "--until", "2027-03-01", "--actor", "sam", "--json"],
                     ["grant", "trent", "premium", "--lifetime", "--reason", "founder", "--actor", "lee"],
                     ["revoke", "trent", "premium", "--reason", "mistake", "--actor", "kai", "--json"],
                     ["check", "trent", "--json"]] {
            assertSame(args)
        }
        // The history is the same but for who answered: the server, not the file.
        let there = remote(["history", "trent", "--json"]), ours = here(["history", "trent", "--json"])
        XCTAssertEqual(there.status, ours.status, there.stderr)
        XCTAssertEqual(there.stderr, ours.stderr)
        XCTAssertTrue(there.stdout.contains("\"provider\": \"subs\""), there.stdout)
        XCTAssertEqual(there.stdout, ours.stdout.replacingOccurrences(of: "\"provider\": \"store\"", with: "\"provider\": \"subs\""))
        // The server's store holds what the local one holds, field by field.
        let stored = try XCTUnwrap(try LocalStore(path: served).lookup(["trent"]).records.first ?? nil)
        let mine = try XCTUnwrap(try LocalStore(path: local).lookup(["trent"]).records.first ?? nil)
        XCTAssertEqual(stored.grants, mine.grants)
        XCTAssertEqual(stored.grants.map(\.grantedBy), ["dana", "sam", "lee"])
        XCTAssertEqual(stored.grants.map(\.reason), ["goodwill", nil, "founder"])
        XCTAssertEqual(stored.grants.map(\.expirationDate).map { $0.map(ISODate.format) },
                       ["2027-01-01T12:00:00Z", "2027-03-01T00:00:00Z", nil])
        XCTAssertEqual(stored.grants.compactMap(\.revokedBy), ["kai", "kai", "kai"])
        XCTAssertEqual(stored.grants.compactMap(\.revokeReason), ["mistake", "mistake", "mistake"])
    }

    func testRefusalsReadLikeTheLocalOnesWithTheirStatuses() {
        // An end not in the future: 64, the local sentence (not "unexpected HTTP status 400").
        let past = assertSame(["grant", "trent", "premium", "--until", "2026-01-01"])
        XCTAssertEqual(past.status, .usage)
        XCTAssertEqual(past.stderr, "subs: error: the expiration 2026-01-01T00:00:00Z is not in the future; nothing written\n")
        XCTAssertEqual(assertSame(["grant", "newbie", "premium", "--duration", "P1D"]).status, .notFound)
        XCTAssertEqual(assertSame(["grant", "trent", "premum", "--duration", "P1D"]).status, .notFound)
        XCTAssertEqual(assertSame(["revoke", "trent", "premium"]).status, .notFound)
        XCTAssertEqual(assertSame(["revoke", "nobody", "premium"]).status, .notFound)
        XCTAssertEqual(DemoStore.json, try String(contentsOfFile: served, encoding: .utf8), "nothing written")
    }

    func testGrantCreateThroughTheServerCreatesTheCustomer() throws {
        let table = assertSame(["grant", "newbie", "premium", "--duration", "P7D", "--create"])
        XCTAssertEqual(table.status, .success)
        XCTAssertTrue(table.stdout.hasPrefix("newbie (new customer): granted premium until 2026-12-08 12:00Z (grant-1)"), table.stdout)
        XCTAssertEqual(remote(["check", "newbie", "--require", "premium", "-q"]).status, .success)
        // Already there now: a second grant --create does not say "new customer" again.
        let again = assertSame(["grant", "newbie", "premium", "--lifetime", "--create", "--json"])
        XCTAssertEqual(try JSON.parse(again.stdout)["grants"]?.arrayValue?.first?["id"], .string("grant-2"))
        XCTAssertEqual(assertSame(["check", "newbie", "--json"]).status, .success)
    }

    func testWhatTheServerCannotDoIsRefusedInOneLineAndNothingIsSent() throws {
        let before = requests.value
        let dry = remote(["grant", "trent", "premium", "--duration", "P1D", "--dry-run"])
        XCTAssertEqual(dry.status, .usage)
        XCTAssertEqual(dry.stderr, "subs: error: the subs REST API has no dry run: nothing was sent (run the dry run against the store itself)\n")
        let batch = remote(["grant", "trent", "alice", "premium", "--duration", "P1D"])
        XCTAssertEqual(batch.status, .usage)
        XCTAssertEqual(batch.stderr.filter { $0 == "\n" }.count, 1, batch.stderr)
        XCTAssertEqual(requests.value, before, "nothing sent")
        XCTAssertEqual(DemoStore.json, try String(contentsOfFile: served, encoding: .utf8))
    }

    func testABaseURLWithOrWithoutV1Works() throws {
        for url in [base, base + "/", base + "/v1", base + "/v1/"] {
            let check = remote(["check", "alice", "--json"], base: url)
            XCTAssertEqual(check.status, .success, "\(url): \(check.stderr)")
            XCTAssertEqual(check.stdout, here(["check", "alice", "--json"]).stdout, url)
            XCTAssertEqual(remote(["check", "nobody"], base: url).stderr, "subs: error: customer 'nobody' not found\n", url)
        }
        XCTAssertEqual(remote(["grant", "trent", "premium", "--duration", "P1D", "-q"], base: base + "/v1").status, .success)
        XCTAssertEqual(try LocalStore(path: served).lookup(["trent"]).records.first??.grants.count, 1)
        // A path that is not the API's: the server's not_found is a wrong base URL, not a missing customer.
        for url in [base + "/v1/v1", base + "/api", base + "/v2"] {
            let wrong = remote(["check", "alice"], base: url)
            XCTAssertEqual(wrong.status, .configError, "\(url): \(wrong.stderr)")
            XCTAssertTrue(wrong.stderr.hasPrefix("subs: error: \(url)/"), wrong.stderr)
            XCTAssertTrue(wrong.stderr.contains("the base URL (--remote) looks wrong; it should be the address of subs serve, "
                                                + "as in http://127.0.0.1:8787 (with or without /v1)"), wrong.stderr)
            XCTAssertFalse(wrong.stderr.contains("not found (HTTP"), wrong.stderr)
            XCTAssertEqual(wrong.stderr.filter { $0 == "\n" }.count, 1)
        }
    }

    func testOfflineWritesAreRefusedBeforeAnyRequestForEveryProvider() throws {
        // subs: the cache holds alice (a write must not be answered from it, nor sent).
        XCTAssertEqual(remote(["check", "alice", "-q"]).status, .success)
        let before = requests.value
        for command in [["grant", "alice", "premium", "--duration", "P1D"], ["revoke", "alice", "premium"]] {
            let result = remote(["--offline"] + command)
            XCTAssertEqual(result.status, .usage, result.stderr)
            XCTAssertEqual(result.stderr, "subs: error: \(command[0]): --offline answers reads from the cache only; "
                                          + "a write needs the server (drop --offline)\n")
            XCTAssertEqual(result.stdout, "")
        }
        XCTAssertEqual(requests.value, before, "nothing sent")
        XCTAssertEqual(DemoStore.json, try String(contentsOfFile: served, encoding: .utf8), "nothing written")
        // The platforms: nothing reaches the transport either.
        for (provider, remoteURL) in [("revenuecat", nil), ("qonversion", nil), ("iaphub", "https://api.iaphub.com/v1/app/a1"),
                                      ("subs", "https://subs.example.com")] as [(String, String?)] {
            let transport = RecordingTransport()
            for command in [["grant", "-", "premium", "--duration", "P1D"], ["revoke", "u1", "premium"]] {
                let result = runCLI((remoteURL.map { ["--remote", $0] } ?? []) + ["--provider", provider, "--offline"] + command,
                                    env: ["SUBS_API_KEY": "sk_k", "XDG_CACHE_HOME": dir.path + "/cache"], stdin: "u1\n",
                                    http: transport)
                XCTAssertEqual(result.status, .usage, "\(provider): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("a write needs the server"), result.stderr)
            }
            XCTAssertEqual(transport.urls, [], provider)
        }
        // The local store has no server: --offline changes nothing there.
        XCTAssertEqual(runCLI(["--store", local, "--offline", "grant", "trent", "premium", "--duration", "P1D", "-q"]).status, .success)
    }
}

/// A count shared with a server's handler threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// A clock one second later at every reading: the server's answer is made after the write it
/// reports, and may fall on the next second.
private final class TickingClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Int64
    init(_ start: Instant) { seconds = start.seconds }
    func now() -> Instant {
        lock.lock()
        defer { lock.unlock() }
        seconds += 1
        return Instant(seconds: seconds)
    }
}

final class RemoteRevokeTimingTests: XCTestCase {
    /// The grants a revoke ended are the ones it stamped, whatever second the answer is made.
    func testARevokeReportsTheGrantsItEndedWhenTheAnswerIsMadeAWhileLater() throws {
        let dir = TempDir()
        let store = dir.write("served.json", DemoStore.json)
        let server = try LoopbackSubsServer(store: store, token: "t0ken", clock: TickingClock(ISODate.parse(testNow)!))
        defer { server.stop() }
        let env = ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache", "SUBS_ACTOR": "dana"]
        XCTAssertEqual(runCLI(["--remote", server.base, "grant", "trent", "premium", "--duration", "P1M"], env: env).status, .success)
        let revoked = runCLI(["--remote", server.base, "revoke", "trent", "premium", "--reason", "test", "--json"], env: env)
        XCTAssertEqual(revoked.status, .success, revoked.stderr)
        let grants = try XCTUnwrap(JSON.parse(revoked.stdout)["grants"]?.arrayValue)
        XCTAssertEqual(grants.count, 1, revoked.stdout)
        XCTAssertEqual(grants.first?["revokedBy"], .string("dana"))
        XCTAssertEqual(grants.first?["revokeReason"], .string("test"))
    }
}
