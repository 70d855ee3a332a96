// `find` on generated stores answers exactly what a whole-document parse (Foundation's
// JSONSerialization, fine in a test) answers, with both scan strategies: a byte search per term
// (one or two terms) and the transactions' ids compared with every term at once (more).

import Foundation
@testable import SubsModel
@testable import SubsStore
import XCTest

final class StoreSearchDifferentialTests: XCTestCase {
    private static let pieces = ["a", "B", "z", "0", "_", "-", "@", ".", "é", "É", "日本", "\"", "\\", "/", "\u{1}", " ",
                                 "😀", "K", "\u{212A}", "MK", "GPA."]

    private func text(_ g: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...5, using: &g)).map { _ in Self.pieces.randomElement(using: &g)! }.joined()
    }

    /// Changes the case of some letters (what a support agent pastes).
    private func recased(_ s: String, _ g: inout SeededGenerator) -> String {
        String(s.map { Bool.random(using: &g) ? Character($0.uppercased().count == 1 ? $0.uppercased() : String($0)) : $0 })
    }

    /// A store with every kind of value a term can match, ids reused across kinds on purpose.
    private func makeStore(_ g: inout SeededGenerator) -> (data: Data, values: [String]) {
        var customers: [String: Any] = [:]
        var values: [String] = []
        var usedAliases: Set<String> = []
        let count = Int.random(in: 5...30, using: &g)
        let ids = (0..<count).map { "\(text(&g))\($0)" }
        for (i, id) in ids.enumerated() {
            var record: [String: Any] = [:]
            values.append(id)
            if Bool.random(using: &g) {
                let alias = "al\(i)" + text(&g)
                if usedAliases.insert(alias).inserted && !ids.contains(alias) { record["aliases"] = [alias]; values.append(alias) }
            }
            var attributes: [String: Any] = [:]
            if Int.random(in: 0...3, using: &g) > 0 {
                // Emails repeat across customers now and then.
                let email = Bool.random(using: &g) ? "shared@example.com" : text(&g) + "@" + text(&g) + ".com"
                attributes["email"] = email
                values.append(recased(email, &g))
            }
            if Bool.random(using: &g) {
                let crm = Bool.random(using: &g) ? ids.randomElement(using: &g)! : text(&g)
                attributes["crm"] = crm
                values.append(crm)
            }
            if Bool.random(using: &g) { attributes["other"] = ids.randomElement(using: &g)! }
            if Int.random(in: 0...2, using: &g) == 0 {
                // A display name, typed by a support agent in any case; now and then another's id.
                let name = Bool.random(using: &g) ? "Dana " + text(&g) : ids.randomElement(using: &g)!
                attributes[Bool.random(using: &g) ? "$displayName" : "name"] = name
                values.append(recased(name, &g))
            }
            if !attributes.isEmpty { record["attributes"] = attributes }
            var transactions: [[String: Any]] = []
            var original = ""
            for t in 0..<Int.random(in: 0...6, using: &g) {
                let id = "t\(t)" + text(&g)
                if t == 0 || Int.random(in: 0...3, using: &g) == 0 { original = Bool.random(using: &g) ? id : "o\(t)" + text(&g) }
                var tx: [String: Any] = ["transactionId": id, "originalTransactionId": original, "productId": "m",
                                         "type": "subscriptionRenewed", "transactionDate": "2026-10-01T00:00:00Z",
                                         "expirationDate": "2026-11-01T00:00:00Z",
                                         // Decoys: another customer's id in an unknown field and a nested object.
                                         "note": ids.randomElement(using: &g)!,
                                         "meta": ["transactionId": ids.randomElement(using: &g)!]]
                if Bool.random(using: &g) {
                    let order = Bool.random(using: &g) ? "MK" + text(&g) : ids.randomElement(using: &g)!
                    tx["orderId"] = order
                    values.append(order)
                }
                values += [id, original]
                transactions.append(tx)
            }
            record["transactions"] = transactions
            if !original.isEmpty { record["events"] = [["type": "billingIssue", "date": "2026-10-20T00:00:00Z", "originalTransactionId": original,
                                 "orderId": ids.randomElement(using: &g)!]] }
            customers[id] = record
        }
        let store: [String: Any] = ["schemaVersion": 1, "products": ["m": ["type": "subscription", "entitlements": ["premium"]]],
                                    "customers": customers]
        let options: JSONSerialization.WritingOptions = Bool.random(using: &g) ? [.prettyPrinted] : []
        return (try! JSONSerialization.data(withJSONObject: store, options: options), values)
    }

    /// The reference: every customer, each way it matches `term`, the first kind kept.
    private func reference(_ data: Data, _ term: String, attributes: [String]) throws -> Set<String> {
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let customers = try XCTUnwrap(root["customers"] as? [String: [String: Any]])
        var found: Set<String> = []
        for (id, record) in customers {
            var kinds: [MatchKind] = []
            if id == term { kinds.append(.customerId) }
            if (record["aliases"] as? [String])?.contains(term) == true { kinds.append(.alias) }
            let attrs = record["attributes"] as? [String: Any] ?? [:]
            if let email = attrs["email"] as? String, Array(email.lowercased().utf8) == Array(term.lowercased().utf8) {
                kinds.append(.email)
            }
            for key in MatchKind.displayNameKeys {
                if let name = attrs[key] as? String, Array(name.lowercased().utf8) == Array(term.lowercased().utf8) {
                    kinds.append(.displayName)
                }
            }
            for tx in record["transactions"] as? [[String: Any]] ?? [] {
                for kind in [MatchKind.transactionId, .originalTransactionId, .orderId] where tx[kind.rawValue] as? String == term {
                    kinds.append(kind)
                }
            }
            for key in attributes where attrs[key] as? String == term { kinds.append(.attribute) }
            if let best = kinds.min() { found.insert("\(id):\(best.rawValue)") }
        }
        return found
    }

    func testFindAnswersLikeAWholeDocumentParseWithBothStrategies() throws {
        let dir = NSTemporaryDirectory() + "subs-search-diff-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var g = SeededGenerator(seed: 2026_11_24)
        var matched = 0, compared = 0
        for round in 0..<30 {
            let (data, values) = makeStore(&g)
            let path = dir + "/s\(round).json"
            try data.write(to: URL(fileURLWithPath: path))
            let store = LocalStore(path: path)
            let terms = Array(Set(values.shuffled(using: &g).prefix(12) + [text(&g), "shared@EXAMPLE.com"])).sorted()
            let attributes = Bool.random(using: &g) ? ["crm"] : []
            // All terms at once (transaction ids compared field by field), then one by one (byte search).
            let together = try store.find(FindQuery(terms: terms, attributes: attributes)).matches
            for (term, matches) in zip(terms, together) {
                let alone = try store.find(FindQuery(terms: [term], attributes: attributes)).matches[0]
                let expected = try reference(data, term, attributes: attributes)
                XCTAssertEqual(Set(matches.map { "\($0.record.id):\($0.kind.rawValue)" }), expected, "round \(round) term \(term.debugDescription)")
                XCTAssertEqual(alone.map(\.record.id), matches.map(\.record.id), "round \(round) term \(term.debugDescription)")
                XCTAssertEqual(matches.map(\.kind), matches.map(\.kind).sorted(), "kinds in order")
                compared += 1
                matched += matches.isEmpty ? 0 : 1
            }
        }
        XCTAssertGreaterThan(compared, 300)
        XCTAssertGreaterThan(matched, compared / 2, "most terms are values of the store")
    }
}
