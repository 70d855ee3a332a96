import XCTest
final class SubsKitTestsPlaceholder: XCTestCase { func testBuilds() {} }
