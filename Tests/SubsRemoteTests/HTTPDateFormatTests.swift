// One HTTP-date grammar for both ends: what the engine writes in `Date`, the client reads back.

import XCTest
import SubsHTTP
@testable import SubsRemote

final class HTTPDateFormatTests: XCTestCase {
    func testWhatTheServerWritesTheClientReads() {
        XCTAssertEqual(imfFixdate(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        for seconds in [0, 784_111_777, 951_782_400, 1_795_780_800, 253_402_300_799, -62_135_596_800] {
            XCTAssertEqual(HTTPDateFormat.seconds(imfFixdate(seconds)), Int64(seconds), imfFixdate(seconds))
            XCTAssertEqual(HTTPDate.parse(imfFixdate(seconds))?.seconds, Int64(seconds))
        }
        for text in ["", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                     "Sun, 06 Foo 1994 08:49:37 GMT", "1994-11-06T08:49:37Z"] {
            XCTAssertNil(HTTPDateFormat.seconds(text), text)
        }
    }
}
