// A missing tool skips a test on a developer's machine, with the reason, and fails it under CI.

import TestSupport
import XCTest

final class PrerequisiteTests: XCTestCase {
    func testMissingToolSkipsWithTheReasonOutsideCI() {
        for environment in [["PATH": "/nonexistent"], ["PATH": "/nonexistent", "CI": "false"], ["PATH": "", "CI": "1"]] {
            XCTAssertThrowsError(try Prerequisite.tool("fish", environment: environment)) { error in
                let skip = error as? XCTSkip
                XCTAssertNotNil(skip, "\(environment): \(error)")
                XCTAssertTrue("\(error)".contains("fish not installed: CI runs this test"), "\(error)")
            }
        }
    }

    func testMissingToolFailsUnderCI() {
        XCTAssertThrowsError(try Prerequisite.tool("fish", environment: ["PATH": "/nonexistent", "CI": "true"])) { error in
            XCTAssertFalse(error is XCTSkip)
            XCTAssertEqual("\(error)", "fish not installed: CI runs this test (apt-get install -y fish) (required under CI=true)")
        }
        XCTAssertThrowsError(try Prerequisite.missing("fixture gone", environment: ["CI": "true"])) { error in
            XCTAssertTrue(error is Prerequisite.Missing)
        }
    }

    func testPresentToolIsFoundOnPath() throws {
        XCTAssertEqual(try Prerequisite.tool("sh", environment: ["PATH": "/nonexistent:/bin", "CI": "true"]), "/bin/sh")
    }
}
