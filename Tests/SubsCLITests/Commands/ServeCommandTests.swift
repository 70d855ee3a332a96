// `subs serve` from the command line: it refuses what it must, serves the store over loopback,
// logs one line per request without the token, and stops cleanly when told to.

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI

final class ServeCommandTests: XCTestCase {
    func testANonLoopbackAddressNeedsAToken() {
        let result = runCLI(["--store", Repo.exampleStore, "serve", "--listen", "0.0.0.0:0"])
        XCTAssertEqual(result.status, .usage)
        XCTAssertTrue(result.stderr.contains("needs a token"), result.stderr)
    }

    /// The IPv4 loopback mapped into IPv6 is loopback for `serve` as for the client: no token
    /// needed (served, or — on a machine without IPv6 — a bind failure, never the usage refusal).
    func testTheMappedIPv4LoopbackNeedsNoToken() {
        for listen in ["[::ffff:127.0.0.1]:0", "[::ffff:7f00:1]:0"] {
            let result = CLIHarness(waitForStop: { _ in }).run(["--store", Repo.exampleStore, "serve", "--listen", listen])
            XCTAssertFalse(result.stderr.contains("needs a token"), result.stderr)
            XCTAssertTrue(result.status == .success || result.status == .unavailable, "\(listen): \(result.status) \(result.stderr)")
        }
        for listen in ["[::ffff:10.0.0.1]:0", "[::]:0", "127.1:0"] {
            let result = runCLI(["--store", Repo.exampleStore, "serve", "--listen", listen])
            XCTAssertEqual(result.status, .usage, listen)
        }
    }

    func testAMissingStoreIsSaidBeforeServing() {
        let result = runCLI(["--store", "/nonexistent/store.json", "serve", "--listen", "127.0.0.1:0"])
        XCTAssertEqual(result.status, .noInput, result.stderr)
    }

    /// One GET over a real socket to an in-process server, which then stops.
    func testServesTheStoreLogsRequestsAndStops() throws {
        final class Log: @unchecked Sendable { var text = "" }
        let err = Log()
        let stop = DispatchSemaphore(value: 0)
        let port = Port()
        let harness = CLIHarness(env: ["SUBS_SERVER_TOKEN": "tok3n"], waitForStop: { serving in
            port.set(serving)
            stop.wait()
        })
        let done = DispatchSemaphore(value: 0)
        let status = Port()
        Thread.detachNewThread {
            let result = harness.run(["--store", Repo.exampleStore, "serve", "--listen", "127.0.0.1:0"])
            err.text = result.stderr
            status.set(Int(result.status.rawValue))
            done.signal()
        }
        let bound = try XCTUnwrap(port.wait())
        let answer = try rawGet(port: bound, path: "/v1/customers/alice-android", token: "tok3n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        let body = try XCTUnwrap(answer.range(of: "\r\n\r\n")).upperBound
        XCTAssertEqual(try JSON.parse(String(answer[body...]))["customer"]?["id"], .string("alice"))
        XCTAssertTrue(try rawGet(port: bound, path: "/v1/customers/alice", token: "wrong").hasPrefix("HTTP/1.1 401"))
        stop.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(status.wait(), 0)
        XCTAssertTrue(err.text.contains("subs: GET /v1/customers/alice-android 200 "), err.text)
        XCTAssertTrue(err.text.contains("subs: GET /v1/customers/alice 401 "), err.text)
        XCTAssertFalse(err.text.contains("tok3n"))
    }

    private final class Port: @unchecked Sendable {
        private let ready = DispatchSemaphore(value: 0)
        private var value: Int?
        func set(_ v: Int) { value = v; ready.signal() }
        func wait() -> Int? { ready.wait(timeout: .now() + 10) == .success ? value : nil }
    }

    private func rawGet(port: Int, path: String, token: String) throws -> String {
        try RawClient.get(port, path, headers: ["Authorization": "Bearer \(token)"])
    }
}
