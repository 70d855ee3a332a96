// Issue 29 end to end, on the built binary over real sockets: serve never answers from the past
// (a change by another process is seen by the next request: a local grant or revoke, a store
// copied over in place, and the server's own POST after an outside write), and serve's search is
// bounded (eight concurrent searches of 20 000 matches each keep its memory under the bound of
// SPEC section 7; `--remote find` asks one request per page, never one per match).

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import XCTest

/// A running `subs serve` on `store`, stopped when the test ends.
private struct Served {
    let process: Process
    let port: Int
    let log: String
    var url: String { "http://127.0.0.1:\(port)" }

    static func start(_ store: String, in dir: TempDir, test: XCTestCase) throws -> Served {
        let log = dir.path + "/serve-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0"],
                                       stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        test.addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        let giveUp = Date().addingTimeInterval(60)
        while Date() < giveUp {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                return Served(process: process, port: port, log: log)
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        XCTFail("subs serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        throw POSIXError(.ECHILD)
    }

    /// The request lines logged so far ("GET /v1/customers 200"), without the timing.
    var requests: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("subs: GET ") || $0.hasPrefix("subs: POST ") }.map(String.init)
    }

    /// The process's peak resident size (VmHWM), in KiB.
    var peakKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

/// The example store with `count` more customers (about 500 bytes each), all in team blue.
private func exampleStore(withFillers count: Int, in dir: TempDir) throws -> String {
    let example = try String(contentsOfFile: Repo.exampleStore, encoding: .utf8)
    var fillers = ""
    fillers.reserveCapacity(count * 560)
    let notes = String(repeating: "n", count: 240)
    for i in 0..<count {
        let id = "filler_" + String(100_000 + i).dropFirst()
        fillers += #"    "\#(id)": {"firstSeen": "2026-01-01T00:00:00Z", "attributes": {"email": "\#(id)@example.com", "team": "blue"}, "#
            + #""notes": "\#(notes)", "grants": [{"id": "grant-1", "entitlement": "premium", "grantedAt": "2026-01-01T00:00:00Z", "#
            + #""expirationDate": \#(i % 2 == 0 ? "null" : #""2026-06-01T00:00:00Z""#)}]},"# + "\n"
    }
    let text = example.replacingOccurrences(of: "  \"customers\": {\n", with: "  \"customers\": {\n" + fillers)
    XCTAssertNotEqual(text, example)
    return dir.write("store.json", text)
}

