// `subs serve` from the command line: it refuses what it must, serves the store over loopback,
// logs one line per request without the token, and stops cleanly when told to.

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI
@testable import SubsKit

final class ServeCommandTests: XCTestCase {
    func testANonLoopbackAddressNeedsAToken() {
        let result = runCLI(["--store", Repo.exampleStore, "serve", "--listen", "0.0.0.0:0"])
        XCTAssertEqual(result.status, .usage)
        XCTAssertTrue(result.stderr.contains("needs a token"), result.stderr)
    }

    func testAMissingStoreIsSaidBeforeServing() {
        let result = runCLI(["--store", "/nonexistent/store.json", "serve", "--listen", "127.0.0.1:0"])
        XCTAssertEqual(result.status, .noInput, result.stderr)
    }

    /// One GET over a real socket to an in-process server, which then stops.
    func testServesTheStoreLogsRequestsAndStops() throws {
        final class Sink: @unchecked Sendable {
            let lock = NSLock()
            var text = ""
            func add(_ s: String) { lock.lock(); text += s; lock.unlock() }
        }
        let err = Sink()
        let stop = DispatchSemaphore(value: 0)
        let port = Port()
        var context = Context(writeOut: { _ in }, writeErr: { err.add($0) }, readIn: { [] },
                              environment: ["HOME": "/nonexistent-home", "SUBS_NOW": testNow, "SUBS_SERVER_TOKEN": "tok3n"],
                              clock: FixedClock(Instant(seconds: 0)), stdoutIsTerminal: false)
        context.waitForStop = { serving in
            port.set(serving)
            stop.wait()
        }
        let done = DispatchSemaphore(value: 0)
        let status = Port()
        let serving = context
        Thread.detachNewThread {
            status.set(Int(CLI.run(arguments: ["--store", Repo.exampleStore, "serve", "--listen", "127.0.0.1:0"],
                                   context: serving).rawValue))
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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        let request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
