// One loopback rule for both ends (SubsHTTP's `Loopback`): the remote client's plain-http check
// and `subs serve`'s "no token only on loopback" check agree on every spelling, the IPv4
// loopback mapped into IPv6 (`::ffff:127.x`) included.

import XCTest
import SubsHTTP
@testable import SubsRemote

final class LoopbackTests: XCTestCase {
    static let loopback = ["127.0.0.1", "127.255.255.254", "localhost", "LOCALHOST", "LocalHost", "::1", "[::1]",
                           "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "::FFFF:127.1.2.3",
                           "[::ffff:7f00:2]", "0:0:0:0:0:ffff:7f01:203"]
    static let elsewhere = ["localhost.", "127.0.0.1.", "127.1", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.01", "2130706433",
                            "::", "::2", "::127.0.0.1", "::ffff:128.0.0.1", "::ffff:10.0.0.1", "::ffff:7f", "::1%lo",
                            "[::1%25lo]", "0.0.0.0", "128.0.0.1", "192.168.1.1", "example.com", "localhost.localdomain",
                            "a.localhost", "", "[]", "[localhost]x", "\u{FF4C}\u{FF4F}\u{FF43}\u{FF41}\u{FF4C}\u{FF48}\u{FF4F}\u{FF53}\u{FF54}",
                            "LOCALHOST\u{0}", "\u{212A}ocalhost", " 127.0.0.1", "127.0.0.1 "]

    func testTheServerAndTheClientAgreeOnEverySpelling() {
        for host in Self.loopback {
            XCTAssertTrue(Loopback.isLoopback(host: host), host)
            XCTAssertTrue(HTTPServer.isLoopback(host: host), "server: \(host)")
            XCTAssertTrue(RemoteURL.isLoopback(host: host), "client: \(host)")
        }
        for host in Self.elsewhere {
            XCTAssertFalse(Loopback.isLoopback(host: host), host)
            XCTAssertFalse(HTTPServer.isLoopback(host: host), "server: \(host)")
            XCTAssertFalse(RemoteURL.isLoopback(host: host), "client: \(host)")
        }
    }

    /// The mapped IPv4 loopback is loopback for a plain-http URL too (written as IPv6 needs brackets).
    func testTheMappedIPv4LoopbackIsAPlainHTTPTarget() throws {
        XCTAssertNoThrow(try RemoteURL("http://[::ffff:127.0.0.1]:8787"))
        XCTAssertEqual(RemoteURL.loopbackTarget("http://[::ffff:127.0.0.1]:8787")?.host, "::ffff:127.0.0.1")
        XCTAssertNil(RemoteURL.loopbackTarget("http://[::ffff:128.0.0.1]:8787"))
        XCTAssertThrowsError(try RemoteURL("http://[::ffff:10.0.0.1]/"))
    }

    func testCanonicalIPv4HasOneSpelling() {
        XCTAssertEqual(Loopback.canonicalIPv4("127.0.0.1"), 0x7F00_0001)
        XCTAssertEqual(Loopback.canonicalIPv4("0.0.0.0"), 0)
        for text in ["127.0.0.01", "127.0.0", "127.0.0.1.1", "256.0.0.1", "1.2.3.-4", "+1.2.3.4", "1..2.3", "١٢٧.0.0.1"] {
            XCTAssertNil(Loopback.canonicalIPv4(text), text)
        }
    }
}
