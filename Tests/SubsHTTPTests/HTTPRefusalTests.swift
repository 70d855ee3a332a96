// The engine's own refusals carry the application's body: SubsHTTP knows no JSON (plain text by
// default), `subs serve`'s configuration gives the subs error envelope. Driven without a socket.

import XCTest
import SubsJSON
import SubsHTTP

final class HTTPRefusalTests: XCTestCase {
    /// What a connection writes for `bytes` (one request or a refusal) under `configuration`.
    private func written(_ bytes: String, _ configuration: HTTPServerConfiguration,
                         handler: (HTTPRequest) -> HTTPResponse = { _ in HTTPResponse(status: 204) }) -> String {
        let connection = HTTPConnection(configuration: configuration, now: 0)
        connection.received(Array(bytes.utf8), now: 0)
        while let event = connection.advance(now: 0) {
            if case .request(let request) = event { connection.answered(handler(request), to: request, now: 0, date: "D") }
        }
        return connection.withUnsent { String(decoding: $0, as: UTF8.self) }
    }

    private func body(_ answer: String) -> String {
        answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) } ?? ""
    }

    func testTheEngineAloneAnswersInPlainText() {
        let answer = written("garbage\r\n\r\n", HTTPServerConfiguration(host: "127.0.0.1", port: 0))
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), answer)
        XCTAssertTrue(answer.contains("Content-Type: text/plain; charset=utf-8\r\n"), answer)
        XCTAssertTrue(body(answer).hasPrefix("invalid_request: "), answer)
        XCTAssertTrue(answer.contains("Connection: close\r\n"), answer)
    }

    func testSubsServeRefusalsAreTheErrorEnvelope() throws {
        let answer = written("GET / HTTP/1.1\r\nContent-Length: 5000000\r\nHost: t\r\n\r\n", .subsAPI(host: "127.0.0.1", port: 0))
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 413 "), answer)
        let error = try JSON.parse(body(answer))["error"]
        XCTAssertEqual(error?["code"]?.stringValue, "payload_too_large")
        XCTAssertNotNil(error?["message"]?.stringValue)
    }

    /// A handler's header that would split the response becomes the application's 500, and a
    /// refusal renderer that itself writes such a header falls back to the engine's plain text.
    func testAnUnwritableAnswerBecomesA500() throws {
        let splitting: (HTTPRequest) -> HTTPResponse = { _ in HTTPResponse(status: 200, headers: [("X", "a\r\nSet-Cookie: b")]) }
        let request = "GET / HTTP/1.1\r\nHost: t\r\n\r\n"
        let subs = written(request, .subsAPI(host: "127.0.0.1", port: 0), handler: splitting)
        XCTAssertTrue(subs.hasPrefix("HTTP/1.1 500 "), subs)
        XCTAssertFalse(subs.contains("Set-Cookie"), subs)
        XCTAssertEqual(try JSON.parse(body(subs))["error"]?["code"]?.stringValue, "internal")
        var lying = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        lying.refusalResponse = { _ in HTTPResponse(status: 200, headers: [("Bad\nName", "v")]) }
        let fallback = written(request, lying, handler: splitting)
        XCTAssertTrue(fallback.hasPrefix("HTTP/1.1 500 "), fallback)
        XCTAssertFalse(fallback.contains("Bad"), fallback)
        XCTAssertTrue(body(fallback).hasPrefix("internal: "), fallback)
    }
}
