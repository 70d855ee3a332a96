// Seeded random customers for the property tests: each customer comes as a CustomerRecord and
// as the JSON the store holds for it, so the same customer can be evaluated in memory or
// written to a store. Replay a failure with its printed seed.

import Foundation
import SubsJSON
import SubsModel
import SubsStore

/// SplitMix64, seeded, so a failing case can be replayed from its seed: the generator of
/// EquivalentIds, under the name the property tests use.
package typealias SeededGenerator = SeededRandom

package enum RandomCustomers {
    /// monthly/basic unlock premium (16-day grace / none), yearly premium and cloud, cloud cloud,
    /// life premium for ever, coins nothing.
    package static let catalogJSON: [(String, JSONValue)] = [
        ("monthly", product("subscription", ["premium"], grace: "P16D", retry: "P60D")),
        ("basic", product("subscription", ["premium"], grace: nil, retry: "P30D")),
        ("yearly", product("subscription", ["premium", "cloud"], grace: "P3D", retry: nil)),
        ("cloud", product("subscription", ["cloud"], grace: nil, retry: "P7D")),
        ("life", product("nonConsumable", ["premium"], grace: nil, retry: nil)),
        ("coins", product("consumable", [], grace: nil, retry: nil)),
    ]
    package static let catalog: Catalog = {
        var decoder = RecordDecoder()
        return decoder.catalog(.object(JSONObject(catalogJSON)))
    }()
    package static let subscriptionProducts: [ID] = ["monthly", "basic", "yearly", "cloud"]
    package static let entitlements: [ID] = ["premium", "cloud"]

    /// 2026-01-01T00:00:00Z: generated dates lie within about a year and a half after it.
    package static let origin = Instant(seconds: 1_767_225_600)

    private static func product(_ type: String, _ entitlements: [String], grace: String?, retry: String?) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string(type)), ("entitlements", .array(entitlements.map { .string($0) }))]
        if let grace { members.append(("gracePeriod", .string(grace))) }
        if let retry { members.append(("billingRetryPeriod", .string(retry))) }
        return .object(JSONObject(members))
    }

    package static func date(_ g: inout SeededGenerator, from start: Instant = origin, withinDays days: Int = 500) -> Instant {
        start.adding(seconds: Int64.random(in: 0...Int64(days) * 86_400, using: &g) / 60 * 60)!
    }

    /// A customer with 0–3 subscription chains (renewals, product changes, refunds, events),
    /// maybe a lifetime purchase and a consumable, and 0–2 manual grants. `revocations: false`
    /// gives one without refunds or revoked grants.
    package static func customer(_ id: ID, _ g: inout SeededGenerator, revocations: Bool = true,
                         chains chainCount: ClosedRange<Int> = 0...3, others: Bool = true) -> (record: CustomerRecord, json: JSONObject) {
        var record = CustomerRecord(id: id)
        var transactionsJSON: [JSONValue] = []
        var eventsJSON: [JSONValue] = []
        var grantsJSON: [JSONValue] = []
        var serial = 0

        func addTransaction(_ t: Transaction) {
            record.transactions.append(t)
            var members: [(String, JSONValue)] = [
                ("transactionId", .string(t.transactionId.string)), ("originalTransactionId", .string(t.originalTransactionId.string)),
                ("productId", .string(t.productId.string)), ("type", .string(t.type.rawValue)),
                ("transactionDate", .string(ISODate.format(t.transactionDate))),
            ]
            if let e = t.expirationDate { members.append(("expirationDate", .string(ISODate.format(e)))) }
            members.append(("source", .string(t.source.rawValue)))
            if t.environment == .sandbox { members.append(("environment", .string("sandbox"))) }
            if t.ownershipType == .familySharing { members.append(("ownershipType", .string("familySharing"))) }
            if let o = t.offerCode { members.append(("offerCode", .string(o))) }
            if let r = t.revocationDate { members.append(("transactionRevocationDate", .string(ISODate.format(r)))) }
            members.append(("x-unknown", .array([.number("1.50"), .null])))
            transactionsJSON.append(.object(JSONObject(members)))
        }

        for c in 0..<Int.random(in: chainCount, using: &g) {
            let chainId: ID = "\(id)-c\(c)"
            var product = subscriptionProducts.randomElement(using: &g)!
            var start = date(&g, withinDays: 300)
            let count = Int.random(in: 1...6, using: &g)
            var first: Instant?
            for n in 0..<count {
                if Int.random(in: 0..<6, using: &g) == 0 { product = subscriptionProducts.randomElement(using: &g)! }
                let type: TransactionType = n == 0
                    ? [.trialStarted, .introStarted, .subscriptionStarted].randomElement(using: &g)!
                    : [.subscriptionRenewed, .subscriptionRenewed, .introRenewed].randomElement(using: &g)!
                let length = Int64.random(in: 3...31, using: &g) * 86_400
                let expiration = start.adding(seconds: length)!
                serial += 1
                var revoked: Instant?
                if revocations, Int.random(in: 0..<8, using: &g) == 0 {
                    revoked = start.adding(seconds: Int64.random(in: 0...(length + 10 * 86_400), using: &g) / 60 * 60)
                }
                addTransaction(Transaction(
                    transactionId: "t\(serial)", originalTransactionId: chainId, productId: product, type: type,
                    transactionDate: start, expirationDate: expiration,
                    source: PurchaseSource.allCases.randomElement(using: &g)!,
                    environment: Int.random(in: 0..<5, using: &g) == 0 ? .sandbox : .production,
                    ownershipType: Int.random(in: 0..<6, using: &g) == 0 ? .familySharing : .owner,
                    offerCode: Int.random(in: 0..<5, using: &g) == 0 ? "CODE\(serial)" : nil,
                    revocationDate: revoked))
                first = first ?? start
                // The next period starts at this one's end, or after a gap, or a little early.
                start = expiration.adding(seconds: Int64.random(in: -2...20, using: &g) * 86_400)!
            }
            for _ in 0..<Int.random(in: 0...4, using: &g) {
                let type = EventType.allCases.randomElement(using: &g)!
                let when = date(&g, from: first!.adding(seconds: -86_400)!, withinDays: 200)
                var event = SubscriptionEvent(type: type, date: when, originalTransactionId: chainId)
                var members: [(String, JSONValue)] = [("type", .string(type.rawValue)), ("date", .string(ISODate.format(when))),
                                                      ("originalTransactionId", .string(chainId.string))]
                if type == .renewalProductChanged {
                    event.productId = subscriptionProducts.randomElement(using: &g)!
                    members.append(("productId", .string(event.productId!.string)))
                }
                if type == .pauseScheduled {
                    event.autoResumeDate = date(&g, from: when, withinDays: 60)
                    members.append(("autoResumeDate", .string(ISODate.format(event.autoResumeDate!))))
                }
                record.events.append(event)
                eventsJSON.append(.object(JSONObject(members)))
            }
        }
        if others, Bool.random(using: &g) {
            let when = date(&g, withinDays: 400)
            serial += 1
            let revoked = revocations && Int.random(in: 0..<3, using: &g) == 0 ? date(&g, from: when, withinDays: 100) : nil
            addTransaction(Transaction(transactionId: "t\(serial)", originalTransactionId: "t\(serial)", productId: "life",
                                       type: .nonConsumablePurchase, transactionDate: when, source: .playstore,
                                       revocationDate: revoked))
        }
        if others, Int.random(in: 0..<4, using: &g) == 0 {
            serial += 1
            addTransaction(Transaction(transactionId: "t\(serial)", originalTransactionId: "t\(serial)", productId: "coins",
                                       type: .consumablePurchase, transactionDate: date(&g)))
        }
        for n in 0..<(others ? Int.random(in: 0...2, using: &g) : 0) {
            let when = date(&g, withinDays: 400)
            let grant = Grant(id: "g\(n + 1)", entitlement: entitlements.randomElement(using: &g)!, grantedAt: when,
                              expirationDate: Bool.random(using: &g) ? date(&g, from: when.adding(seconds: 60)!, withinDays: 90) : nil,
                              grantedBy: "dana", reason: Bool.random(using: &g) ? "goodwill" : nil,
                              revokedAt: revocations && Int.random(in: 0..<3, using: &g) == 0 ? date(&g, from: when, withinDays: 60) : nil)
            var revokedBy: String?, revokeReason: String?
            if grant.revokedAt != nil {
                // Who and why, as `revoke` writes them (no random draw: the sequence stays as it was).
                revokedBy = "sam"
                revokeReason = n == 0 ? "chargeback" : nil
            }
            var recorded = grant
            recorded.revokedBy = revokedBy
            recorded.revokeReason = revokeReason
            record.grants.append(recorded)
            var members: [(String, JSONValue)] = [
                ("id", .string(grant.id.string)), ("entitlement", .string(grant.entitlement.string)),
                ("grantedAt", .string(ISODate.format(grant.grantedAt))),
                ("expirationDate", grant.expirationDate.map { .string(ISODate.format($0)) } ?? .null),
                ("grantedBy", .string("dana")),
            ]
            if let r = grant.reason { members.append(("reason", .string(r))) }
            if let r = grant.revokedAt { members.append(("revokedAt", .string(ISODate.format(r)))) }
            if let by = revokedBy { members.append(("revokedBy", .string(by))) }
            if let why = revokeReason { members.append(("revokeReason", .string(why))) }
            grantsJSON.append(.object(JSONObject(members)))
        }

        var json: [(String, JSONValue)] = []
        if Bool.random(using: &g) { json.append(("aliases", .array([.string("\(id)-alias")]))); record.aliases = ["\(id)-alias"] }
        json.append(("x-note", .string("kept \u{e9}\u{1F600}")))
        json.append(("transactions", .array(transactionsJSON)))
        if !eventsJSON.isEmpty || Bool.random(using: &g) { json.append(("events", .array(eventsJSON))) }
        if !grantsJSON.isEmpty || Bool.random(using: &g) { json.append(("grants", .array(grantsJSON))) }
        return (record, JSONObject(json))
    }

    /// A whole store of customers, written compact or pretty (two spaces, four, or a tab).
    package static func store(_ customers: [(id: ID, json: JSONObject)], _ g: inout SeededGenerator) -> String {
        let root = JSONValue.object(JSONObject([
            ("schemaVersion", .number("1")),
            ("products", .object(JSONObject(catalogJSON))),
            ("customers", .object(JSONObject(customers.map { ($0.id.string, JSONValue.object($0.json)) }))),
            ("x-meta", .object(JSONObject([("generator", .string("property tests"))]))),
        ]))
        switch Int.random(in: 0..<4, using: &g) {
        case 0: return JSONWriter.compact(root) + "\n"
        case 1: return JSONWriter.pretty(root, indent: "    ") + "\n"
        case 2: return JSONWriter.pretty(root, indent: "\t") + "\n"
        default: return JSONWriter.pretty(root) + "\n"
        }
    }

    /// Instants worth checking for a record: every date in it, a second either side, and a few
    /// random ones, sorted.
    package static func instants(for record: CustomerRecord, _ g: inout SeededGenerator) -> [Instant] {
        var dates: [Instant] = []
        for t in record.transactions { dates += [t.transactionDate] + [t.expirationDate, t.revocationDate].compactMap { $0 } }
        for e in record.events { dates += [e.date] + [e.autoResumeDate].compactMap { $0 } }
        for gr in record.grants { dates += [gr.grantedAt] + [gr.expirationDate, gr.revokedAt].compactMap { $0 } }
        // The grace and retry ends of every period.
        for t in record.transactions {
            guard let e = t.expirationDate, let p = catalog[t.productId] else { continue }
            if let grace = p.gracePeriod { dates.append(e.adding(grace)!) }
            dates.append(e.adding(p.billingRetryPeriod)!)
        }
        var all = dates.flatMap { [$0.adding(seconds: -1)!, $0, $0.adding(seconds: 1)!] }
        for _ in 0..<5 { all.append(date(&g, from: origin.adding(seconds: -30 * 86_400)!, withinDays: 600)) }
        // At most 40 of them (a seeded choice), so that a few hundred customers stay fast in debug.
        var unique = Array(Set(all)).sorted()
        while unique.count > 40 { unique.remove(at: Int.random(in: 0..<unique.count, using: &g)) }
        return unique
    }
}

/// A temporary directory removed when the value goes.
package final class TempDirectory {
    package let path: String
    package init() throws {
        path = NSTemporaryDirectory() + "subs-property-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
