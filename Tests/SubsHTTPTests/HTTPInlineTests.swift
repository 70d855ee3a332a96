// Requests answered on the event-loop thread (issue 26): what the inline handler answers never
// reaches a worker, what it declines does; pipelined answers keep their order; the per-connection
// bound of unsent bytes still stops reading a client that does not read; every answer is logged.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import SubsHTTP
import XCTest

final class HTTPInlineTests: XCTestCase {
    private final class Threads: @unchecked Sendable {
        let lock = NSLock()
        var inline: Set<UInt> = []
        var handler: Set<UInt> = []
        var handled = 0
    }

    private func makeServer(threads: Threads, log: LogRecorder? = nil, answerBytes: Int = 16,
                            _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration.subsAPI(host: "127.0.0.1", port: 0)
        configuration.shutdownTimeout = 3
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, log: log.map { recorder in { @Sendable entry in recorder.record(entry) } }, inline: { request in
            threads.lock.withLock { _ = threads.inline.insert(UInt(pthread_self())) }
            guard request.method == "GET" else { return nil }
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")],
                                body: Array((request.path + String(repeating: ".", count: answerBytes)).utf8))
        }, handler: { request in
            threads.lock.withLock {
                threads.handler.insert(UInt(pthread_self()))
                threads.handled += 1
            }
            return HTTPResponse(status: 201, body: Array("worker \(request.path)".utf8))
        })
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }

    func testGetsAreAnsweredOnTheLoopAndPostsByAWorkerInOrder() throws {
        let threads = Threads()
        let log = LogRecorder()
        let server = try makeServer(threads: threads, log: log)
        let client = try RawClient(port: server.port)
        // Pipelined: GET, POST, GET — the answers come in the order asked.
        client.send("GET /a HTTP/1.1\r\nHost: t\r\n\r\nPOST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\nGET /c HTTP/1.1\r\nHost: t\r\n\r\n")
        let answers = (0..<3).compactMap { _ in client.readResponse() }
        XCTAssertEqual(answers.map(\.status), [200, 201, 200])
        XCTAssertEqual(answers.map(\.text), ["/a" + String(repeating: ".", count: 16), "worker /b", "/c" + String(repeating: ".", count: 16)])
        // One thread (the loop) tried all three; the POST alone went to another (a worker).
        XCTAssertEqual(threads.lock.withLock { threads.inline.count }, 1)
        XCTAssertEqual(threads.lock.withLock { threads.handled }, 1)
        XCTAssertTrue(threads.lock.withLock { threads.inline.isDisjoint(with: threads.handler) })
        server.stop()
        XCTAssertEqual(log.all.map(\.path).sorted(), ["/a", "/b", "/c"], "every answer is logged once stop returns")
        XCTAssertEqual(log.all.first { $0.path == "/a" }?.status, 200)
    }

    func testAClientThatDoesNotReadIsNotReadPastTheBoundOfUnsentBytes() throws {
        let threads = Threads()
        let server = try makeServer(threads: threads, answerBytes: 64 * 1024) {
            $0.maxUnsentBytesPerConnection = 128 * 1024
            $0.socketSendBuffer = 4096
        }
        let client = try RawClient(port: server.port, receiveBuffer: 4096)
        // Many pipelined GETs, never read: the loop stops taking them at the bound.
        let request = "GET /x HTTP/1.1\r\nHost: t\r\n\r\n"
        _ = client.sendWithoutWaiting(Array(String(repeating: request, count: 400).utf8))
        usleep(300_000)
        let unsent = server.statistics.unsentBytes
        XCTAssertGreaterThan(unsent, 0)
        XCTAssertLessThanOrEqual(unsent, 128 * 1024 + 64 * 1024 + 64, "answers were queued past the connection's bound")
        // Another client is answered meanwhile.
        let other = try RawClient(port: server.port)
        other.send("GET /y HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(other.readResponse()?.status, 200)
    }
}
