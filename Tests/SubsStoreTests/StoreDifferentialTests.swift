// The fast path (one byte scan noting spans, then parsing only those spans) must answer exactly
// what a straightforward reference does: Foundation's JSONSerialization of the whole file — fine
// in a test, never on the store path — then decoding the customer found by key or alias.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
import XCTest

final class StoreDifferentialTests: XCTestCase {
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {   // SplitMix64: seeded, so a failure can be replayed
            state &+= 0x9E3779B97F4A7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
            z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
            return z ^ (z >> 31)
        }
    }

    let products = ["m": ("subscription", "premium"), "y": ("subscription", "premium"),
                    "life": ("nonConsumable", "premium"), "c": ("consumable", "")]

    func randomString(_ g: inout Generator) -> String {
        let pieces = ["a", "b", "z", "0", "_", "-", "é", "日本", "\"", "\\", "/", "\n", "\t", "\u{1}", " ", "😀", "$anon:"]
        return (0..<Int.random(in: 1...6, using: &g)).map { _ in pieces.randomElement(using: &g)! }.joined()
    }

    func date(_ g: inout Generator) -> String {
        let day = Int.random(in: 1...28, using: &g), month = Int.random(in: 1...12, using: &g)
        return String(format: "2026-%02d-%02dT%02d:00:00Z", month, day, Int.random(in: 0...23, using: &g))
    }

    /// A random unknown value: nesting, numbers, escapes.
    func noise(_ g: inout Generator, depth: Int = 0) -> Any {
        switch Int.random(in: 0...5, using: &g) {
        case 0 where depth < 4: return (0..<Int.random(in: 0...3, using: &g)).map { _ in noise(&g, depth: depth + 1) }
        case 1 where depth < 4:
            var o: [String: Any] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &g) { o[randomString(&g)] = noise(&g, depth: depth + 1) }
            return o
        case 2: return Double(Int.random(in: -1000...1000, using: &g)) / 8
        case 3: return Bool.random(using: &g)
        case 4: return NSNull()
        default: return randomString(&g)
        }
    }

    func makeStore(_ g: inout Generator, customers count: ClosedRange<Int> = 5...40) -> (json: Data, ids: [String], aliases: [String: String]) {
        var customers: [String: Any] = [:]
        var aliases: [String: String] = [:]
        var ids: [String] = []
        for i in 0..<Int.random(in: count, using: &g) {
            let id = randomString(&g) + String(i)
            ids.append(id)
            var record: [String: Any] = ["x-" + randomString(&g): noise(&g)]
            if Bool.random(using: &g) {
                let alias = "al\(i)" + randomString(&g)
                aliases[alias] = id
                record["aliases"] = [alias]
            }
            if Bool.random(using: &g) { record["attributes"] = ["email": randomString(&g)] }
            var transactions: [[String: Any]] = []
            for t in 0..<Int.random(in: 0...5, using: &g) {
                let product = ["m", "y", "life", "c"].randomElement(using: &g)!
                let type = product == "life" ? "nonConsumablePurchase" : product == "c" ? "consumablePurchase"
                    : ["trialStarted", "subscriptionStarted", "subscriptionRenewed", "introStarted"].randomElement(using: &g)!
                var tx: [String: Any] = ["transactionId": "t\(t)" + randomString(&g), "originalTransactionId": "o\(t % 2)",
                                         "productId": product, "type": type, "transactionDate": date(&g),
                                         "unknown": noise(&g)]
                if products[product]!.0 == "subscription" { tx["expirationDate"] = date(&g) }
                if Int.random(in: 0...5, using: &g) == 0 { tx["transactionRevocationDate"] = date(&g) }
                if Bool.random(using: &g) { tx["offerCode"] = randomString(&g) }
                transactions.append(tx)
            }
            record["transactions"] = transactions
            record["events"] = [["type": "billingIssue", "date": date(&g), "originalTransactionId": "o0"]]
            record["grants"] = Bool.random(using: &g) ? [["id": "g", "entitlement": "premium", "grantedAt": date(&g),
                                                          "expirationDate": NSNull(), "note": noise(&g)]] : []
            customers[id] = record
        }
        var catalog: [String: Any] = [:]
        for (id, (type, entitlement)) in products {
            catalog[id] = ["type": type, "entitlements": entitlement.isEmpty ? [] : [entitlement]]
        }
        let store: [String: Any] = ["schemaVersion": 1, "products": catalog, "customers": customers, "meta": noise(&g)]
        let options: JSONSerialization.WritingOptions = Bool.random(using: &g) ? [.prettyPrinted] : []
        return (try! JSONSerialization.data(withJSONObject: store, options: options), ids, aliases)
    }

    /// The reference: whole-document Foundation parse, then the record found by key or alias.
    func referenceCustomers(_ data: Data) throws -> [String: Any] {
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(root["customers"] as? [String: Any])
    }

    func referenceRecord(_ customers: [String: Any], _ id: String, catalog: Catalog) throws -> CustomerRecord? {
        let key = customers[id] != nil ? id : customers.first(where: { ($0.value as? [String: Any])?["aliases"]
            .flatMap { $0 as? [String] }?.contains(id) == true })?.key
        guard let key, let record = customers[key] else { return nil }
        var decoder = RecordDecoder()
        return decoder.customer(id: ID(key), jsonValue(record), catalog: catalog, path: "customers")
    }

    func jsonValue(_ any: Any) -> JSONValue {
        switch any {
        case let s as String: return .string(s)
        case let d as [String: Any]: return .object(JSONObject(d.keys.sorted().map { ($0, jsonValue(d[$0]!)) }))
        case let a as [Any]: return .array(a.map(jsonValue))
        case is NSNull: return .null
        case let n as NSNumber: return .number(n.stringValue)
        default: return .null
        }
    }

    /// Attributes compare without member order (the reference loses it).
    func normalized(_ r: CustomerRecord?) -> CustomerRecord? {
        guard var r else { return nil }
        if let a = r.attributes { r.attributes = JSONObject(a.members.sorted { $0.key < $1.key }) }
        return r
    }

    /// Many ids at once take the early path (decoded on another core during the scan).
    func testManyCustomersAtOnceAnswerLikeTheReference() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("subs-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var g = Generator(state: 7)
        for round in 0..<3 {
            let (data, ids, aliases) = makeStore(&g, customers: 300...500)
            let path = dir.appendingPathComponent("many\(round).json").path
            try data.write(to: URL(fileURLWithPath: path))
            let asked = ids + aliases.keys + ids.prefix(10) + ["missing"]
            let lookup = try LocalStore(path: path).lookup(asked.ids)
            XCTAssertGreaterThan(asked.count, 64)
            let reference = try referenceCustomers(data)
            for (id, record) in zip(asked, lookup.records) {
                XCTAssertEqual(normalized(record), normalized(try referenceRecord(reference, id, catalog: lookup.catalog)),
                               "round \(round), id \(id.debugDescription)")
            }
            XCTAssertEqual(lookup.records.filter { $0 != nil }.count, asked.count - 1)
        }
    }

    func testFastPathAnswersLikeTheReferenceOnGeneratedStores() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("subs-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var g = Generator(state: 20261122)
        var compared = 0, found = 0
        for round in 0..<40 {
            let (data, ids, aliases) = makeStore(&g)
            let path = dir.appendingPathComponent("s\(round).json").path
            try data.write(to: URL(fileURLWithPath: path))
            let store = LocalStore(path: path)
            let asked = ids.shuffled(using: &g).prefix(8) + aliases.keys.shuffled(using: &g).prefix(4) + ["missing-\(round)"]
            let lookup = try store.lookup(Array(asked).ids)
            let reference = try referenceCustomers(data)
            for (id, record) in zip(asked, lookup.records) {
                XCTAssertEqual(normalized(record), normalized(try referenceRecord(reference, id, catalog: lookup.catalog)),
                               "round \(round), id \(id.debugDescription)")
                compared += 1
                if record != nil { found += 1 }
            }
            XCTAssertEqual(Set(try store.customerIds()), Set(ids.ids), "round \(round)")
            XCTAssertEqual(try StoreValidator.problems(path: path), [], "round \(round)")
        }
        XCTAssertGreaterThan(compared, 300)
        XCTAssertGreaterThan(found, 250, "most lookups find a customer, by id or alias")
    }
}
