// The in-process transport answers as the live loopback server does: the same fake handler,
// called directly or reached over a socket through libcurl, gives the CLI the same output.

import XCTest
import SubsHTTP
@testable import SubsRemote
import TestSupport

final class InProcessTransportTests: XCTestCase {
    func testAFakeAnswersTheSameWithoutASocket() throws {
        let api = try QonversionFakeAPI()
        defer { api.stop() }
        let dir = TempDir()
        let pinned = { (inner: HTTPTransport) in PinnedDateTransport(inner: inner, mode: .set(qonversionDate)) }
        for (n, args) in [["check", "alice", "--json"], ["check", "bob", "nobody", "--json"], ["history", "alice", "--json"],
                          ["check", "a/b c+é"]].enumerated() {
            let live = runQonversion(args, remote: api.base, cache: dir.path + "/live\(n)", transport: pinned(CurlTransport()))
            let direct = runQonversion(args, remote: api.base, cache: dir.path + "/direct\(n)", transport: pinned(api.inProcess))
            XCTAssertEqual(direct.status, live.status, "\(args)")
            XCTAssertEqual(direct.stdout, live.stdout, "\(args)")
            XCTAssertEqual(direct.stderr, live.stderr, "\(args)")
            XCTAssertFalse(live.stdout.isEmpty && live.stderr.isEmpty, "\(args)")
        }
        XCTAssertEqual(api.problems, [])
        // Each request reached the handler once live and once in-process, byte for byte the same target.
        let counts = Dictionary(api.seen.map { ("\($0.method) \($0.target)", 1) }, uniquingKeysWith: +)
        XCTAssertFalse(counts.isEmpty)
        XCTAssertTrue(counts.values.allSatisfy { $0 % 2 == 0 }, "\(counts)")
        XCTAssertNotNil(counts["GET /v3/identities/a%2Fb%20c%2B%C3%A9"], "\(counts)")
    }

    func testTheTargetIsThePathAndQueryOfTheURL() {
        XCTAssertEqual(InProcessTransport.split("http://127.0.0.1:9/v3/users/a%2Fb?x=1")?.target, "/v3/users/a%2Fb?x=1")
        XCTAssertEqual(InProcessTransport.split("http://127.0.0.1:9/v3/users/a%2Fb?x=1")?.authority, "127.0.0.1:9")
        XCTAssertEqual(InProcessTransport.split("https://h?q")?.target, "/?q")
        XCTAssertEqual(InProcessTransport.split("http://h")?.target, "/")
        XCTAssertNil(InProcessTransport.split("ftp://h/x"))
        XCTAssertNil(InProcessTransport.split("http:///x"))
        XCTAssertThrowsError(try InProcessTransport { _ in HTTPResponse(status: 200) }.send(RemoteRequest(method: "GET", url: "nope")))
    }
}
