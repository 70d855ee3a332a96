// Issue 30: table, TSV and JSON of `check` tell the same story on a generated store too —
// refunds at any moment, revoked and expired grants, pauses, billing issues, product changes —
// every cell and sentence date derived from the JSON (TestSupport's CheckStory).

import SubsJSON
@testable import SubsModel
import XCTest

final class GeneratedStoreStoryTests: XCTestCase {
    func testEveryGeneratedCustomerTellsOneStoryInTableTSVAndJSON() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"] ?? "") ?? 30
        var g = SeededGenerator(seed: seed)
        let customers = (0..<40).map { n in RandomCustomers.customer("c\(n)", &g) }
        let dir = try TempDirectory()
        let path = dir.path + "/store.json"
        let text = RandomCustomers.store(customers.map { (id: $0.record.id, json: $0.json) }, &g)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        var instants: [Instant] = []
        for customer in customers.prefix(8) {
            instants += RandomCustomers.instants(for: customer.record, &g).filter { _ in Int.random(in: 0..<6, using: &g) == 0 }
        }
        instants += stride(from: 0, to: 540, by: 45).map { RandomCustomers.origin.adding(seconds: Int64($0) * 86_400)! }
        for instant in instants {
            let problems = CheckStory.disagreements(store: path, customers: customers.map(\.record.id.string), at: ISODate.format(instant))
            XCTAssertEqual(problems, [], "seed \(seed) at \(ISODate.format(instant))")
        }
    }
}
