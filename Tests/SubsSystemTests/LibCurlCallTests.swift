// SubsSystem's LibCurl against the real libcurl and the loopback RemoteTestServer: every kind of
// value curl_easy_setopt and curl_easy_getinfo take reaches libcurl whole — through the C
// wrappers that call them with their variadic prototype — which the option's effect shows.

import Foundation
import SubsSystem
import XCTest

final class LibCurlCallTests: XCTestCase {
    // curl.h: CURLOPT_* = type base + n, CURLINFO_* = type base + n.
    let optURL: Int32 = 10_002, optWriteFunction: Int32 = 20_011, optWriteData: Int32 = 10_001
    let optMaxFileSize: Int32 = 114, optMaxFileSizeLarge: Int32 = 30_117
    let infoEffectiveURL: Int32 = 0x100000 + 1, infoResponseCode: Int32 = 0x200000 + 2
    let infoSizeDownload: Int32 = 0x600000 + 8   // CURLINFO_SIZE_DOWNLOAD_T
    let ok: Int32 = 0, badArgument: Int32 = 43, unknownOption: Int32 = 48, fileSizeExceeded: Int32 = 63

    final class Received {
        var bytes: [UInt8] = []
    }

    static let collect: CurlDataCallback = { bytes, size, count, userdata in
        guard let userdata, let bytes else { return 0 }
        let received = Unmanaged<Received>.fromOpaque(userdata).takeUnretainedValue()
        received.bytes.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: size * count))
        return size * count
    }

    func testEveryKindOfValueReachesLibcurlWhole() throws {
        let body = String(repeating: "x", count: 5000)
        let server = RemoteTestServer { _, _ in .respond(status: 203, headers: [], body: body) }
        let curl = try LibCurl.open(LibCurl.defaultNames)
        let handle = try XCTUnwrap(curl.easyInit())
        defer { curl.easyCleanup(handle) }
        let received = Received()
        // A pointer (the URL, a string libcurl copies; the userdata) and a function pointer.
        let target = server.url + "/kinds?q=1"
        XCTAssertEqual(target.withCString { curl.setPointer(handle, optURL, $0) }, ok)
        XCTAssertEqual(curl.setCallback(handle, optWriteFunction, LibCurlCallTests.collect), ok)
        XCTAssertEqual(curl.setPointer(handle, optWriteData, Unmanaged.passUnretained(received).toOpaque()), ok)
        XCTAssertEqual(curl.easyPerform(handle), ok)
        XCTAssertEqual(received.bytes, Array(body.utf8))
        // getinfo: a long, a string, an off_t.
        var status = 0
        XCTAssertEqual(curl.getInfoLong(handle, infoResponseCode, &status), ok)
        XCTAssertEqual(status, 203)
        XCTAssertEqual(curl.getInfoString(handle, infoEffectiveURL).value, target)
        var size: Int64 = 0
        XCTAssertEqual(curl.getInfoOffT(handle, infoSizeDownload, &size), ok)
        XCTAssertEqual(size, 5000)

        // A long and an off_t, signed and 64 bits wide: -1 is refused as a size; a limit below
        // the body's Content-Length stops the transfer; 2^32 + 10 does not (cut to 32 bits it
        // would be 10).
        XCTAssertEqual(curl.setLong(handle, optMaxFileSize, -1), badArgument)
        XCTAssertEqual(curl.setOffT(handle, optMaxFileSizeLarge, -1), badArgument)
        for (limit, expected) in [(4999, fileSizeExceeded), (5000, ok), ((1 << 32) + 10, ok)] {
            received.bytes = []
            XCTAssertEqual(curl.setLong(handle, optMaxFileSize, limit), ok)
            XCTAssertEqual(curl.easyPerform(handle), expected, "CURLOPT_MAXFILESIZE \(limit)")
            XCTAssertEqual(curl.setLong(handle, optMaxFileSize, 0), ok)
            XCTAssertEqual(curl.setOffT(handle, optMaxFileSizeLarge, Int64(limit)), ok)
            XCTAssertEqual(curl.easyPerform(handle), expected, "CURLOPT_MAXFILESIZE_LARGE \(limit)")
            XCTAssertEqual(curl.setOffT(handle, optMaxFileSizeLarge, 0), ok)
        }
        // An option number libcurl does not know is its error, not a crash.
        XCTAssertEqual(curl.setLong(handle, 9_999, 1), unknownOption)
    }

    func testAMissingLibraryOrFunctionIsAReasonNotACrash() {
        XCTAssertThrowsError(try LibCurl.open(["libsubs-test-no-such-curl.so.0"])) { error in
            XCTAssertEqual((error as? LibCurl.Missing)?.reason, "not found")
        }
        // A library that opens but is not libcurl: the first function it lacks is named.
        XCTAssertThrowsError(try LibCurl.open(["libm.so.6"])) { error in
            XCTAssertEqual((error as? LibCurl.Missing)?.reason, "libm.so.6 has no curl_easy_init")
        }
    }
}
