// The `find` section of the reference (docs/reference.md, moved there from the README) shows one
// example per kind of term. ReadmeExamplesTests runs every console example and checks what it
// prints; this checks that together they show every kind.

import XCTest

final class ReadmeFindExamplesTests: XCTestCase {
    func testTheFindExamplesShowEveryKindOfTerm() throws {
        let finds = try ReadmeExamplesTests.examples(in: "docs/reference.md").filter { $0.command.hasPrefix("subs find ") }
        XCTAssertGreaterThanOrEqual(finds.count, 6)
        var kinds: Set<String> = []
        // originalTransactionId is left out: the demo's chains all keep their first transaction.
        for kind in ["customerId", "alias", "email", "transactionId", "orderId", "attribute"] {
            if finds.contains(where: { $0.expected.contains(kind) }) { kinds.insert(kind) }
        }
        XCTAssertEqual(kinds, ["customerId", "alias", "email", "transactionId", "orderId", "attribute"])
    }
}
