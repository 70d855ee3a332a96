// libcurl is loaded when the first remote request is made, never linked: local commands run on a
// machine without it, remote ones say what to install (exit 69), and the binary names no libcurl.

import Foundation
import SubsRemote
import TestSupport
import XCTest

final class LibcurlAtRunTimeTests: XCTestCase {
    let missing = CurlTransport(libraryNames: ["libsubs-test-no-such-curl.so.0"])

    func testRemoteCommandWithoutLibcurlIsExit69WithOneLine() {
        let result = runCLI(["--remote", "http://127.0.0.1:9", "check", "alice"],
                            env: ["SUBS_API_KEY": "k", "XDG_CACHE_HOME": "/nonexistent-cache"], http: missing)
        XCTAssertEqual(result.status, .unavailable)
        XCTAssertEqual(result.stderr, "subs: error: remote access needs libcurl (Debian/Ubuntu: apt-get install libcurl4): not found\n")
        XCTAssertEqual(result.stdout, "")
    }

    func testLocalCommandsNeverTouchTheTransport() {
        let result = runCLI(["--store", Repo.exampleStore, "check", "alice", "-q"], http: missing)
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "")
    }

    /// `readelf -d`: the dynamic section of the binary the tests run lists no libcurl and no
    /// FoundationNetworking. (Not a release build lying around: it may predate the sources.)
    func testBinaryDoesNotNeedLibcurl() throws {
        let readelf = try Prerequisite.tool("readelf")
        for binary in [Binary.url.path] {
            let result = try runProcess(readelf, ["-d", binary], environment: ProcessInfo.processInfo.environment, stdin: nil)
            XCTAssertEqual(result.status, 0, result.stderr)
            let needed = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            XCTAssertFalse(needed.isEmpty, "no NEEDED entries in \(binary): \(result.stdout)")
            for line in needed {
                XCTAssertFalse(line.contains("curl"), "\(binary): \(line)")
                XCTAssertFalse(line.contains("FoundationNetworking"), "\(binary): \(line)")
            }
        }
    }
}
