// The request parser alone: strict grammar, limits, pipelining, byte-at-a-time feeding, and the
// helpers a handler relies on (path segments, headers, constant-time comparison).

import SubsHTTP
import XCTest

final class HTTPRequestParserTests: XCTestCase {
    private func parseAll(_ text: String, limits: HTTPLimits = HTTPLimits()) throws -> [HTTPRequest] {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        var out: [HTTPRequest] = []
        while let r = try parser.next() { out.append(r) }
        return out
    }

    private func refusal(_ bytes: [UInt8], limits: HTTPLimits = HTTPLimits(), file: StaticString = #filePath, line: UInt = #line) -> HTTPParseError? {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(bytes)
        do {
            while try parser.next() != nil {}
            return nil
        } catch {
            return error
        }
    }

    func testOneRequestWithBodyAndHeaders() throws {
        let requests = try parseAll("POST /v1/customers/alice/grants?x=1 HTTP/1.1\r\nHost: a\r\nCONTENT-length: 5\r\nX-A:  b c \t\r\n\r\nhello")
        XCTAssertEqual(requests.count, 1)
        let r = requests[0]
        XCTAssertEqual(r.method, "POST")
        XCTAssertEqual(r.path, "/v1/customers/alice/grants")
        XCTAssertEqual(r.query, "x=1")
        XCTAssertEqual(r.version, .http11)
        XCTAssertEqual(r.headers["content-length"], "5")
        XCTAssertEqual(r.headers["x-a"], "b c")
        XCTAssertEqual(r.body, Array("hello".utf8))
        XCTAssertTrue(r.keepAlive)
    }

    func testByteAtATimeGivesTheSameRequests() throws {
        let text = "\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyzGET /c HTTP/1.0\r\n\r\n"
        var parser = HTTPRequestParser()
        var paths: [String] = []
        for byte in text.utf8 {
            parser.append([byte])
            while let r = try parser.next() { paths.append(r.path) }
        }
        XCTAssertEqual(paths, ["/a", "/b", "/c"])
        XCTAssertFalse(parser.hasPartialRequest)
        XCTAssertEqual(try parseAll(text).map(\.path), ["/a", "/b", "/c"])
    }

    func testKeepAliveByVersionAndConnectionHeader() throws {
        XCTAssertFalse(try parseAll("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n")[0].keepAlive)
        XCTAssertFalse(try parseAll("GET / HTTP/1.0\r\n\r\n")[0].keepAlive)
        XCTAssertTrue(try parseAll("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")[0].keepAlive)
        XCTAssertTrue(try parseAll("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, keep-alive\r\n\r\n")[0].keepAlive)
    }

