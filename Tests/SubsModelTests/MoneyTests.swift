// Money (SPEC section 4, rev. 4): exact decimals read as platforms write them, sums checked
// against an independent big-integer sum, and which transactions of the store are payments.

import XCTest
@testable import SubsModel
import TestSupport

final class MoneyTests: XCTestCase {
    func testDecimalsAreReadExactlyAndShownInTheCurrencysMinorUnits() throws {
        let cases: [(String, String, String)] = [("9.99", "USD", "9.99"), ("10", "USD", "10.00"), ("1200", "JPY", "1200"),
                                                 ("1.5E1", "EUR", "15.00"), ("0009.900", "USD", "9.90"), ("2.5e-3", "KWD", "0.0025"),
                                                 ("0.001", "USD", "0.001"), ("0", "USD", "0.00"), ("19.90", "BHD", "19.900")]
        for (text, currency, shown) in cases {
            let amount = try XCTUnwrap(DecimalAmount(exactly: text), text)
            XCTAssertEqual(CurrencyCode.format(amount, currency), shown, text)
        }
        for malformed in ["", "-1", "-0.5", "+1", "1,00", " 1", "1 ", "9.", ".5", "NaN", "Infinity", "1e999", "1e", "0x10",
                          "1.2.3", "１", "1e41", String(repeating: "9", count: 41), "9.99\u{0}"] {
            XCTAssertNil(DecimalAmount(exactly: malformed), "'\(malformed)' is no price")
        }
        XCTAssertEqual(DecimalAmount(micros: 9_990_000)?.text(), "9.99")
        XCTAssertNil(DecimalAmount(micros: -1))
    }

    func testSumsAreExactWhereFloatingPointIsNot() throws {
        let tenth = try XCTUnwrap(DecimalAmount(exactly: "0.1")), fifth = try XCTUnwrap(DecimalAmount(exactly: "0.2"))
        XCTAssertEqual((tenth + fifth).text(), "0.3")
        XCTAssertNotEqual(0.1 + 0.2, 0.3) // the reason no Double is on this path
        var total = DecimalAmount.zero
        for _ in 0..<10_000 { total += try XCTUnwrap(DecimalAmount(exactly: "9.99")) }
        XCTAssertEqual(total.text(), "99900")
        XCTAssertTrue(try XCTUnwrap(DecimalAmount(exactly: "9.99")) < XCTUnwrap(DecimalAmount(exactly: "10")))
        XCTAssertEqual(DecimalAmount(exactly: "1.50"), DecimalAmount(exactly: "1.5"))
    }

