// Clients that ask and never read: they must hold no worker, their unsent answers are bounded per
// connection and in total, and everyone else is answered at once.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import SubsHTTP
import XCTest

final class HTTPSlowReaderTests: XCTestCase {
    static let answerSize = 64 * 1024

    /// `/big/N` answers 64 KiB; anything else a few bytes. Counts the calls.
    private func makeServer(calls: Counter, _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration.subsAPI(host: "127.0.0.1", port: 0)
        configuration.shutdownTimeout = 2
        configure(&configuration)
        let server = HTTPServer(configuration: configuration) { request in
            calls.increment()
            if request.path.hasPrefix("/big/") {
                var body = Array(request.path.utf8)
                body += [UInt8](repeating: UInt8(ascii: "x"), count: HTTPSlowReaderTests.answerSize - body.count)
                return HTTPResponse(status: 200, body: body)
            }
            return .json(.object(JSONObject([("status", .string("ok"))])))
        }
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    /// Clients that pipeline `requests` GETs of `/big/…` each and never read an answer.
    private func neverReaders(_ count: Int, requests: Int, port: Int) throws -> [RawClient] {
        let pipelined = (0..<requests).flatMap { Array("GET /big/\($0) HTTP/1.1\r\nHost: t\r\n\r\n".utf8) }
        return try (0..<count).map { _ in
            let client = try RawClient(port: port, receiveBuffer: 4096)
            XCTAssertEqual(client.sendWithoutWaiting(pipelined), pipelined.count)
            return client
        }
    }

    /// Waits until the server has stopped answering: its figures and the handler's calls hold
    /// still for a moment (at most `limit` seconds).
    private func waitUntilStalled(_ server: HTTPServer, _ calls: Counter, limit: Double = 20) {
        let giveUp = Date().addingTimeInterval(limit)
        var last = (server.statistics, calls.value)
        var stillSince = Date()
        while Date() < giveUp {
            usleep(50_000)
            let now = (server.statistics, calls.value)
            if now != last {
                last = now
                stillSince = Date()
            } else if Date().timeIntervalSince(stillSince) > 0.4 {
                return
            }
        }
    }

    /// Seconds a fresh client waits for `/v1/health`.
    private func healthLatency(_ port: Int) throws -> (Double, RawResponse?) {
        let start = Date()
        let client = try RawClient(port: port)
        client.send("GET /v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        let response = client.readResponse(timeout: 15)
        return (Date().timeIntervalSince(start), response)
    }

    func testSixtyFourClientsThatNeverReadLeaveHealthAnsweringAtOnce() throws {
        let calls = Counter()
        let server = try makeServer(calls: calls)
        // 100 answers of 64 KiB each: far more than the kernel's buffers and ours hold.
        let readers = try neverReaders(64, requests: 100, port: server.port)
        waitUntilStalled(server, calls)
        let figures = server.statistics
        var latencies: [Double] = []
        for _ in 0..<3 {
            let (seconds, response) = try healthLatency(server.port)
            XCTAssertEqual(response?.status, 200)
            latencies.append(seconds)
        }
        // Before the fix each reader held a worker for the 10 s write timeout.
        XCTAssertLessThan(latencies.min()!, 0.1, "health waited behind the readers: \(latencies)")
        XCTAssertLessThan(latencies.max()!, 1, "\(latencies)")
        let configuration = server.configuration
        // Each reader is stopped at its bound (plus the one answer that crossed it), and each
        // was answered a while: none was starved, none read past its bound.
        XCTAssertEqual(figures.connections, 64)
        XCTAssertGreaterThan(figures.unsentBytes, 64 * Self.answerSize)
        XCTAssertLessThanOrEqual(figures.unsentBytes, 64 * (configuration.maxUnsentBytesPerConnection + Self.answerSize))
        XCTAssertLessThanOrEqual(figures.peakUnsentBytes, configuration.maxUnsentBytes)
        XCTAssertEqual(figures.shedConnections, 0)
        XCTAssertLessThan(calls.value, 64 * 100, "requests were read past the bound")
        withExtendedLifetime(readers) {}
    }

    func testPastTheTotalBoundTheConnectionsHoldingMostAreShed() throws {
        let calls = Counter()
        let total = 1024 * 1024
        let server = try makeServer(calls: calls) { $0.maxUnsentBytes = total }
        let readers = try neverReaders(16, requests: 60, port: server.port)
        waitUntilStalled(server, calls)
        let figures = server.statistics
        XCTAssertGreaterThan(figures.shedConnections, 0)
        // After each shed the total is under the bound; between two sheds one answer may pass it.
        XCTAssertLessThanOrEqual(figures.peakUnsentBytes, total)
        XCTAssertLessThanOrEqual(figures.unsentBytes, total)
        XCTAssertLessThan(figures.connections, 16)
        // The shed clients find their connection reset (their requests were left unread); the
        // others are still open. The server still answers newcomers.
        usleep(200_000)
        let gone = readers.filter(\.wasReset)
        XCTAssertEqual(gone.count, server.statistics.shedConnections)
        XCTAssertEqual(server.statistics.connections, 16 - gone.count)
        let (seconds, response) = try healthLatency(server.port)
        XCTAssertEqual(response?.status, 200)
        XCTAssertLessThan(seconds, 1)
    }

    func testAClientAtItsBoundIsNotReadUntilItReadsThenGetsEveryAnswerInOrder() throws {
        let calls = Counter()
        let server = try makeServer(calls: calls)
        let count = 300
        let client = try XCTUnwrap(try neverReaders(1, requests: count, port: server.port).first)
        waitUntilStalled(server, calls)
        let answeredWhileStalled = calls.value
        XCTAssertLessThan(answeredWhileStalled, count, "the server went on reading a client that does not read")
        XCTAssertLessThanOrEqual(server.statistics.unsentBytes, server.configuration.maxUnsentBytesPerConnection + Self.answerSize)
        // Now it reads: every answer comes, in order, and the rest of its requests are served.
        for i in 0..<count {
            guard let response = client.readResponse(timeout: 10) else { XCTFail("answer \(i) missing"); break }
            let head = String(decoding: response.body.prefix(20), as: UTF8.self)
            guard head.hasPrefix("/big/\(i)x") else { XCTFail("answer \(i) is \(head)"); break }
        }
        XCTAssertEqual(calls.value, count)
        XCTAssertEqual(server.statistics.unsentBytes, 0)
    }

    func testAClientThatNeverReadsIsClosedAfterTheWriteTimeout() throws {
        let calls = Counter()
        let server = try makeServer(calls: calls) { $0.writeTimeout = 0.5 }
        let client = try XCTUnwrap(try neverReaders(1, requests: 50, port: server.port).first)
        let seen = Date().addingTimeInterval(5)
        while server.statistics.connections == 0 && Date() < seen { usleep(10_000) }
        XCTAssertEqual(server.statistics.connections, 1)
        let giveUp = Date().addingTimeInterval(10)
        while server.statistics.connections > 0 && Date() < giveUp { usleep(50_000) }
        XCTAssertEqual(server.statistics.connections, 0, "a client that never reads was kept")
        XCTAssertEqual(server.statistics.unsentBytes, 0)
        // Reset, so that the kernel does not keep its unsent answers for it either.
        XCTAssertTrue(client.wasReset)
        let (_, response) = try healthLatency(server.port)
        XCTAssertEqual(response?.status, 200)
    }
}