    func testMalformedRequestLinesAre400() {
        let cases: [String: [UInt8]] = [
            "garbage": Array("hello world\r\n\r\n".utf8),
            "missing version": Array("GET /\r\nHost: h\r\n\r\n".utf8),
            "two spaces": Array("GET  / HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "trailing space": Array("GET / HTTP/1.1 \r\nHost: h\r\n\r\n".utf8),
            "lowercase version": Array("GET / http/1.1\r\nHost: h\r\n\r\n".utf8),
            "NUL in target": Array("GET /a\u{0}b HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "NUL first": [0, 0, 0, 0],
            "non-ASCII target": Array("GET /é HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "binary": [0x16, 0x03, 0x01, 0x02, 0x00],  // a TLS ClientHello
            "absolute form": Array("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "bad escape": Array("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "truncated escape": Array("GET /a%4 HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "method not a token": Array("G(T / HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            "huge method": Array((String(repeating: "A", count: 100) + " / HTTP/1.1\r\nHost: h\r\n\r\n").utf8),
            "bare LF": Array("GET / HTTP/1.1\nHost: h\n\n".utf8),
            "bare LF in headers": Array("GET / HTTP/1.1\r\nHost: h\n\r\n".utf8),
            "bare CR": Array("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n".utf8),
            "obs-fold": Array("GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n two\r\n\r\n".utf8),
            "space before colon": Array("GET / HTTP/1.1\r\nHost : h\r\n\r\n".utf8),
            "header without colon": Array("GET / HTTP/1.1\r\nHost: h\r\nnonsense\r\n\r\n".utf8),
            "control in value": Array("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{1}b\r\n\r\n".utf8),
            "no host": Array("GET / HTTP/1.1\r\n\r\n".utf8),
            "two hosts": Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8),
            "many blank lines": Array((String(repeating: "\r\n", count: 20) + "GET / HTTP/1.1\r\nHost: h\r\n\r\n").utf8),
        ]
        for (name, bytes) in cases {
            let error = refusal(bytes)
            XCTAssertEqual(error?.status, 400, name)
            XCTAssertEqual(error?.code, "invalid_request", name)
        }
    }

    func testGarbageIsRefusedBeforeALineEnds() {
        // A binary or endless first line is refused as it arrives, not when a newline shows up.
        XCTAssertEqual(refusal([0x50, 0x52, 0x00])?.status, 400)
        XCTAssertEqual(refusal(Array(String(repeating: "A", count: 40).utf8))?.status, 400)
        XCTAssertNil(refusal(Array("GET /".utf8)))
    }

    func testOtherVersionsAre505() {
        for line in ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", "GET / HTTP/0.9\r\n\r\n"] {
            XCTAssertEqual(refusal(Array(line.utf8))?.status, 505, line)
        }
    }

    func testHeaderBlockLimitIs431AtExactlyOneByteOver() throws {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 200
        func head(size: Int) -> String {
            let base = "GET / HTTP/1.1\r\nHost: h\r\nX: \r\n\r\n"
            return "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "a", count: size - base.utf8.count) + "\r\n\r\n"
        }
        XCTAssertEqual(head(size: 200).utf8.count, 200)
        XCTAssertEqual(try parseAll(head(size: 200), limits: limits).count, 1)
        XCTAssertEqual(refusal(Array(head(size: 201).utf8), limits: limits)?.status, 431)
        XCTAssertEqual(refusal(Array(head(size: 201).utf8), limits: limits)?.code, "header_too_large")
        // A head that never ends is refused once it passes the limit, not held forever.
        XCTAssertEqual(refusal(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "b", count: 300)).utf8), limits: limits)?.status, 431)
        XCTAssertEqual(refusal(Array(("GET /" + String(repeating: "b", count: 300)).utf8), limits: limits)?.status, 431)
        // The default is 16 KiB.
        XCTAssertEqual(HTTPLimits().maxHeaderBytes, 16 * 1024)
        XCTAssertEqual(refusal(Array(("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "c", count: 16 * 1024) + "\r\n\r\n").utf8))?.status, 431)
    }

    func testEveryByteBeforeTheRequestLineCountsAgainstTheHeaderLimit() throws {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 200
        let request = "GET / HTTP/1.1\r\nHost: h\r\nX: "
        func head(_ size: Int) -> String { request + String(repeating: "a", count: size - request.utf8.count - 4) + "\r\n\r\n" }
        // Eight blank lines (16 bytes) are tolerated before a request line, and they count.
        let blank = String(repeating: "\r\n", count: 8)
        XCTAssertEqual(try parseAll(blank + head(184), limits: limits).count, 1)
        XCTAssertEqual(refusal(Array((blank + head(185)).utf8), limits: limits)?.status, 431)
        // The same blank lines between two pipelined requests count against the second.
        XCTAssertEqual(try parseAll(head(200) + blank + head(184), limits: limits).count, 2)
        XCTAssertEqual(refusal(Array((head(200) + blank + head(185)).utf8), limits: limits)?.status, 431)
        // A CR not followed by LF is refused at the byte after it, before the request line too.
        for junk in ["\r\r", "\rGET / HTTP/1.1\r\nHost: h\r\n\r\n", "\r\n\r \r\n", "GET / HTTP/1.1\r\r\n"] {
            XCTAssertEqual(refusal(Array(junk.utf8))?.status, 400, junk.debugDescription)
        }
        // Spaces or tabs before the request line are junk too: bounded by the limit, not held.
        XCTAssertEqual(refusal(Array(String(repeating: " ", count: 300).utf8), limits: limits)?.status, 431)
    }

    /// A client that sends nothing but junk, 64 KiB at a time: the parser refuses it within the
    /// header limit, whatever the junk, and never holds more than the limit (plus one read).
    func testEndlessJunkIsRefusedWithinTheHeaderLimit() {
        let limit = HTTPLimits().maxHeaderBytes
        let junk: [(String, [UInt8], Int)] = [
            ("bare CRs", [0x0D], 400), ("CRLFs", [0x0D, 0x0A], 400), ("LFs", [0x0A], 400), ("NULs", [0], 400),
            ("spaces", [0x20], 431), ("tabs", [0x09], 400), ("a method that never ends", Array("GETGETGET".utf8), 400),
            ("a target that never ends", Array("/aaaaaaa".utf8), 431),
            ("tiny headers", Array("a:b\r\n".utf8), 431), ("one endless header", Array("xxxxxxxx".utf8), 431),
            ("header continuations", Array(" x\r\n".utf8), 400),
        ]
        for (name, pattern, status) in junk {
            var parser = HTTPRequestParser()
            let prefix: [UInt8] = name.contains("header") ? Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8)
                : name.contains("target") ? Array("GET ".utf8) : []
            parser.append(prefix)
            let chunk = [UInt8]((0..<(65536 / pattern.count)).flatMap { _ in pattern })
            var sent = prefix.count
            var refused: HTTPParseError?
            while refused == nil && sent < 64 << 20 {
                parser.append(chunk)
                sent += chunk.count
                do throws(HTTPParseError) {
                    let request = try parser.next()
                    XCTAssertNil(request, name)
                    XCTAssertLessThanOrEqual(parser.bufferedBytes, limit, name)
                } catch {
                    refused = error
                }
            }
            XCTAssertEqual(refused?.status, status, "\(name): \(refused.map(String.init(describing:)) ?? "never refused")")
            XCTAssertLessThanOrEqual(sent, limit + chunk.count + prefix.count, "\(name): read on past the limit")
        }
    }

    func testAtMostAHundredHeaderFields() throws {
        func request(fields: Int) -> String {
            "GET / HTTP/1.1\r\nHost: h\r\n" + (1..<fields).map { "x\($0):\r\n" }.joined() + "\r\n"
        }
        XCTAssertEqual(HTTPLimits().maxHeaderFields, 100)
        XCTAssertEqual(try parseAll(request(fields: 100))[0].headers.fields.count, 100)
        let over = refusal(Array(request(fields: 101).utf8))
        XCTAssertEqual(over?.status, 431)
        XCTAssertEqual(over?.code, "header_too_large")
    }

    func testABodyThatTricklesIsHeldUpToItsLengthOnly() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100000\r\n\r\n".utf8))
        XCTAssertNil(try parser.next())
        XCTAssertEqual(parser.bufferedBytes, 0)
        for i in 0..<99_999 {
            parser.append([UInt8(i % 26) + 0x61])
            if i % 997 == 0 { XCTAssertNil(try parser.next()) }
        }
        XCTAssertEqual(parser.bufferedBytes, 99_999)
        XCTAssertNil(try parser.next())
        parser.append(Array("zGET".utf8))
        XCTAssertEqual(try parser.next()?.body.count, 100_000)
        XCTAssertEqual(parser.bufferedBytes, 3, "the next request's bytes stay")
    }

    func testBodyLimitIs413BeforeTheBodyArrives() throws {
        XCTAssertEqual(HTTPLimits().maxBodyBytes, 1024 * 1024)
        let over = refusal(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n".utf8))
        XCTAssertEqual(over?.status, 413)
        XCTAssertEqual(over?.code, "payload_too_large")
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n".utf8))
        XCTAssertNil(try parser.next())
        parser.append([UInt8](repeating: 0x61, count: 1024 * 1024))
        XCTAssertEqual(try parser.next()?.body.count, 1024 * 1024)
    }

    func testContentLengthVariants() throws {
        func request(_ fields: [String]) -> [UInt8] {
            Array(("POST / HTTP/1.1\r\nHost: h\r\n" + fields.map { "Content-Length: \($0)\r\n" }.joined() + "\r\nabcde").utf8)
        }
        for bad in [["-1"], ["abc"], ["+5"], ["0x5"], ["5 5"], ["5.0"], [""], ["99999999999999999999"],
                    ["18446744073709551616"], ["5", "6"], ["5, 6"], ["5,"], [",5"], ["٥"]] {
            XCTAssertEqual(refusal(request(bad))?.status, 400, "\(bad)")
        }
        for good in [["5"], ["5", "5"], ["5, 5"], ["005"]] {
            var parser = HTTPRequestParser()
            parser.append(request(good))
            XCTAssertEqual(try parser.next()?.body, Array("abcde".utf8), "\(good)")
        }
    }

    func testTransferEncodingIsRefusedAndNeverCombinedWithContentLength() {
        let both = refusal(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n".utf8))
        XCTAssertEqual(both?.status, 400)
        XCTAssertEqual(refusal(Array("POST / HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\ncontent-length: 3\r\n\r\n".utf8))?.status, 400)
        XCTAssertEqual(refusal(Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))?.status, 411)
        XCTAssertEqual(refusal(Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8))?.status, 501)
        XCTAssertEqual(refusal(Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \r\n\r\n".utf8))?.status, 501)
    }

    func testErrorsStickAfterTheFirst() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        XCTAssertThrowsError(try parser.next())
        XCTAssertThrowsError(try parser.next())
    }

    func testExpectContinue() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        XCTAssertNil(try parser.next())
        XCTAssertTrue(parser.expectsContinue)
        parser.continueSent()
        parser.append(Array("ok".utf8))
        XCTAssertEqual(try parser.next()?.body, Array("ok".utf8))
        XCTAssertEqual(refusal(Array("POST / HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\n\r\n".utf8))?.status, 417)
    }

    func testPathSegmentsKeepEncodedSlashesDotsSpacesAndUTF8() {
        func segments(_ target: String) -> [String]? { HTTPRequest(method: "GET", target: target).pathSegments }
        XCTAssertEqual(segments("/v1/customers/a%2Fb"), ["v1", "customers", "a/b"])
        XCTAssertEqual(segments("/v1/customers/a%2fb%2F"), ["v1", "customers", "a/b/"])
        XCTAssertEqual(segments("/v1/customers/.."), ["v1", "customers", ".."])
        XCTAssertEqual(segments("/v1/customers/%2E%2E/grants"), ["v1", "customers", "..", "grants"])
        XCTAssertEqual(segments("/v1/customers/john%20doe"), ["v1", "customers", "john doe"])
        XCTAssertEqual(segments("/v1/customers/a+b"), ["v1", "customers", "a+b"])
        XCTAssertEqual(segments("/v1/customers/%C3%A9l%C3%A8ve%F0%9F%98%80"), ["v1", "customers", "élève😀"])
        XCTAssertEqual(segments("/v1/customers/%25"), ["v1", "customers", "%"])
        XCTAssertEqual(segments("/v1/customers/?q=%2F"), ["v1", "customers", ""])
        XCTAssertEqual(segments("/"), [""])
        XCTAssertNil(segments("/v1/customers/%FF"))          // not UTF-8
        XCTAssertNil(segments("/v1/customers/%C3"))          // truncated UTF-8
        XCTAssertNil(segments("/v1/customers/%G1"))          // malformed escape
    }

    func testHeadersAreCaseInsensitive() throws {
        let r = try parseAll("GET / HTTP/1.1\r\nhOsT: h\r\nAuthorization: Bearer abc\r\nX-List: a\r\nx-list: b\r\n\r\n")[0]
        XCTAssertEqual(r.headers["HOST"], "h")
        XCTAssertEqual(r.headers.bytes("authorization"), Array("Bearer abc".utf8))
        XCTAssertEqual(r.headers.values("X-LIST"), ["a", "b"])
        XCTAssertNil(r.headers["missing"])
    }

    func testConstantTimeEquals() {
        XCTAssertTrue(constantTimeEquals(Array("secret".utf8), Array("secret".utf8)))
        XCTAssertTrue(constantTimeEquals([UInt8](), [UInt8]()))
        XCTAssertFalse(constantTimeEquals(Array("secret".utf8), Array("secreT".utf8)))
        XCTAssertFalse(constantTimeEquals(Array("secret".utf8), Array("secret2".utf8)))
        XCTAssertFalse(constantTimeEquals(Array("secret".utf8), Array("secre".utf8)))
        XCTAssertFalse(constantTimeEquals(Array("".utf8), Array("a".utf8)))
        XCTAssertFalse(constantTimeEquals(Array("a\u{0}".utf8), Array("a".utf8)))  // padding is not equality
    }

    func testIMFFixdate() {
        XCTAssertEqual(imfFixdate(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(imfFixdate(0), "Thu, 01 Jan 1970 00:00:00 GMT")
    }
}
