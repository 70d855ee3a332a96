// SPEC section 7: work grows linearly with one customer's records. Each test feeds one customer
// sizes at which any per-record scan over all records (quadratic work) would not finish within
// the suite's time budget — 200 000 aliases, 20 000 transactions + 20 000 events + 5 000 grants —
// and checks the answers, so a fast wrong shortcut fails too. No timing is asserted.

import SubsJSON
@testable import SubsModel
@testable import SubsStore
import XCTest

final class LinearWorkTests: XCTestCase {
    // MARK: - Aliases

    func testTwoHundredThousandAliasesDecodeWithDuplicatesReported() throws {
        let count = 200_000
        var aliases = (0..<count).map { JSONValue.string("alias-\($0)") }
        aliases.append(.string("alias-7"))        // a duplicate of an early one
        aliases.append(.string("alias-199999"))   // and of the last one
        let customer = JSONValue.object(JSONObject([("aliases", .array(aliases))]))

        var decoder = RecordDecoder()
        let record = try XCTUnwrap(decoder.customer(id: "u", customer, catalog: Catalog([]), path: "customers.u"))
        XCTAssertEqual(record.aliases.count, count + 2)
        XCTAssertEqual(decoder.problems, [
            StoreProblem(path: "customers.u.aliases[200000]", message: "duplicate alias 'alias-7'"),
            StoreProblem(path: "customers.u.aliases[200001]", message: "duplicate alias 'alias-199999'"),
        ])
    }

    // MARK: - Transactions, events, grants

    private let catalog = Catalog([
        Product(id: "m", type: .subscription, entitlements: ["premium", "extra"], gracePeriod: ISODuration(days: 16)),
        Product(id: "n", type: .subscription, entitlements: ["premium"]),
        Product(id: "life", type: .nonConsumable, entitlements: ["premium"]),
    ])

    /// 20 000 hourly transactions spread over `chains` chains, one event after each, and 5 000
    /// daily grants (every tenth one revoked), all from 2020-01-01 on.
    private func bigCustomer(chains: Int) -> CustomerRecord {
        let start = at("2020-01-01").seconds
        func hour(_ n: Int, plus seconds: Int64 = 0) -> Instant { Instant(seconds: start + Int64(n) * 3600 + seconds) }
        var record = CustomerRecord(id: "big")
        let eventTypes: [EventType] = [.billingIssue, .billingRecovered, .autoRenewDisabled, .autoRenewEnabled]
        for i in 0..<20_000 {
            let chain: ID = "c\(i % chains)"
            record.transactions.append(Transaction(
                transactionId: "t\(i)", originalTransactionId: chain, productId: i % 3 == 0 ? "n" : "m",
                type: i < chains ? .subscriptionStarted : .subscriptionRenewed, transactionDate: hour(i),
                expirationDate: hour(i, plus: 30 * 86_400), revocationDate: i % 97 == 0 ? hour(i, plus: 60) : nil))
            record.events.append(SubscriptionEvent(type: eventTypes[i % 4], date: hour(i, plus: 120),
                                                   originalTransactionId: chain))
        }
        for i in 0..<5_000 {
            record.grants.append(Grant(id: "g\(i)", entitlement: i % 2 == 0 ? "premium" : "extra",
                                       grantedAt: hour(i * 24), expirationDate: hour(i * 24, plus: 86_400),
                                       revokedAt: i % 10 == 0 ? hour(i * 24, plus: 3600) : nil))
        }
        return record
    }

    func testHistoryOfABigCustomerIsCompleteAndOrdered() {
        for chains in [1, 50] {
            let record = bigCustomer(chains: chains)
            let entries = History.entries(of: record, catalog: catalog, until: at("2040-01-01"))
            let refunds = (0..<20_000).filter { $0 % 97 == 0 }.count
            XCTAssertEqual(entries.count, 20_000 + refunds + 20_000 + 5_000 + 500)
            XCTAssertTrue(zip(entries, entries.dropFirst()).allSatisfy { $0.date <= $1.date })
            // Every chain holds both products, so every event concerns both entitlements.
            let events = entries.filter { $0.kind == .event }
            XCTAssertEqual(events.count, 20_000)
            XCTAssertTrue(events.allSatisfy { $0.entitlements == ["extra", "premium"] }, "chains: \(chains)")
            XCTAssertEqual(entries.filter { $0.kind == .transaction && $0.field("productId") == .string("n") }
                .allSatisfy { $0.entitlements == ["premium"] }, true)
        }
    }

    func testHistoryCutsEachChainAtItsEnd() {
        // Cut after the first three transactions: chains c0..c2 exist, each with one product.
        let record = bigCustomer(chains: 50)
        let until = Instant(seconds: at("2020-01-01").seconds + 2 * 3600 + 120)
        let events = History.entries(of: record, catalog: catalog, until: until).filter { $0.kind == .event }
        XCTAssertEqual(events.map(\.entitlements), [["premium"], ["extra", "premium"], ["extra", "premium"]])
    }

    func testRulesOnABigCustomer() throws {
        for chains in [1, 50] {
            let record = bigCustomer(chains: chains)
            let t = at("2022-04-01")
            let result = EntitlementRules.evaluate(record, catalog: catalog, at: t)
            XCTAssertEqual(result.map(\.id), ["extra", "premium"])
            let premium = try XCTUnwrap(result.first { $0.id == "premium" })
            XCTAssertTrue(premium.isActive)
            XCTAssertEqual(premium.sourceKind, .chain)
            // Paid, live transactions of the describing chain up to T, minus one.
            let chainId = try XCTUnwrap(premium.transactions.first?.originalTransactionId)
            let paid = record.transactions.filter {
                $0.originalTransactionId == chainId && $0.transactionDate <= t
                    && ($0.revocationDate.map { $0 > t } ?? true)
            }
            XCTAssertEqual(premium.renewsCount, paid.count - 1, "chains: \(chains)")
            XCTAssertEqual(premium.transactions.count, record.transactions.filter {
                $0.originalTransactionId == chainId && $0.transactionDate <= t
            }.count)
        }
    }
}