final class ServeFreshAnswersEndToEndTests: XCTestCase {
    /// A local `grant`/`revoke` beside the server (another process renaming a new store in) is
    /// seen by the very next `--remote check --require`, round after round, while GETs keep the
    /// server busy; a store copied over in place is seen too.
    func testALocalWriteIsSeenByTheNextRemoteCommand() throws {
        let dir = TempDir()
        // 20 000 customers (10 MB): the old server answered from its previous version for as
        // long as it took to index and check them all.
        let store = try exampleStore(withFillers: 20_000, in: dir)
        let server = try Served.start(store, in: dir, test: self)
        let remote = ["--remote", server.url]
        // Traffic meanwhile: a keep-alive client asking for alice without pause.
        let traffic = Traffic(port: server.port, path: "/v1/customers/alice")
        traffic.start()
        defer { traffic.stop() }

        for round in 0..<3 {
            let grant = try Binary.run(["--store", store, "grant", "trent", "premium", "--duration", "P1M", "--reason", "round \(round)"])
            XCTAssertEqual(grant.status, .success, grant.stderr)
            let granted = try Binary.run(remote + ["check", "trent", "--require", "premium"])
            XCTAssertEqual(granted.status, .success, "round \(round): the grant was not seen: \(granted.stdout)\(granted.stderr)")
            let revoke = try Binary.run(["--store", store, "revoke", "trent", "premium"])
            XCTAssertEqual(revoke.status, .success, revoke.stderr)
            let revoked = try Binary.run(remote + ["check", "trent", "--require", "premium"])
            XCTAssertEqual(revoked.status.rawValue, 1, "round \(round): the revoke was not seen: \(revoked.stdout)\(revoked.stderr)")
        }

        // Until here every GET of alice was answered (an in-place copy below may fail the ones
        // that read a half-written file: "the store changed while it was being read").
        traffic.stop()
        XCTAssertEqual(traffic.failures, [], "a GET of alice failed meanwhile")
        XCTAssertGreaterThan(traffic.answered, 0)

        // Another program copies a store over this one in place (same file, new bytes), once
        // the journal is folded in (`store compact` before editing the store by hand).
        XCTAssertEqual(try Binary.run(["--store", store, "store", "compact", "-q"]).status, .success)
        let saved = try String(contentsOfFile: store, encoding: .utf8)
        let copied = saved.replacingOccurrences(of: "\"trent@example.com\"", with: "\"trent@example.org\"")
        XCTAssertNotEqual(copied, saved)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store))
        try handle.truncate(atOffset: 0)
        handle.write(Data(copied.utf8))
        try handle.close()
        let answer = try RawClient.get(server.port, "/v1/customers/trent")
        XCTAssertTrue(answer.contains("trent@example.org"), String(answer.prefix(300)))
    }

    /// After an outside grant the server's own POST is applied to the new file, and the GET
    /// after it shows both.
    func testTheServersPostAfterAnOutsideGrantKeepsBoth() throws {
        let dir = TempDir()
        let store = try exampleStore(withFillers: 20_000, in: dir)
        let server = try Served.start(store, in: dir, test: self)
        func grants(_ id: String) throws -> [JSONValue] {
            let answer = try RawClient.get(server.port, "/v1/customers/" + id)
            let body = try XCTUnwrap(answer.range(of: "\r\n\r\n")).upperBound
            return try JSON.parse(String(answer[body...]))["customer"]?["grants"]?.arrayValue ?? []
        }
        let before = try grants("bob").count
        for round in 0..<3 {
            let outside = try Binary.run(["--store", store, "grant", "bob", "premium", "--duration", "P1M", "--reason", "outside \(round)"])
            XCTAssertEqual(outside.status, .success, outside.stderr)
            let own = try Binary.run(["--remote", server.url, "grant", "bob", "premium", "--duration", "P1M", "--reason", "served \(round)"])
            XCTAssertEqual(own.status, .success, own.stderr)
            let reasons = try grants("bob").compactMap { $0["reason"]?.stringValue }
            XCTAssertEqual(reasons.count, before + 2 * (round + 1), "\(reasons)")
            XCTAssertTrue(reasons.contains("outside \(round)") && reasons.contains("served \(round)"), "\(reasons)")
        }
        // And in the file: nothing the server wrote undid the outside grants.
        let local = try Binary.run(["--store", store, "history", "bob", "--json"])
        for round in 0..<3 {
            XCTAssertTrue(local.stdout.contains("outside \(round)") && local.stdout.contains("served \(round)"), local.stdout)
        }
    }
}

final class ServeBoundedSearchEndToEndTests: XCTestCase {
    /// Eight searches at once, each matching 20 000 customers: serve's peak memory stays under a
    /// quarter of the store plus 256 MiB (SPEC section 7), far under what decoding every match
    /// took; each answer is a page with a cursor, and the pages together are every match.
    func testEightConcurrentLargeSearchesStayUnderTheMemoryBound() throws {
        let dir = TempDir()
        let store = try exampleStore(withFillers: 20_000, in: dir)
        let storeKiB = Int((try FileManager.default.attributesOfItem(atPath: store)[.size] as? Int) ?? 0) / 1024
        let server = try Served.start(store, in: dir, test: self)
        XCTAssertTrue(try RawClient.get(server.port, "/v1/customers/alice").hasPrefix("HTTP/1.1 200"))
        let baseline = server.peakKiB
        let answers = Collected()
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                answers.add((try? RawClient.get(server.port, "/v1/customers?search=blue&attribute=team&limit=10000", timeout: 120)) ?? "")
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 180), .success)
        let peak = server.peakKiB
        XCTAssertEqual(answers.all.count, 8)
        for answer in answers.all {
            // Every search was answered (a busy one says so: 503 with Retry-After).
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.1 503"), String(answer.prefix(200)))
            guard answer.hasPrefix("HTTP/1.1 200"), let body = answer.range(of: "\r\n\r\n")?.upperBound else { continue }
            let page = try JSON.parse(String(answer[body...]))
            let count = page["matches"]?.arrayValue?.count ?? 0
            XCTAssertGreaterThan(count, 0)
            XCTAssertLessThan(count, 20_000, "one answer held every match")
            XCTAssertNotNil(page["next"]?.stringValue, "a page that is not the last names the next")
            XCTAssertLessThan(answer.utf8.count, (1 << 20) + 4096)
        }
        XCTAssertGreaterThanOrEqual(answers.all.filter { $0.hasPrefix("HTTP/1.1 200") }.count, 4, "searches waiting their turn were refused")
        XCTAssertLessThan(peak, storeKiB / 4 + 256 * 1024, "serve's peak \(peak) KiB for a store of \(storeKiB) KiB")
        // Decoding every match of eight searches took 150 MB more on this store; pages, a few
        // searches at a time and their memory given back take under 20 MB.
        XCTAssertLessThan(peak - baseline, 48 * 1024, "eight searches grew serve's peak by \(peak - baseline) KiB")
    }

    /// `--remote find` through serve asks one request per page of matches, never one per match,
    /// and prints what the local store prints.
    func testRemoteFindIsOneRequestPerPage() throws {
        let dir = TempDir()
        let store = try exampleStore(withFillers: 20_000, in: dir)
        let server = try Served.start(store, in: dir, test: self)
        for (args, pages) in [(["find", "filler_12345@example.com", "--json"], 1), (["find", "alice", "MN9C3VJ6HW"], 2),
                              (["find", "blue", "--attribute", "team", "--format", "tsv"], 3)] {
            let before = server.requests.count
            let there = try Binary.run(["--remote", server.url] + args)
            let here = try Binary.run(["--store", store] + args)
            XCTAssertEqual(there.status, here.status, "\(args): \(there.stderr)")
            XCTAssertEqual(there.stdout, here.stdout, "\(args)")
            let asked = Array(server.requests.dropFirst(before))
            XCTAssertEqual(asked.count, pages, "\(args): \(asked.prefix(5))")
            XCTAssertTrue(asked.allSatisfy { $0.hasPrefix("subs: GET /v1/customers 200") }, "\(asked.prefix(5))")
        }
    }
}

