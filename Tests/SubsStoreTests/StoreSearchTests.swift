// `find` on the local store (LocalStore.find): every kind of match, in its order; the byte
// search never misses a term spelled with JSON escapes and never takes a look-alike for a match;
// and, on generated stores, exactly what a whole-document parse answers, by both scan strategies.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
import XCTest

final class StoreSearchTests: XCTestCase {
    private var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "subs-search-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func store(_ customers: String) -> LocalStore {
        let text = """
            {"schemaVersion": 1,
             "products": {"m": {"type": "subscription", "entitlements": ["premium"]},
                          "life": {"type": "nonConsumable", "entitlements": ["premium"]}},
             "customers": {\(customers)}}
            """
        let path = dir + "/store-\(UUID().uuidString).json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return LocalStore(path: path)
    }

    private static func tx(_ id: String, original: String? = nil, order: String? = nil, extra: String = "") -> String {
        var fields = #""transactionId": "\#(id)", "originalTransactionId": "\#(original ?? id)", "productId": "m", "#
            + #""type": "subscriptionStarted", "transactionDate": "2026-11-01T00:00:00Z", "expirationDate": "2026-12-15T00:00:00Z""#
        if let order { fields += #", "orderId": "\#(order)""# }
        return "{" + fields + extra + "}"
    }

    /// (customer, kind) per term, in the order found.
    private func find(_ store: LocalStore, _ terms: [String], attributes: [String] = []) throws -> [[String]] {
        try store.find(FindQuery(terms: terms, attributes: attributes)).matches.map { $0.map { "\($0.record.id):\($0.kind.rawValue)" } }
    }

    func testEveryKindOfTermInItsOrder() throws {
        let s = store("""
            "ann": {"aliases": ["ann-android"], "attributes": {"email": "Ann@Example.com", "crmId": 1042, "plan": "gold"},
                    "transactions": [\(Self.tx("t1", order: "MK1")), \(Self.tx("t2", original: "t1", order: "MK2"))]},
            "ben": {"attributes": {"email": "ann@example.com"}, "transactions": [\(Self.tx("t3", original: "t1"))]},
            "t1": {"attributes": {"email": "t1"}},
            "cy": {"attributes": {"email": "cy@example.com", "plan": "t1", "n": 1042}}
            """)
        XCTAssertEqual(try find(s, ["ann"]), [["ann:customerId"]])
        XCTAssertEqual(try find(s, ["ann-android"]), [["ann:alias"]])
        // Two customers share an email; any case matches.
        XCTAssertEqual(try find(s, ["ANN@example.COM"]), [["ann:email", "ben:email"]])
        XCTAssertEqual(try find(s, ["t2"]), [["ann:transactionId"]])
        XCTAssertEqual(try find(s, ["MK2"]), [["ann:orderId"]])
        // t1 is a customer id, the email of that customer, ann's transaction and ben's original
        // transaction: each customer once, by its first kind, kinds in order.
        XCTAssertEqual(try find(s, ["t1"]), [["t1:customerId", "ann:transactionId", "ben:originalTransactionId"]])
        XCTAssertEqual(try find(s, ["t1"], attributes: ["plan"]),
                       [["t1:customerId", "ann:transactionId", "ben:originalTransactionId", "cy:attribute"]])
        // Attributes: exact; strings by text, numbers as written; only the keys asked for.
        XCTAssertEqual(try find(s, ["gold"], attributes: ["plan"]), [["ann:attribute"]])
        XCTAssertEqual(try find(s, ["GOLD"], attributes: ["plan"]), [[]])
        XCTAssertEqual(try find(s, ["1042"], attributes: ["crmId"]), [["ann:attribute"]])
        XCTAssertEqual(try find(s, ["1042"], attributes: ["crmId", "n"]), [["ann:attribute", "cy:attribute"]])
        XCTAssertEqual(try find(s, ["gold"]), [[]])
        XCTAssertEqual(try find(s, ["nobody", "cy@EXAMPLE.com"]), [[], ["cy:email"]])
    }

    func testLookAlikesAreNotMatches() throws {
        let s = store("""
            "a": {"transactions": [\(Self.tx("t12", extra: #", "note": "t1", "meta": {"transactionId": "t1", "orderId": "t1"}"#))],
                  "events": [{"type": "billingIssue", "date": "2026-11-20T00:00:00Z", "originalTransactionId": "t12", "orderId": "t1"}],
                  "grants": [{"id": "t1", "entitlement": "premium", "grantedAt": "2026-11-01T00:00:00Z", "expirationDate": null}],
                  "attributes": {"emails": "t1", "email": "x t1"}},
            "m": {"transactions": [\(Self.tx("z1"))], "attributes": {"email": null}}
            """)
        // A prefix of an id, an unknown field, a nested object's keys, an event, a grant id, another
        // attribute, a productId: none of them is a transaction, order id or email.
        for terms in [["t1"], ["t1", "x", "y"]] {
            XCTAssertEqual(try find(s, terms).first, [], "\(terms)")
        }
        XCTAssertEqual(try find(s, ["m"]), [["m:customerId"]])
        XCTAssertEqual(try find(s, ["t12", "x", "y"]).first, ["a:transactionId"])
    }

    func testTermsSpelledWithEscapesInTheStoreAreFound() throws {
        // \u escapes, an escaped slash and an escaped key: the bytes differ, the text is the same.
        let s = store(#"""
            "e1": {"attributes": {"email": "\u00C9lodie@exemple.fr"},
                   "transactions": [{"transaction\u0049d": "in_\u0041B", "originalTransactionId": "in_AB", "productId": "m",
                                     "type": "subscriptionStarted", "transactionDate": "2026-11-01T00:00:00Z",
                                     "expirationDate": "2026-12-15T00:00:00Z", "orderId": "GPA.1\/2"}]},
            "e\u0032": {"aliases": ["al\u0069as"], "attributes": {"email": "KIM@EXAMPLE.COM", "quote": "say \"hi\""}}
            """#)
        for extra in [[], ["x", "y"]] {
            XCTAssertEqual(try find(s, ["élodie@exemple.fr"] + extra).first, ["e1:email"])
            XCTAssertEqual(try find(s, ["ÉLODIE@EXEMPLE.FR"] + extra).first, ["e1:email"])
            XCTAssertEqual(try find(s, ["in_AB"] + extra).first, ["e1:transactionId"])
            XCTAssertEqual(try find(s, ["GPA.1/2"] + extra).first, ["e1:orderId"])
            XCTAssertEqual(try find(s, ["e2"] + extra).first, ["e2:customerId"])
            XCTAssertEqual(try find(s, ["alias"] + extra).first, ["e2:alias"])
            // The Kelvin sign lowercases to an ASCII k.
            XCTAssertEqual(try find(s, ["\u{212A}im@example.com"] + extra).first, ["e2:email"])
            XCTAssertEqual(try find(s, ["say \"hi\""] + extra, attributes: ["quote"]).first, ["e2:attribute"])
        }
    }

    func testAMatchedCustomerIsCheckedLikeCheckAndTheOthersAreNot() throws {
        let s = store("""
            "bad": {"attributes": {"email": "bad@example.com"}, "transactions": [{"transactionId": "b1"}]},
            "ok": {"attributes": {"email": "ok@example.com"}},
            "dup": {"transactions": [\(Self.tx("d1", order: ""))]}
            """)
        XCTAssertEqual(try find(s, ["ok@example.com"]), [["ok:email"]])
        XCTAssertThrowsError(try s.find(FindQuery(terms: ["bad@example.com"]))) { error in
            guard case StoreError.invalid(_, let problems)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(problems.contains { $0.path == "customers.bad.transactions[0].originalTransactionId" }, "\(problems)")
        }
        // An empty orderId is a data error of its customer.
        XCTAssertThrowsError(try s.find(FindQuery(terms: ["dup"]))) { error in
            XCTAssertTrue("\(error)".contains("customers.dup.transactions[0].orderId"), "\(error)")
        }
        // The whole store is still validated as JSON.
        let broken = LocalStore(path: dir + "/broken.json")
        _ = FileManager.default.createFile(atPath: broken.path, contents: Data(#"{"schemaVersion": 1, "products": {}, "customers": {"a": {}}, }"#.utf8))
        XCTAssertThrowsError(try broken.find(FindQuery(terms: ["a"]))) { error in
            guard case StoreError.syntax? = error as? StoreError else { return XCTFail("\(error)") }
        }
    }

    func testTheOrderIdFieldIsDecodedAndChecked() throws {
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(try JSON.parse(#"{"m": {"type": "subscription", "entitlements": ["premium"]}}"#))
        for (order, expected) in [(#""MK1""#, "MK1"), ("null", nil)] as [(String, String?)] {
            let value = try JSON.parse("""
                {"transactionId": "t", "originalTransactionId": "t", "productId": "m", "type": "subscriptionStarted",
                 "transactionDate": "2026-11-01T00:00:00Z", "expirationDate": "2026-12-01T00:00:00Z", "orderId": \(order)}
                """)
            var d = RecordDecoder()
            XCTAssertEqual(d.transaction(value, catalog: catalog, path: "t")?.orderId, expected)
            XCTAssertEqual(d.problems, [])
        }
        for (order, message) in [(#""""#, "must not be empty"), ("12", "expected string, found number")] {
            let value = try JSON.parse("""
                {"transactionId": "t", "originalTransactionId": "t", "productId": "m", "type": "subscriptionStarted",
                 "transactionDate": "2026-11-01T00:00:00Z", "expirationDate": "2026-12-01T00:00:00Z", "orderId": \(order)}
                """)
            var d = RecordDecoder()
            XCTAssertNil(d.transaction(value, catalog: catalog, path: "t"))
            XCTAssertEqual(d.problems.map(\.path), ["t.orderId"])
            XCTAssertTrue(d.problems.first?.message.hasPrefix(message) == true, "\(d.problems)")
        }
    }

    func testTermProblemsAndShapes() {
        XCTAssertNil(FindQuery.problem(with: "alice@example.com"))
        XCTAssertNotNil(FindQuery.problem(with: ""))
        XCTAssertNotNil(FindQuery.problem(with: "a\u{1b}[2J"))
        XCTAssertNotNil(FindQuery.problem(with: "a\u{7f}"))
        XCTAssertNotNil(FindQuery.problem(with: "a\u{9b}"))
        XCTAssertNil(FindQuery.problem(with: String(repeating: "é", count: 2048)))
        XCTAssertNotNil(FindQuery.problem(with: String(repeating: "é", count: 2049)))
        XCTAssertEqual(FindQuery(terms: ["a"], attributes: ["\t"]).problem.map { $0.contains("attribute key") }, true)
        let shapes: [(String, TermShape)] = [
            ("alice@example.com", .email), ("peggy+qa@example.co.uk", .email), ("a@b", .id), ("@example.com", .id),
            ("a@b@c.com", .id), ("a b@c.com", .id), ("GPA.3312-8841-0923-55170", .storeId), ("GPA.3312-8841-0923-55170..0", .storeId),
            ("MK3Q9Z7X1T", .storeId), ("MARKETINGX", .id), ("2000000700041201", .storeId), ("12345", .id),
            ("in_1QKv2ZLkdIwHu7ixB8c0Fh3T", .storeId), ("sub_1QKv2ZLkdIwH", .storeId), ("amzn1.txn.7f3c19d2-x", .storeId),
            ("in_a", .id), ("alice", .id), ("$RCAnonymousID:abc", .id), ("QON_7791ae4e888bdeb81842b36a", .id),
        ]
        for (term, shape) in shapes { XCTAssertEqual(TermShape(of: term), shape, term) }
    }
}
