// CurlTransport on its own against the loopback RemoteTestServer: what goes on the wire, what
// comes back, the body limit, the deadline, and libcurl missing at run time.

import Foundation
import XCTest
@testable import SubsRemote

final class CurlTransportTests: XCTestCase {
    let transport = CurlTransport()

    func testMissingLibraryIsAClearErrorAndNothingIsSent() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 200, headers: [], body: "{}") }
        let missing = CurlTransport(libraryNames: ["libsubs-test-no-such-curl.so.0", "/nonexistent/libcurl.so.4"])
        XCTAssertThrowsError(try missing.send(RemoteRequest(method: "GET", url: server.url + "/x"))) { error in
            XCTAssertEqual(error as? RemoteError, .libcurlMissing(reason: "not found"))
            XCTAssertEqual("\(error)", "remote access needs libcurl (Debian/Ubuntu: apt-get install libcurl4): not found")
        }
        // Asked again, the same answer (no half-loaded state).
        XCTAssertThrowsError(try missing.send(RemoteRequest(method: "GET", url: server.url + "/x"))) { error in
            XCTAssertEqual(error as? RemoteError, .libcurlMissing(reason: "not found"))
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    func testMethodHeadersAndBodyGoOnTheWireAsGiven() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 201, headers: [], body: "") }
        let request = RemoteRequest(method: "PUT", url: server.url + "/v1/a?b=c",
                                    headers: [("X-One", "1"), ("X-Empty", ""), ("Content-Type", "application/json")],
                                    body: Array(#"{"a":"\u0000"}"#.utf8) + [0, 0xFF], timeout: 5)
        XCTAssertEqual(try transport.send(request).status, 201)
        let wire = try XCTUnwrap(server.requests.first)
        XCTAssertTrue(wire.hasPrefix("PUT /v1/a?b=c HTTP/1.1\r\n"), wire)
        XCTAssertTrue(wire.contains("X-One: 1\r\n"), wire)
        XCTAssertTrue(wire.contains("X-Empty:\r\n") || wire.contains("X-Empty: \r\n"), wire)
        XCTAssertTrue(wire.contains("Content-Length: \(request.body!.count)\r\n"), wire)
        XCTAssertFalse(wire.lowercased().contains("expect:"), wire)
        XCTAssertTrue(wire.hasSuffix("\r\n\r\n" + #"{"a":"\u0000"}"# + "\u{0}\u{FFFD}"), wire) // the NUL went through
    }

    func testPostWithoutBodyOrTypeSendsAnEmptyBodyAndNoFormType() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 200, headers: [], body: "") }
        _ = try transport.send(RemoteRequest(method: "POST", url: server.url + "/p"))
        _ = try transport.send(RemoteRequest(method: "DELETE", url: server.url + "/d"))
        let post = server.requests[0], delete = server.requests[1]
        XCTAssertTrue(post.hasPrefix("POST /p HTTP/1.1\r\n"), post)
        XCTAssertTrue(post.contains("Content-Length: 0\r\n"), post)
        XCTAssertFalse(post.lowercased().contains("content-type"), post)
        XCTAssertTrue(delete.hasPrefix("DELETE /d HTTP/1.1\r\n"), delete)
    }

    func testHeadersOfTheLastResponseMergedAndSorted() throws {
        let server = RemoteTestServer { _, _ in
            .raw("HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nVary: Accept\r\nDate: Mon, 23 Nov 2026 09:00:00 GMT\r\n"
                + "vary: Origin\r\nX-Folded: one\r\n two\r\n\r\n{}")
        }
        let response = try transport.send(RemoteRequest(method: "GET", url: server.url + "/h"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, Array("{}".utf8))
        XCTAssertEqual(response.headers.map(\.name), ["Content-Length", "Date", "Vary", "X-Folded"])
        XCTAssertEqual(response.header("vary"), "Accept, Origin")
        XCTAssertEqual(response.header("X-Folded"), "one two")
        XCTAssertNil(response.header("X-Interim"))
    }

    func testRedirectIsReturnedNotFollowed() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 301, headers: [("Location", "/elsewhere")], body: "") }
        let response = try transport.send(RemoteRequest(method: "GET", url: server.url + "/r"))
        XCTAssertEqual(response.status, 301)
        XCTAssertEqual(response.header("Location"), "/elsewhere")
        XCTAssertEqual(server.requestCount, 1)
    }

    func testBodyOverTheLimitIsRefused() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 200, headers: [], body: String(repeating: "x", count: 5000)) }
        let small = CurlTransport(maxBodySize: 4096)
        XCTAssertThrowsError(try small.send(RemoteRequest(method: "GET", url: server.url + "/big"))) { error in
            XCTAssertEqual(error as? TransportError, .bodyTooLarge(limit: 4096))
        }
        // The handle goes back to the pool and serves the next request.
        let ok = RemoteTestServer { _, _ in .respond(status: 200, headers: [], body: "ok") }
        XCTAssertEqual(try small.send(RemoteRequest(method: "GET", url: ok.url + "/")).body, Array("ok".utf8))
    }

    /// The transport checks on its own what RemoteURL checks (a URL may reach it another way):
    /// plain http only to an address that is loopback as written; libcurl guesses http for a URL
    /// without a scheme, so that counts as plain http too.
    func testPlainHttpToASpellingThatIsNotLoopbackIsRefusedByTheTransport() throws {
        let server = RemoteTestServer { _, _ in .respond(status: 200, headers: [], body: "{}") }
        for url in ["http://localhost.:\(server.port)/", "http://127.0.0.1.:\(server.port)/", "http://127.1:\(server.port)/",
                    "127.0.0.1:\(server.port)/", "HTTP://LOCALHOST.:\(server.port)/", "http://x@127.0.0.1:\(server.port)/"] {
            XCTAssertThrowsError(try transport.send(RemoteRequest(method: "GET", url: url)), url) { error in
                XCTAssertEqual(error as? TransportError, .other("refusing plain http to a host that is not a loopback address"), url)
            }
        }
        XCTAssertEqual(server.requestCount, 0)
        XCTAssertEqual(try transport.send(RemoteRequest(method: "GET", url: "HTTP://LocalHost:\(server.port)/x")).status, 200)
        XCTAssertEqual(try transport.send(RemoteRequest(method: "GET", url: "http://[::ffff:127.0.0.1]:\(server.port)/x")).status, 200)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testTruncatedBodyAndRefusedConnection() throws {
        let server = RemoteTestServer { _, _ in .raw("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{}") }
        XCTAssertThrowsError(try transport.send(RemoteRequest(method: "GET", url: server.url + "/t"))) { error in
            XCTAssertEqual(error as? TransportError, .truncatedBody(expected: 50, received: 2))
        }
        let closed = "http://127.0.0.1:\(RemoteTestServer.closedPort())/"
        XCTAssertThrowsError(try transport.send(RemoteRequest(method: "GET", url: closed))) { error in
            XCTAssertEqual(error as? TransportError, .cannotConnect("connection refused or host unreachable"))
        }
    }

    func testServerThatNeverAnswersEndsWithinTheDeadline() throws {
        let server = RemoteTestServer { _, _ in .hang }
        defer { server.stop() }
        let start = Date()
        XCTAssertThrowsError(try transport.send(RemoteRequest(method: "GET", url: server.url + "/slow", timeout: 0.3))) { error in
            XCTAssertEqual(error as? TransportError, .timedOut)
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(elapsed, 0.25)
        XCTAssertLessThan(elapsed, 1.3)
    }

    func testConcurrentRequestsEachGetAHandle() throws {
        let server = RemoteTestServer { _, request in
            let path = request.split(separator: " ")[1]
            return .respond(status: 200, headers: [], body: String(path))
        }
        let lock = NSLock()
        var results = [String](repeating: "", count: 16)
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let body = (try? transport.send(RemoteRequest(method: "GET", url: server.url + "/n\(i)")))?.body ?? []
            lock.lock(); results[i] = String(decoding: body, as: UTF8.self); lock.unlock()
        }
        XCTAssertEqual(results, (0..<16).map { "/n\($0)" })
    }
}
