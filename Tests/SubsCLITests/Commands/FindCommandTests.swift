// `subs find TERM...` on the demo store and on generated stores: every kind of term, in every
// format, JSON field by field; no match is exit 3; bad terms are refused; `-` reads stdin.

import Foundation
import SubsJSON
@testable import SubsStore
@testable import SubsCLI
import XCTest

final class FindCommandTests: XCTestCase {
    private func find(_ args: [String], store: String = Repo.exampleStore, stdin: String? = nil,
                      terminal: Bool = false) -> CLIResult {
        runCLI(["--store", store, "find"] + args, stdin: stdin, terminal: terminal)
    }

    /// The one match of `term`'s JSON document, checked field by field.
    private func assertOneMatch(_ term: String, _ extra: [String] = [], customer: String, matchedBy: String,
                                email: JSONValue, active: [String], store: String = Repo.exampleStore,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let result = find([term, "--json"] + extra, store: store)
        XCTAssertEqual(result.status, .success, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stderr, "", file: file, line: line)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc.objectValue?.keys, ["term", "matches"], file: file, line: line)
        XCTAssertEqual(doc["term"], .string(term), file: file, line: line)
        let matches = try XCTUnwrap(doc["matches"]?.arrayValue, file: file, line: line)
        XCTAssertEqual(matches.count, 1, "\(matches)", file: file, line: line)
        let match = try XCTUnwrap(matches.first, file: file, line: line)
        XCTAssertEqual(match.objectValue?.keys, ["customerId", "matchedBy", "email", "activeEntitlements"], file: file, line: line)
        XCTAssertEqual(match["customerId"], .string(customer), file: file, line: line)
        XCTAssertEqual(match["matchedBy"], .string(matchedBy), file: file, line: line)
        XCTAssertEqual(match["email"], email, file: file, line: line)
        XCTAssertEqual(match["activeEntitlements"], .array(active.map { .string($0) }), file: file, line: line)
    }

    func testEveryKindOfTermOnTheDemoStore() throws {
        try assertOneMatch("dave", customer: "dave", matchedBy: "customerId", email: .string("dave@example.com"), active: ["premium"])
        try assertOneMatch("alice-android", customer: "alice", matchedBy: "alias", email: .string("alice@example.com"), active: ["premium"])
        try assertOneMatch("ALICE@Example.COM", customer: "alice", matchedBy: "email", email: .string("alice@example.com"), active: ["premium"])
        try assertOneMatch("peggy+qa@example.com", customer: "peggy", matchedBy: "email", email: .string("peggy+qa@example.com"), active: ["premium"])
        try assertOneMatch("in_1SSd81LkdIwHu7ixUq2mJ9aR", customer: "dave", matchedBy: "transactionId", email: .string("dave@example.com"), active: ["premium"])
        try assertOneMatch("GPA.3381-2207-6410-90322..2", customer: "frank", matchedBy: "transactionId", email: .string("frank@example.com"), active: [])
        try assertOneMatch("MN9C3VJ6HW", customer: "uma", matchedBy: "orderId", email: .string("uma@example.com"), active: [])
        try assertOneMatch("MK7W2Q9TXL", customer: "alice", matchedBy: "orderId", email: .string("alice@example.com"), active: ["premium"])
        try assertOneMatch("2000000765223817", customer: "uma", matchedBy: "transactionId", email: .string("uma@example.com"), active: [])
        try assertOneMatch("fam_3921", ["--attribute", "nonexistent"], customer: "fam_3921", matchedBy: "customerId", email: .null, active: [],
                           store: try storeWith(#""fam_3921": {}"#))
        // An attribute: every customer holding it, in store order.
        let family = find(["fam_3921", "--attribute", "familyId", "--json"])
        XCTAssertEqual(family.status, .success, family.stderr)
        let matches = try XCTUnwrap(JSON.parse(family.stdout)["matches"]?.arrayValue)
        XCTAssertEqual(matches.map { $0["customerId"] }, [.string("nina"), .string("oscar")])
        XCTAssertEqual(matches.map { $0["matchedBy"] }, [.string("attribute"), .string("attribute")])
        XCTAssertEqual(matches.map { $0["activeEntitlements"] }, Array(repeating: .array([.string("family"), .string("premium")]), count: 2))
        // Without --attribute the same term matches nothing.
        XCTAssertEqual(find(["fam_3921"]).status, .notFound)
    }

    /// A store of the demo's catalog holding `customers` (a JSON members list).
    private func storeWith(_ customers: String) throws -> String {
        let demo = try JSON.parse(DemoStore.json)
        let text = #"{"schemaVersion": 1, "products": \#(JSONWriter.compact(demo["products"]!)), "customers": {\#(customers)}}"#
        return TempDir().keep.write("store.json", text)
    }

    func testTwoCustomersSharingAnEmailAreBothShownAndOtherKindsComeFirst() throws {
        let store = try storeWith("""
            "kid": {"attributes": {"email": "Family@Example.com"}},
            "parent": {"attributes": {"email": "family@example.com"}, "grants": [{"id": "g", "entitlement": "premium",
                       "grantedAt": "2026-11-01T00:00:00Z", "expirationDate": null}]},
            "family@example.com": {}
            """)
        let result = find(["FAMILY@example.com", "--json"], store: store)
        XCTAssertEqual(result.status, .success, result.stderr)
        let matches = try XCTUnwrap(JSON.parse(result.stdout)["matches"]?.arrayValue)
        XCTAssertEqual(matches.map { $0["customerId"] }, [.string("kid"), .string("parent")])
        XCTAssertEqual(matches.map { $0["email"] }, [.string("Family@Example.com"), .string("family@example.com")])
        XCTAssertEqual(matches.map { $0["activeEntitlements"] }, [.array([]), .array([.string("premium")])])
        // The exact id comes first, then the emails.
        let exact = find(["family@example.com", "--format", "tsv"], store: store)
        XCTAssertEqual(exact.stdout, """
            term\tcustomerId\tmatchedBy\temail\tactiveEntitlements\terror
            family@example.com\tfamily@example.com\tcustomerId\t\t\t
            family@example.com\tkid\temail\tFamily@Example.com\t\t
            family@example.com\tparent\temail\tfamily@example.com\tpremium\t

            """)
    }

    func testNoMatchIsExit3WithOneErrorLineAndAnEmptyDocument() throws {
        let table = find(["nobody@example.com"])
        XCTAssertEqual(table.status, .notFound)
        XCTAssertEqual(table.stdout, "")
        XCTAssertEqual(table.stderr, "subs: error: no customer matches 'nobody@example.com'\n")
        let json = find(["nobody@example.com", "--json"])
        XCTAssertEqual(json.status, .notFound)
        XCTAssertEqual(try JSON.parse(json.stdout), .object(JSONObject([("term", .string("nobody@example.com")), ("matches", .array([]))])))
        // A prefix, a substring or another case of an exact id is no match.
        for term in ["MN9C3VJ6H", "N9C3VJ6HW", "mn9c3vj6hw", "Dave", "alice@example", "2000000765 223817"] {
            XCTAssertEqual(find([term, "-q"]).status, .notFound, term)
        }
        // Several terms: the others are printed, the status is 3.
        let several = find(["dave", "nobody", "--format", "jsonl"])
        XCTAssertEqual(several.status, .notFound)
        let lines = try several.stdout.split(separator: "\n").map { try JSON.parse(String($0)) }
        XCTAssertEqual(lines.map { $0["term"] }, [.string("dave"), .string("nobody")])
        XCTAssertEqual(lines.last?["matches"], .array([]))
        XCTAssertEqual(several.stderr, "subs: error: no customer matches 'nobody'\n")
    }

    func testTablesAndSeveralTerms() throws {
        let one = find(["MN9C3VJ6HW"])
        XCTAssertEqual(one.stdout, """
            CUSTOMER  EMAIL            MATCHED BY  ACTIVE
            uma       uma@example.com  orderId     -

            """)
        let several = find(["alice-android", "fam_3921", "--attribute", "familyId"])
        XCTAssertEqual(several.status, .success)
        XCTAssertEqual(several.stdout, """
            TERM           CUSTOMER  EMAIL              MATCHED BY  ACTIVE
            alice-android  alice     alice@example.com  alias       premium
            fam_3921       nina      nina@example.com   attribute   family,premium
            fam_3921       oscar     oscar@example.com  attribute   family,premium

            """)
        // JSON: an array, one document per term, in the order asked.
        let json = find(["alice-android", "dave", "--json"])
        let docs = try XCTUnwrap(JSON.parse(json.stdout).arrayValue)
        XCTAssertEqual(docs.map { $0["term"] }, [.string("alice-android"), .string("dave")])
        // Control characters from the data never reach the terminal.
        let evilStore = try storeWith(#""evil\u001b[31m": {"attributes": {"email": "evil@example.com\u001b[2J"}}"#)
        let evil = find(["evil@example.com\u{1b}[2J"], store: evilStore)
        XCTAssertEqual(evil.status, .usage, "a term with a control character is refused")
        XCTAssertEqual(find(["ev\u{0}"], store: evilStore).status, .usage)
        let byKey = try storeWith(#""evil\u001b[31m": {"attributes": {"email": "evil@example.com"}}"#)
        let evil2 = find(["evil@example.com"], store: byKey, terminal: true)
        XCTAssertEqual(evil2.status, .success, evil2.stderr)
        XCTAssertFalse(evil2.stdout.contains("\u{1b}[31m"), evil2.stdout)
        XCTAssertTrue(evil2.stdout.contains("evil\\x1b[31m"), evil2.stdout)
    }

    func testTheActiveEntitlementsAreThoseAtT() throws {
        // dave's grace period ends 2026-12-12.
        let later = runCLI(["--store", Repo.exampleStore, "find", "dave@example.com", "--json", "--at", "2026-12-13"])
        XCTAssertEqual(try JSON.parse(later.stdout)["matches"]?.arrayValue?.first?["activeEntitlements"], .array([]))
        let now = find(["dave@example.com", "--json"])
        XCTAssertEqual(try JSON.parse(now.stdout)["matches"]?.arrayValue?.first?["activeEntitlements"], .array([.string("premium")]))
    }

    func testBadTermsAreRefusedClearly() throws {
        for (term, words) in [("a\u{1b}[2Jb", "control character U+001B"), ("tab\there", "U+0009"), ("", "empty"),
                              (String(repeating: "x", count: 10_000), "10000 bytes"), ("c1\u{9b}", "U+009B")] {
            let result = find([term])
            XCTAssertEqual(result.status, .usage, term.prefix(20).debugDescription)
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
            XCTAssertFalse(result.stderr.contains("\u{1b}"), "no raw escape on stderr")
            XCTAssertLessThan(result.stderr.utf8.count, 400, "the term is not echoed whole")
            XCTAssertEqual(result.stdout, "")
        }
        XCTAssertEqual(find(["dave", "--attribute", "a\u{7}"]).status, .usage)
        XCTAssertEqual(find([]).status, .usage)
        // The same on standard input is bad input (65), with the line, and nothing printed.
        let long = find(["-"], stdin: "dave\n" + String(repeating: "y", count: 10_000) + "\n")
        XCTAssertEqual(long.status, .dataError, long.stderr)
        XCTAssertEqual(long.stderr, "subs: error: standard input:2: line longer than 4096 bytes\n")
        XCTAssertEqual(long.stdout, "")
        let control = find(["-"], stdin: "dave\nx\u{1b}y\n")
        XCTAssertEqual(control.status, .dataError)
        XCTAssertTrue(control.stderr.hasPrefix("subs: error: standard input:2: "), control.stderr)
    }

    func testTermsFromStandardInput() throws {
        let result = find(["-", "--json"], stdin: "# a ticket's ids\nMN9C3VJ6HW\n\nalice@EXAMPLE.com\r\n")
        XCTAssertEqual(result.status, .success, result.stderr)
        let docs = try XCTUnwrap(JSON.parse(result.stdout).arrayValue)
        XCTAssertEqual(docs.map { $0["term"] }, [.string("MN9C3VJ6HW"), .string("alice@EXAMPLE.com")])
        XCTAssertEqual(docs.map { $0["matches"]?.arrayValue?.first?["customerId"] }, [.string("uma"), .string("alice")])
        let empty = find(["-", "--json"], stdin: "")
        XCTAssertEqual(empty.status, .success)
        XCTAssertEqual(try JSON.parse(empty.stdout), .array([]))
        XCTAssertEqual(find(["-", "-"], stdin: "x").status, .usage)
    }

    /// The generated store: customers with emails (some shared, some upper case), App Store,
    /// Google Play and Stripe ids, order ids, aliases and an attribute; each found by each of them.
    func testEveryKindOfTermOnAGeneratedStore() throws {
        var members: [String] = []
        var expectations: [(term: String, customers: [String], kind: String, extra: [String])] = []
        for i in 0..<400 {
            let id = "user_\(i)", apple = String(2_000_000_800_000_000 + i * 10), google = "GPA.33\(10 + i % 90)-\(1000 + i)-0923-\(55_000 + i)"
            let order = "MK\(i % 10)" + String(i, radix: 36).uppercased().padding(toLength: 7, withPad: "Q", startingAt: 0)
            let email = i % 50 == 7 ? "shared@example.com" : "User_\(i)@Example.com"
            members.append("""
                "\(id)": {"aliases": ["\(id)-android"], "attributes": {"email": "\(email)", "zendesk": "Z\(i)"},
                  "transactions": [
                    {"transactionId": "\(apple)", "originalTransactionId": "\(apple)", "productId": "pro_monthly", "type": "subscriptionStarted",
                     "transactionDate": "2026-11-10T00:00:00Z", "expirationDate": "2026-12-10T00:00:00Z", "source": "appstore", "orderId": "\(order)"},
                    {"transactionId": "\(google)..0", "originalTransactionId": "\(google)", "productId": "pro_monthly_android",
                     "type": "subscriptionRenewed", "transactionDate": "2026-09-01T00:00:00Z", "expirationDate": "2026-10-01T00:00:00Z",
                     "source": "playstore"}]}
                """)
            if i % 37 == 0 {
                expectations += [(id, [id], "customerId", []), ("\(id)-android", [id], "alias", []), (apple, [id], "transactionId", []),
                                 (order, [id], "orderId", []), (google, [id], "originalTransactionId", []),
                                 ("\(google)..0", [id], "transactionId", []), ("user_\(i)@example.COM", [id], "email", []),
                                 ("Z\(i)", [id], "attribute", ["--attribute", "zendesk"])]
            }
        }
        expectations.append(("SHARED@example.com", (0..<400).filter { $0 % 50 == 7 }.map { "user_\($0)" }, "email", []))
        let store = try storeWith(members.joined(separator: ",\n"))
        for e in expectations {
            let result = find([e.term, "--json"] + e.extra, store: store)
            XCTAssertEqual(result.status, .success, "\(e.term): \(result.stderr)")
            let matches = try XCTUnwrap(JSON.parse(result.stdout)["matches"]?.arrayValue, e.term)
            XCTAssertEqual(matches.map { $0["customerId"] }, e.customers.map { .string($0) }, e.term)
            XCTAssertEqual(Set(matches.compactMap { $0["matchedBy"]?.stringValue }), [e.kind], e.term)
            XCTAssertEqual(matches.first?["activeEntitlements"], .array([.string("premium")]), e.term)
        }
        // All the terms at once (the scan that compares every transaction id with every term).
        let all = find(["-", "--json"] + ["--attribute", "zendesk"], store: store, stdin: expectations.map(\.term).joined(separator: "\n"))
        XCTAssertEqual(all.status, .success, all.stderr)
        let docs = try XCTUnwrap(JSON.parse(all.stdout).arrayValue)
        XCTAssertEqual(docs.map { $0["matches"]?.arrayValue?.compactMap { $0["customerId"]?.stringValue } ?? [] }, expectations.map(\.customers))
    }

    func testTheBuiltBinaryFindsAndExits() throws {
        let found = try Binary.run(["--store", Repo.exampleStore, "find", "MN9C3VJ6HW", "--format", "tsv"])
        XCTAssertEqual(found.status, .success, found.stderr)
        XCTAssertEqual(found.stdout, "term\tcustomerId\tmatchedBy\temail\tactiveEntitlements\terror\nMN9C3VJ6HW\tuma\torderId\tuma@example.com\t\t\n")
        let missing = try Binary.run(["--store", Repo.exampleStore, "find", "nobody@example.com"])
        XCTAssertEqual(missing.status, .notFound)
        let long = try Binary.run(["--store", Repo.exampleStore, "find", String(repeating: "z", count: 10_000)])
        XCTAssertEqual(long.status, .usage, long.stderr)
    }
}

extension TempDir {
    /// Keeps the directory for the rest of the process (a store path outliving this expression).
    var keep: TempDir {
        TempDir.kept.append(self)
        return self
    }
    nonisolated(unsafe) private static var kept: [TempDir] = []
}
