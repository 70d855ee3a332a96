// The built binary against listeners that count what reaches them: plain http goes only to an
// address that is loopback as written (never a spelling a resolver would read), and never
// through a proxy from the environment; https may use a proxy.

import Foundation
import SubsCLI
import XCTest

final class RemoteHardeningTests: XCTestCase {
    let secret = "sk_loopback_SECRET_4242"
    let dir = TempDir()

    /// `subs --provider subs --remote URL check alice` with the key in the environment and the
    /// proxy variables of `env` (every inherited proxy variable removed first); with
    /// `viaEnvironment`, the URL is SUBS_REMOTE instead of the flag.
    func check(_ url: String, env: [String: String] = [:], timeout: String = "3", viaEnvironment: Bool = false) throws -> CLIResult {
        var environment = ["SUBS_API_KEY": secret, "XDG_CACHE_HOME": dir.path + "/cache"]
        environment.merge(env) { $1 }
        if viaEnvironment { environment["SUBS_REMOTE"] = url }
        let remote = viaEnvironment ? [] : ["--remote", url]
        return try Binary.run(["--provider", "subs"] + remote + ["--timeout", timeout, "check", "alice"], env: environment,
                              removing: Self.proxyVariables + ["https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY"])
    }

    static let proxyVariables = ["http_proxy", "HTTP_PROXY", "ALL_PROXY", "all_proxy"]

    /// Spellings that name loopback to a person but would reach libcurl's resolver (or that two
    /// URL parsers read differently): refused before anything is sent, exit 64 as a flag and 78
    /// from the environment (issue 22: a bad value is checked where it is given).
    static let refusedSpellings = [
        "localhost.", "127.0.0.1.", "LOCALHOST.", "localhost..", "127.1", "127.0.1", "0x7f.1", "0x7f.0.0.1", "0177.0.0.1",
        "2130706433", "0x7f000001", "127.0.0.01", "127.000.000.001", "localhost.localdomain", "api.localhost",
        "localhost6", "ip6-localhost", "\u{FF4C}\u{FF4F}\u{FF43}\u{FF41}\u{FF4C}\u{FF48}\u{FF4F}\u{FF53}\u{FF54}", // fullwidth
        "loc\u{430}lhost", // Cyrillic a
        "%6cocalhost", "127.0.0.1%2e", "[::127.0.0.1]", "[::ffff:128.0.0.1]", "[::]", "0.0.0.0", "0",
        "[::1%25lo]", "[fe80::1]", "127.0.0.1\\@example.com",
    ]

    func testSpellingsThatAResolverWouldReadNeverSendTheKey() throws {
        let server = try XCTUnwrap(LoopbackListener())
        for spelling in Self.refusedSpellings {
            for viaEnvironment in [false, true] {
                let result = try check("http://\(spelling):\(server.port)", viaEnvironment: viaEnvironment)
                XCTAssertEqual(result.status, viaEnvironment ? .configError : .usage, "\(spelling): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), result.stderr)
                XCTAssertTrue(result.stderr.contains("refusing plain http") || result.stderr.contains("invalid remote URL"), result.stderr)
                XCTAssertFalse(result.stderr.contains(secret))
            }
        }
        // Without a port as well (port 80: whatever listens there must not get the key either).
        XCTAssertEqual(try check("http://localhost./").status, .usage)
        XCTAssertEqual(try check("http://127.0.0.1.", viaEnvironment: true).status, .configError)
        XCTAssertEqual(server.connections, 0, "nothing reached the listener: \(server.requests)")
    }

    func testLoopbackAddressesAndLocalhostReachTheServer() throws {
        let server = try XCTUnwrap(LoopbackListener())
        var expected = 0
        for spelling in ["127.0.0.1", "localhost", "LOCALHOST", "LocalHost", "[::ffff:127.0.0.1]", "[::FFFF:7f00:1]",
                         "[0:0:0:0:0:ffff:127.0.0.1]"] {
            let result = try check("http://\(spelling):\(server.port)/")
            XCTAssertEqual(result.status, .notFound, "\(spelling): \(result.stderr)")
            expected += 1
            XCTAssertEqual(server.requests.count, expected, spelling)
            XCTAssertTrue(server.requests.last?.contains("Authorization: Bearer \(secret)") == true, spelling)
            XCTAssertTrue(server.requests.last?.hasPrefix("GET /v1/customers/alice HTTP/1.1") == true, spelling)
        }
    }

    /// `localhost` is pinned to 127.0.0.1 and ::1: a server on ::1 only is reached too. Skipped,
    /// with the reason, only on a machine without IPv6.
    func testAServerOnIPv6LoopbackOnlyIsReached() throws {
        try Prerequisite.ipv6Loopback()
        let v6 = try XCTUnwrap(LoopbackListener(ipv6: true))
        for spelling in ["[::1]", "localhost", "[0:0:0:0:0:0:0:1]"] {
            XCTAssertEqual(try check("http://\(spelling):\(v6.port)").status, .notFound, spelling)
        }
        XCTAssertEqual(v6.requests.count, 3)
    }

    func testPlainHttpLoopbackNeverGoesThroughAProxyFromTheEnvironment() throws {
        let server = try XCTUnwrap(LoopbackListener())
        let proxy = try XCTUnwrap(LoopbackListener { _ in "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" })
        let proxyURLs = ["http://127.0.0.1:\(proxy.port)", "socks5h://127.0.0.1:\(proxy.port)", "127.0.0.1:\(proxy.port)"]
        var expected = 0
        for name in Self.proxyVariables {
            for proxyURL in proxyURLs {
                for spelling in ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"] {
                    let result = try check("http://\(spelling):\(server.port)", env: [name: proxyURL])
                    XCTAssertEqual(result.status, .notFound, "\(name)=\(proxyURL) \(spelling): \(result.stderr)")
                    expected += 1
                }
            }
        }
        // All of them at once, and a no_proxy that would let everything through the proxy.
        var all: [String: String] = ["no_proxy": "", "NO_PROXY": ""]
        for name in Self.proxyVariables { all[name] = proxyURLs[0] }
        XCTAssertEqual(try check("http://127.0.0.1:\(server.port)", env: all).status, .notFound)
        expected += 1
        XCTAssertEqual(server.requests.count, expected)
        XCTAssertEqual(proxy.connections, 0, "the proxy got: \(proxy.requests)")
    }

    func testHttpsMayGoThroughAProxyAndTheKeyStaysInsideTheTunnel() throws {
        let proxy = try XCTUnwrap(LoopbackListener { _ in "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" })
        for name in ["https_proxy", "HTTPS_PROXY", "ALL_PROXY"] {
            let before = proxy.requests.count
            let result = try check("https://subs.example.invalid", env: [name: "http://127.0.0.1:\(proxy.port)"], timeout: "2")
            XCTAssertEqual(result.status, .unavailable, "\(name): \(result.stderr)")
            XCTAssertGreaterThan(proxy.requests.count, before, "\(name): https goes through the proxy")
            XCTAssertTrue(proxy.requests.last?.hasPrefix("CONNECT subs.example.invalid:443 ") == true, "\(proxy.requests)")
            XCTAssertFalse(result.stderr.contains(secret))
        }
        XCTAssertFalse(proxy.requests.contains { $0.contains(secret) }, "the proxy sees the tunnel, not the key")
    }
}