/// GETs of one path over one keep-alive connection, without pause, on a thread of their own.
private final class Traffic: @unchecked Sendable {
    let port: Int
    let path: String
    private let lock = NSLock()
    private var stopping = false
    private var done = DispatchSemaphore(value: 0)
    private(set) var answered = 0
    /// What the GETs that failed got: their status line, or "no answer".
    private(set) var failures: [String] = []

    init(port: Int, path: String) {
        self.port = port
        self.path = path
    }

    func start() {
        Thread { [self] in
            defer { done.signal() }
            guard let client = try? RawClient(port: port) else { lock.withLock { failures.append("no connection") }; return }
            while !lock.withLock({ stopping }) {
                _ = client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = client.readResponse(timeout: 10)
                lock.withLock {
                    if response?.status == 200 { answered += 1 } else {
                        failures.append(response.map { "\($0.status) \(String(decoding: $0.body.prefix(200), as: UTF8.self))" } ?? "no answer")
                    }
                }
                if response?.status != 200 { return }
            }
        }.start()
    }

    func stop() {
        guard !lock.withLock({ () -> Bool in defer { stopping = true }; return stopping }) else { return }
        _ = done.wait(timeout: .now() + 15)
    }
}

/// Answers collected from several threads.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}

/// serve and the command line writing one store at once (issue 32): each change goes to the
/// journal under the store's lock, whoever makes it; none is lost or applied twice, and serve
/// answers with all of them.
final class ServeAndCLIWriteOneJournalEndToEndTests: XCTestCase {
    func testServeAndTheCommandLineWritingOneStoreLoseNothing() throws {
        let dir = TempDir()
        let store = dir.write("store.json", TestStore.json)
        let server = try Served.start(store, in: dir, test: self)
        let group = DispatchGroup()
        let failures = Failures()
        for i in 0..<12 {
            group.enter()
            Thread {
                defer { group.leave() }
                let remote = i % 2 == 0
                let arguments = (remote ? ["--remote", server.url] : ["--store", store])
                    + ["grant", "alice", "premium", "--duration", "P1M", "--reason", "w\(i)", "-q"]
                let result = try? Binary.run(arguments)
                if result?.status != .success { failures.add("w\(i): \(result?.stderr ?? "did not run")") }
            }.start()
        }
        group.wait()
        XCTAssertEqual(failures.all, [])
        let doc = try JSON.parse(StoreView.folded(store))
        let reasons = doc["customers"]?["alice"]?["grants"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
        XCTAssertEqual(Set(reasons), Set((0..<12).map { "w\($0)" }))
        XCTAssertEqual(reasons.count, 12, "a change lost or applied twice: \(reasons)")
        // serve answers with every one of them, at once.
        let answer = try RawClient.get(server.port, "/v1/customers/alice")
        for i in 0..<12 { XCTAssertTrue(answer.contains("\"w\(i)\""), "serve does not show w\(i)") }
        XCTAssertEqual(try Binary.run(["--store", store, "store", "validate", "-q"]).status, .success)
    }
}

/// Failures the writers' threads report.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.withLock { list.append(failure) } }
    var all: [String] { lock.withLock { list } }
}