    /// Random amounts (up to 30 integer digits, up to 8 fractional), summed by DecimalAmount and
    /// by an independent sum on base-10^9 limbs of the amounts scaled to 8 decimals.
    func testSumsEqualAnIndependentBigIntegerSum() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"] ?? "") ?? 35
        var rng = SeededRandom(seed: seed)
        for round in 0..<300 {
            var total = DecimalAmount.zero
            var limbs: [UInt64] = [] // little-endian, base 10^9, value × 10^8
            let count = Int.random(in: 0...40, using: &rng)
            for _ in 0..<count {
                let integerDigits = Int.random(in: 1...30, using: &rng), fractionDigits = Int.random(in: 0...8, using: &rng)
                let integer = String((0..<integerDigits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
                let fraction = String((0..<fractionDigits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
                let text = fraction.isEmpty ? integer : integer + "." + fraction
                total += try XCTUnwrap(DecimalAmount(exactly: text), text)
                let scaled = integer + fraction + String(repeating: "0", count: 8 - fractionDigits)
                var addend: [UInt64] = []
                var end = scaled.endIndex
                while end > scaled.startIndex {
                    let start = scaled.index(end, offsetBy: -9, limitedBy: scaled.startIndex) ?? scaled.startIndex
                    addend.append(UInt64(scaled[start..<end])!)
                    end = start
                }
                var carry: UInt64 = 0
                for i in 0..<max(limbs.count, addend.count) {
                    let sum = (i < limbs.count ? limbs[i] : 0) + (i < addend.count ? addend[i] : 0) + carry
                    if i < limbs.count { limbs[i] = sum % 1_000_000_000 } else { limbs.append(sum % 1_000_000_000) }
                    carry = sum / 1_000_000_000
                }
                if carry > 0 { limbs.append(carry) }
            }
            var digits = limbs.reversed().enumerated().map { $0.offset == 0 ? String($0.element) : String(repeating: "0", count: 9 - String($0.element).count) + String($0.element) }.joined()
            if digits.isEmpty { digits = "0" }
            digits = String(repeating: "0", count: max(0, 9 - digits.count)) + digits
            let expected = String(digits.dropLast(8)).drop { $0 == "0" } + "." + digits.suffix(8)
            let normalizedExpected = (expected.hasPrefix(".") ? "0" + expected : String(expected))
            XCTAssertEqual(total.text(minimumFraction: 8), normalizedExpected, "seed \(seed), round \(round)")
        }
    }

    private func paid(_ id: String, _ type: TransactionType = .subscriptionRenewed, on day: String, micros: Int64? = 9_990_000,
                      currency: String? = "USD", revoked: String? = nil, sandbox: Bool = false,
                      family: Bool = false) -> Transaction {
        Transaction(transactionId: ID(id), originalTransactionId: ID("chain"), productId: ID("pro_monthly"), type: type,
                    transactionDate: at(day), expirationDate: at(day).adding(seconds: 86_400 * 30),
                    environment: sandbox ? .sandbox : .production, ownershipType: family ? .familySharing : .owner,
                    revocationDate: revoked.map { at($0) }, priceMicros: micros, currency: micros == nil ? nil : currency)
    }

    func testPaymentsAreWhatTheCustomerPaidUpToT() {
        let record = CustomerRecord(id: ID("c"), transactions: [
            paid("trial", .trialStarted, on: "2026-01-01", micros: nil),           // a free trial: no payment
            paid("t1", .subscriptionStarted, on: "2026-01-08"),
            paid("t2", on: "2026-02-08", revoked: "2026-02-10"),                   // refunded: counted, not summed
            paid("t3", on: "2026-03-08", micros: 0),                               // a free period
            paid("t4", on: "2026-04-08", micros: 8_990_000, currency: "EUR"),
            paid("t5", on: "2026-05-08", micros: nil),                             // no price kept
            paid("t6", on: "2026-06-08", family: true),                            // the organiser paid
            paid("t7", on: "2026-07-08", sandbox: true),
            paid("t8", on: "2026-12-08"),                                          // after T
        ])
        let totals = Spent.spending(of: record, at: at("2026-11-01")).totals
        XCTAssertEqual(totals, [
            SpentTotal(currency: "EUR", amount: DecimalAmount(exactly: "8.99"), payments: 1, refunded: 0, incompleteReason: nil),
            SpentTotal(currency: "USD", amount: DecimalAmount(exactly: "19.98"), payments: 3, refunded: 1, incompleteReason: nil),
            SpentTotal(currency: nil, amount: nil, payments: 1, refunded: 0,
                       incompleteReason: "the store keeps no price (priceMicros) for some payments"),
        ])
        let production = Spent.spending(of: record, at: at("2026-11-01")).counting(.production).totals
        XCTAssertEqual(production.first { $0.currency == "USD" }?.payments, 2)
        XCTAssertEqual(production.first { $0.currency == "USD" }?.amount?.text(), "9.99")
        // A refund dated after T has not happened yet.
        XCTAssertEqual(Spent.spending(of: record, at: at("2026-02-09")).totals.first?.refunded, 0)
        XCTAssertEqual(Spent.spending(of: CustomerRecord(id: ID("none")), at: at("2026-11-01")).totals, [])
    }

    func testIncompleteReasonsStayWithTheirCurrency() {
        let spending = Spending(payments: [
            Payment(price: DecimalAmount(exactly: "5"), currency: "USD", incompleteReason: "only the latest"),
            Payment(price: DecimalAmount(exactly: "7"), currency: "EUR"),
            Payment(price: DecimalAmount(exactly: "59.94"), currency: "USD", count: nil),
        ])
        let totals = spending.totals
        XCTAssertEqual(totals.map(\.currency), ["EUR", "USD"])
        XCTAssertTrue(totals[0].complete)
        XCTAssertEqual(totals[1].incompleteReason, "only the latest")
        XCTAssertNil(totals[1].payments, "a sum whose payments the provider does not count has no count")
        XCTAssertEqual(totals[1].amount?.text(), "64.94")
        var noRefunds = spending
        noRefunds.incompleteReason = "no refunds"
        XCTAssertEqual(noRefunds.totals.map(\.incompleteReason), ["no refunds", "only the latest; no refunds"])
    }
}
