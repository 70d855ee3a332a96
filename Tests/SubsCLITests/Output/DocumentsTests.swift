// Documents rendered piecewise (and in parallel) must be byte-identical to the whole value.

import SubsJSON
import SubsSystem
import SubsModel
@testable import SubsCLI
import XCTest

final class DocumentsTests: XCTestCase {
    func documents(_ n: Int) -> [JSONValue] {
        (0..<n).map { i in
            .object(JSONObject([("id", .string("c\(i)")), ("list", .array([.number("\(i)"), .object(JSONObject())])),
                                ("empty", .array([])), ("nested", .object(JSONObject([("a", .null)])))]))
        }
    }

    /// A result that is nothing but its documents.
    struct Documents: CommandResult {
        var document: JSONOutput
        var rows: Rows { Rows(headers: [], values: []) }
    }

    func render(_ result: CommandResult, _ format: OutputFormat) -> String {
        format.render(result, style: OutputStyle(color: false, terminal: false, columns: 80, now: Instant(seconds: 0)))
    }

    func testArrayRenderingEqualsPrettyPrintingTheWholeArray() throws {
        for n in [0, 1, 2, 300, 1000] {   // below and above the parallel threshold
            let docs = documents(n)
            XCTAssertEqual(render(Documents(document: .array(docs)), .json), JSONWriter.pretty(.array(docs)) + "\n", "\(n)")
            XCTAssertEqual(render(Documents(document: .array(docs)), .jsonl),
                           docs.map { JSONWriter.compact($0) + "\n" }.joined(), "\(n)")
        }
        let one = documents(1)[0]
        XCTAssertEqual(render(Documents(document: .document(one)), .json), JSONWriter.pretty(one) + "\n")
    }

    func testConcurrentMapKeepsOrderAndRethrowsTheFirstError() throws {
        struct Boom: Error, Equatable { let i: Int }
        XCTAssertEqual(Array(0..<5000).concurrentMap { $0 * 2 }, Array(0..<5000).map { $0 * 2 })
        XCTAssertThrowsError(try Array(0..<5000).concurrentMap { i -> Int in
            if i % 1000 == 999 { throw Boom(i: i) }
            return i
        }) { XCTAssertEqual($0 as? Boom, Boom(i: 999)) }
    }
}
