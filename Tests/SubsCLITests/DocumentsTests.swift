// Documents rendered piecewise (and in parallel) must be byte-identical to the whole value.

@testable import SubsCLI
import SubsJSON
import XCTest

final class DocumentsTests: XCTestCase {
    func documents(_ n: Int) -> [JSONValue] {
        (0..<n).map { i in
            .object(JSONObject([("id", .string("c\(i)")), ("list", .array([.number("\(i)"), .object(JSONObject())])),
                                ("empty", .array([])), ("nested", .object(JSONObject([("a", .null)])))]))
        }
    }

    func testArrayRenderingEqualsPrettyPrintingTheWholeArray() throws {
        for n in [0, 1, 2, 300, 1000] {   // below and above the parallel threshold
            let docs = documents(n)
            XCTAssertEqual(try Documents.render(docs, format: .json, asArray: true), JSONWriter.pretty(.array(docs)) + "\n", "\(n)")
            XCTAssertEqual(try Documents.render(docs, format: .jsonl, asArray: true),
                           docs.map { JSONWriter.compact($0) + "\n" }.joined(), "\(n)")
        }
    }

    func testConcurrentMapKeepsOrderAndRethrowsTheFirstError() throws {
        struct Boom: Error, Equatable { let i: Int }
        XCTAssertEqual(try Array(0..<5000).concurrentMap { $0 * 2 }, Array(0..<5000).map { $0 * 2 })
        XCTAssertThrowsError(try Array(0..<5000).concurrentMap { i -> Int in
            if i % 1000 == 999 { throw Boom(i: i) }
            return i
        }) { XCTAssertEqual($0 as? Boom, Boom(i: 999)) }
    }
}
