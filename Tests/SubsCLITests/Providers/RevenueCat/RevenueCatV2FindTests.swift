// `subs find` through RevenueCat's API v2 (GET /customers?search=TERM) against the loopback fake:
// paginated email results, each kind of term and how it is said to have matched, no match, what v2
// cannot search (64, nothing sent), the page and match caps, a repeated cursor, a malformed item.

import XCTest
import Foundation
import SubsJSON
@testable import SubsProviders
@testable import SubsCLI

final class RevenueCatV2FindTests: RevenueCatV2TestCase {
    private var search: String { "/v2/projects/\(F.project)/customers?search=" }

    private func matches(_ doc: JSONValue) -> [JSONValue] { doc["matches"]?.arrayValue ?? [] }

    private func assertMatch(_ m: JSONValue?, _ id: String, _ kind: String, _ email: String?, _ active: [String],
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(m?.objectValue?.keys, ["customerId", "matchedBy", "email", "activeEntitlements"], file: file, line: line)
        XCTAssertEqual(m?["customerId"], .string(id), file: file, line: line)
        XCTAssertEqual(m?["matchedBy"], .string(kind), file: file, line: line)
        XCTAssertEqual(m?["email"], email.map { .string($0) } ?? .null, file: file, line: line)
        XCTAssertEqual(m?["activeEntitlements"], .array(active.map { .string($0) }), file: file, line: line)
    }

