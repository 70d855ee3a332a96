// The engine's bound on request bodies held across connections (`maxRequestBodyBytes`, SPEC
// section 7 rev. 4): a body that would pass it is not read — its connection waits, first come
// first, its request timeout not running — until an answer or a close gives bytes back; then it
// is read and answered. One body is always let through when none is held.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsHTTP
import XCTest

final class HTTPBodyBudgetTests: XCTestCase {
    private func makeServer(bound: Int, requestTimeout: Double = 5) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.maxRequestBodyBytes = bound
        configuration.requestTimeout = requestTimeout
        configuration.shutdownTimeout = 2
        let server = HTTPServer(configuration: configuration) { request in
            HTTPResponse(status: 200, body: Array("got \(request.body.count)".utf8))
        }
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    private func head(_ length: Int) -> String {
        "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: \(length)\r\n\r\n"
    }

    private func waitFor(_ what: String, within seconds: Double = 5, _ condition: () -> Bool) {
        let giveUp = Date().addingTimeInterval(seconds)
        while !condition() && Date() < giveUp { usleep(10_000) }
        XCTAssertTrue(condition(), what)
    }

    func testABodyPastTheBoundWaitsUnreadAndIsAnsweredWhenRoomIsGivenBack() throws {
        let server = try makeServer(bound: 100_000, requestTimeout: 1)
        let length = 60_000
        // A: all of its body but the last byte — it holds 60 000 bytes of the bound.
        let a = try RawClient(port: server.port)
        XCTAssertTrue(a.send(head(length) + String(repeating: "a", count: length - 1)))
        waitFor("A's body is held") { server.statistics.requestBodyBytes == length }
        // B: its whole request; 60 000 more would pass the bound: it waits, unread.
        let b = try RawClient(port: server.port)
        XCTAssertTrue(b.send(head(length) + String(repeating: "b", count: length)))
        waitFor("B waits") { server.statistics.waitingForBody == 1 }
        XCTAssertNil(b.readResponse(timeout: 0.5), "B was answered while A held the room")
        // A's request times out (408) and gives its bytes back; B is read and answered, though it
        // waited longer than the request timeout: waiting for room is not being late.
        let answer = b.readResponse(timeout: 5)
        XCTAssertEqual(answer?.status, 200)
        XCTAssertEqual(answer?.text, "got \(length)")
        XCTAssertEqual(a.readResponse(timeout: 2)?.status, 408)
        XCTAssertLessThanOrEqual(server.statistics.peakRequestBodyBytes, 100_000)
        waitFor("every body given back") { server.statistics.requestBodyBytes == 0 && server.statistics.waitingForBody == 0 }
    }

    func testAClientThatLeavesGivesItsRoomToTheNext() throws {
        let server = try makeServer(bound: 100_000)
        var a: RawClient? = try RawClient(port: server.port)
        XCTAssertTrue(a!.send(head(80_000) + String(repeating: "a", count: 79_999)))
        waitFor("A's body is held") { server.statistics.requestBodyBytes == 80_000 }
        let b = try RawClient(port: server.port)
        XCTAssertTrue(b.send(head(50_000) + String(repeating: "b", count: 50_000)))
        waitFor("B waits") { server.statistics.waitingForBody == 1 }
        a = nil
        XCTAssertEqual(b.readResponse(timeout: 5)?.text, "got 50000")
        // Requests without a body never wait.
        let c = try RawClient(port: server.port)
        XCTAssertTrue(c.send("GET /y HTTP/1.1\r\nHost: h\r\n\r\n"))
        XCTAssertEqual(c.readResponse(timeout: 5)?.status, 200)
    }

    func testOneBodyLargerThanTheBoundPassesWhenNoneIsHeld() throws {
        let server = try makeServer(bound: 10_000)
        let client = try RawClient(port: server.port)
        XCTAssertTrue(client.send(head(50_000) + String(repeating: "x", count: 50_000)))
        XCTAssertEqual(client.readResponse(timeout: 5)?.text, "got 50000")
        // Pipelined requests with bodies on one connection: each answered in turn.
        XCTAssertTrue(client.send(head(3) + "abc" + head(4) + "abcd"))
        XCTAssertEqual(client.readResponse(timeout: 5)?.text, "got 3")
        XCTAssertEqual(client.readResponse(timeout: 5)?.text, "got 4")
        waitFor("every body given back") { server.statistics.requestBodyBytes == 0 }
    }
}
