import XCTest
final class SubsCLITestsPlaceholder: XCTestCase { func testBuilds() {} }