    func testTwoCustomersSharingAnEmailOverTwoPages() throws {
        rc.pageSize = 1
        rc.customers["alice-ipad"] = .init(body: F.customer("alice-ipad", active: [], attributes: [("$email", "alice@example.com")]))
        let doc = try json(["find", "alice@example.com"])
        XCTAssertEqual(doc.objectValue?.keys, ["term", "matches"])
        XCTAssertEqual(doc["term"], .string("alice@example.com"))
        XCTAssertEqual(matches(doc).count, 2)
        assertMatch(matches(doc).first, "alice", "email", "alice@example.com", ["premium"])
        assertMatch(matches(doc).last, "alice-ipad", "email", "alice@example.com", [])
        XCTAssertTrue(rc.paths.contains(search + "alice%40example.com&limit=100"), "\(rc.paths)")
        XCTAssertTrue(rc.paths.contains(search + "alice%40example.com&limit=100&starting_after=alice"), "\(rc.paths)")
        // Each customer is then read as check reads it: the lookup keys come from its subscriptions.
        XCTAssertTrue(rc.paths.contains("/v2/projects/\(F.project)/customers/alice?expand=attributes"), "\(rc.paths)")
        XCTAssertFalse(rc.paths.contains { $0.contains("/transactions") }, "find read transactions")

        // In another case: RevenueCat matches $email exactly, so subs asks in lower case too.
        let upper = try json(["find", "Alice@Example.COM"])
        XCTAssertEqual(matches(upper).map { $0["customerId"] }, [.string("alice"), .string("alice-ipad")])
        XCTAssertEqual(matches(upper).map { $0["matchedBy"] }, [.string("email"), .string("email")])
        XCTAssertTrue(rc.paths.contains(search + "Alice%40Example.COM&limit=100"), "\(rc.paths)")

        // At T: alice's premium ends 2026-12-15.
        let later = try json(["find", "alice@example.com", "--at", "2027-01-01T00:00:00Z"])
        assertMatch(matches(later).first, "alice", "email", "alice@example.com", [])

        let table = run(["find", "alice@example.com"])
        XCTAssertEqual(table.status, .success, table.stderr)
        XCTAssertEqual(table.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) },
                       [["CUSTOMER", "EMAIL", "MATCHED", "BY", "ACTIVE"], ["alice", "alice@example.com", "email", "premium"],
                        ["alice-ipad", "alice@example.com", "email", "-"]])
    }

    func testIdsAliasesTransactionAndOrderIds() throws {
        rc.customers["alice"]!.searchable = ["2000000712345678"]
        rc.customers["paula"]!.searchable = ["GPA.3372-4150-9088-12345"]
        rc.customers["lena"]!.searchable = ["MK3Q9Z7X1T", "lena-old-phone"]
        let doc = try json(["find", "paula", "2000000712345678", "GPA.3372-4150-9088-12345", "MK3Q9Z7X1T", "lena-old-phone"])
        let results = doc.arrayValue ?? []
        XCTAssertEqual(results.map { $0["term"] }, ["paula", "2000000712345678", "GPA.3372-4150-9088-12345", "MK3Q9Z7X1T", "lena-old-phone"].map { .string($0) })
        assertMatch(results[0]["matches"]?.arrayValue?.first, "paula", "customerId", nil, ["cloud", "pro"])
        assertMatch(results[1]["matches"]?.arrayValue?.first, "alice", "transactionId", "alice@example.com", ["premium"])
        assertMatch(results[2]["matches"]?.arrayValue?.first, "paula", "orderId", nil, ["cloud", "pro"])
        assertMatch(results[3]["matches"]?.arrayValue?.first, "lena", "orderId", nil, ["premium"])
        assertMatch(results[4]["matches"]?.arrayValue?.first, "lena", "alias", nil, ["premium"])
        XCTAssertEqual(results.map { $0["matches"]?.arrayValue?.count }, [1, 1, 1, 1, 1])
        // A customer several terms found is read once.
        XCTAssertEqual(rc.paths.filter { $0.hasPrefix("/v2/projects/\(F.project)/customers/lena?") }.count, 1, "\(rc.paths)")

        let tsv = run(["find", "MK3Q9Z7X1T", "--format", "tsv"])
        XCTAssertEqual(tsv.stdout, "term\tcustomerId\tmatchedBy\temail\tactiveEntitlements\terror\nMK3Q9Z7X1T\tlena\torderId\t\tpremium\t\n")
    }

    func testNoMatchIsExit3WithAnEmptyList() throws {
        let result = run(["find", "nobody@example.com", "--json"])
        XCTAssertEqual(result.status, .notFound, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout), .object(JSONObject([("term", .string("nobody@example.com")), ("matches", .array([]))])))
        XCTAssertEqual(result.stderr, "subs: error: no customer matches 'nobody@example.com'\n")
        // One term found, one not: both printed, exit 3.
        let mixed = run(["find", "lena", "ghost", "--json"])
        XCTAssertEqual(mixed.status, .notFound)
        XCTAssertEqual(try JSON.parse(mixed.stdout).arrayValue?.map { $0["matches"]?.arrayValue?.count }, [1, 0])
    }

    func testWhatV2CannotSearchIsRefusedWithoutARequest() {
        for args in [["find", "alice", "--attribute", "team"], ["find", "alice", "in_1QKv2ZLkdIwHu7ixB8c0Fh3T"], ["find", "sub_1MowQVLkdIwHu7ixeRlqHVzs"]] {
            let result = run(args)
            XCTAssertEqual(result.status, .usage, "\(args): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains("RevenueCat's API v2 searches"), result.stderr)
        }
        XCTAssertTrue(run(["find", "sub_1MowQVLkdIwHu7ixeRlqHVzs"]).stderr.contains("looks like a Stripe id"))
        XCTAssertTrue(run(["find", "x", "--attribute", "team"]).stderr.contains("not other attributes"))
        XCTAssertEqual(rc.paths, [])
        // check points at find for an email now that v2 can search it.
        let check = run(["check", "alice@example.com"])
        XCTAssertEqual(check.status, .notFound)
        XCTAssertTrue(check.stderr.contains("subs find alice@example.com"), check.stderr)
        // …but not for a Stripe id, which its search cannot find: the hint would lead to a 64.
        for stripe in ["sub_1MowQVLkdIwHu7ixeRlqHVzs", "in_1QKv2ZLkdIwHu7ixB8c0Fh3T"] {
            let notFound = run(["check", stripe])
            XCTAssertEqual(notFound.status, .notFound, notFound.stderr)
            XCTAssertEqual(notFound.stderr, "subs: error: customer '\(stripe)' not found\n")
        }
        let apple = run(["check", "MN9C3VJ6HW"])
        XCTAssertTrue(apple.stderr.contains("subs find MN9C3VJ6HW"), apple.stderr)
    }

    func testThePageCapAndTheMatchCapStopAndSaySo() throws {
        let shared = "family@example.com"
        for i in 0..<(RevenueCatV2Source.matchCap + 5) {
            let id = "member\(String(i + 100))"
            rc.customers[id] = .init(body: F.customer(id, active: [], attributes: [("$email", shared)]))
        }
        rc.pageSize = 1
        let capped = run(["find", shared, "--json"])
        XCTAssertEqual(capped.status, .success, capped.stderr)
        XCTAssertEqual(matches(try JSON.parse(capped.stdout)).count, RevenueCatV2Source.searchPageCap)
        XCTAssertTrue(capped.stderr.contains("RevenueCat's search for '\(shared)': its matches were read for \(RevenueCatV2Source.searchPageCap) pages only"),
                      capped.stderr)
        XCTAssertEqual(rc.paths.filter { $0.hasPrefix(search) }.count, RevenueCatV2Source.searchPageCap)

        rc.pageSize = 7
        let before = rc.paths.count
        let many = run(["find", shared, "--json"])
        XCTAssertEqual(many.status, .success, many.stderr)
        let found = matches(try JSON.parse(many.stdout))
        XCTAssertEqual(found.map { $0["customerId"] }, (0..<RevenueCatV2Source.matchCap).map { .string("member\($0 + 100)") })
        XCTAssertTrue(many.stderr.contains("more than \(RevenueCatV2Source.matchCap) customers match '\(shared)'"), many.stderr)
        let asked = rc.paths[before...]
        XCTAssertEqual(asked.filter { $0.hasPrefix(search) }.count, 3, "no page past the cap: \(asked)")
        XCTAssertEqual(asked.filter { $0.hasSuffix("?expand=attributes") }.count, RevenueCatV2Source.matchCap)
    }

    func testAnIdTheSearchMissesIsLookedUpAndACustomerGoneIsSaid() throws {
        // A search that matches emails only (an older edition of RevenueCat's reference): ids are still found.
        rc.script = { _, r in r.path.hasSuffix("/customers") ? .json(F.list([]), headers: [("Date", F.date)]) : nil }
        let lena = try json(["find", "lena"])
        assertMatch(matches(lena).first, "lena", "customerId", nil, ["premium"])
        XCTAssertTrue(rc.paths.contains("/v2/projects/\(F.project)/customers/lena?expand=attributes"), "\(rc.paths)")
        let nobody = run(["find", "nobody@example.com"])
        XCTAssertEqual(nobody.status, .notFound, nobody.stderr)
        XCTAssertTrue(rc.paths.contains("/v2/projects/\(F.project)/customers/nobody%40example.com?expand=attributes"), "\(rc.paths)")

        // A customer the search names but that is gone when read: said, and the others shown.
        rc.script = { _, r in
            r.path.hasSuffix("/customers") ? .json(F.list([F.customer("ghost", active: []), F.customer("lena", active: [])]),
                                                   headers: [("Date", F.date)]) : nil
        }
        let result = run(["find", "lena@example.com", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(matches(try JSON.parse(result.stdout)).map { $0["customerId"] }, [.string("lena")])
        XCTAssertTrue(result.stderr.contains("subs: warning: RevenueCat customer 'ghost' was found by the search but was gone when it was read"),
                      result.stderr)
    }

    func testARepeatedCursorAndAMalformedItem() throws {
        rc.script = { _, r in
            guard r.path.hasSuffix("/customers") else { return nil }
            return .json(F.list([.object(JSONObject([("object", .string("customer")), ("id", .bool(true))])), F.customer("lena", active: [])],
                                next: "/v2/projects/\(F.project)/customers?search=x&starting_after=lena"), headers: [("Date", F.date)])
        }
        let result = run(["find", "lena@example.com", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(matches(try JSON.parse(result.stdout)).map { $0["customerId"] }, [.string("lena")], "the malformed item hides nothing")
        XCTAssertTrue(result.stderr.contains("subs: warning: ") && result.stderr.contains("items[0].id"), result.stderr)
        XCTAssertTrue(result.stderr.contains("answered the same page of its matches twice"), result.stderr)
        XCTAssertEqual(rc.paths.filter { $0.hasPrefix(search) }.count, 2)
    }
}
