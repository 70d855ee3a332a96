import XCTest
final class SubsJSONTestsPlaceholder: XCTestCase { func testBuilds() {} }
