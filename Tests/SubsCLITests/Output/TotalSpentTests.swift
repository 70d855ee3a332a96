// `totalSpent` (SPEC section 4, "Money", rev. 4) as `check` prints it: the JSON shape, the line
// under the entitlements, the TSV/CSV cells, the transactions' and history's prices, the store's
// money fields validated, and `--remote` through subs serve answering what the store answers.

import XCTest
import SubsJSON
@testable import SubsCLI

final class TotalSpentTests: XCTestCase {
    private static let store = """
    {"schemaVersion": 1,
     "products": {"m": {"type": "subscription", "entitlements": ["premium"]},
                  "coins": {"type": "consumable", "entitlements": []}},
     "customers": {
       "payer": {"transactions": [
         {"transactionId": "t0", "originalTransactionId": "t0", "productId": "m", "type": "trialStarted",
          "transactionDate": "2026-01-01T00:00:00Z", "expirationDate": "2026-01-08T00:00:00Z"},
         {"transactionId": "t1", "originalTransactionId": "t0", "productId": "m", "type": "subscriptionStarted",
          "transactionDate": "2026-01-08T00:00:00Z", "expirationDate": "2026-02-08T00:00:00Z", "priceMicros": 9990000, "currency": "USD"},
         {"transactionId": "t2", "originalTransactionId": "t0", "productId": "m", "type": "subscriptionRenewed",
          "transactionDate": "2026-02-08T00:00:00Z", "expirationDate": "2026-03-08T00:00:00Z", "priceMicros": 9990000, "currency": "USD",
          "transactionRevocationDate": "2026-02-10T00:00:00Z"},
         {"transactionId": "t3", "originalTransactionId": "t3", "productId": "coins", "type": "consumablePurchase",
          "transactionDate": "2026-02-20T00:00:00Z", "priceMicros": 1200000000, "currency": "JPY"},
         {"transactionId": "t4", "originalTransactionId": "t0", "productId": "m", "type": "subscriptionRenewed",
          "transactionDate": "2026-03-08T00:00:00Z", "expirationDate": "2026-04-08T00:00:00Z", "priceMicros": 9990000, "currency": "USD"}]},
       "unpriced": {"transactions": [
         {"transactionId": "u1", "originalTransactionId": "u1", "productId": "m", "type": "subscriptionStarted",
          "transactionDate": "2026-01-08T00:00:00Z", "expirationDate": "2026-02-08T00:00:00Z"}]},
       "granted": {"grants": [{"id": "g", "entitlement": "premium", "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": null}]}}}
    """

    private var dir: TempDir!
    private var path: String!

    override func setUp() {
        dir = TempDir()
        path = dir.write("store.json", Self.store)
    }

    private func check(_ args: [String]) -> CLIResult {
        runCLI(["--store", path, "check"] + args + ["--at", "2026-03-10T00:00:00Z"])
    }

    func testJSONCarriesOneTotalPerCurrencyWithRefundsSubtracted() throws {
        let result = check(["payer", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        let totals = try XCTUnwrap(doc["totalSpent"]?.arrayValue)
        XCTAssertEqual(totals.map { $0.objectValue?.keys ?? [] },
                       Array(repeating: ["currency", "amount", "payments", "refunded", "complete", "incompleteReason"], count: 2))
        XCTAssertEqual(totals[0]["currency"], .string("JPY"))
        XCTAssertEqual(totals[0]["amount"], .string("1200"))
        XCTAssertEqual(totals[1]["currency"], .string("USD"))
        XCTAssertEqual(totals[1]["amount"], .string("19.98"), "three payments of 9.99, one refunded")
        XCTAssertEqual(totals[1]["payments"], .number("3"))
        XCTAssertEqual(totals[1]["refunded"], .number("1"))
        XCTAssertEqual(totals[1]["complete"], .bool(true))
        XCTAssertEqual(totals[1]["incompleteReason"], .null)
        let transactions = try XCTUnwrap(doc["entitlements"]?["premium"]?["transactions"]?.arrayValue)
        XCTAssertEqual(transactions.map { $0["price"] }, [.null, .string("9.99"), .string("9.99"), .string("9.99")])
        XCTAssertEqual(transactions.map { $0["currency"] }, [.null, .string("USD"), .string("USD"), .string("USD")])
    }

    func testTheTableSaysItInOneLineUnderTheEntitlements() {
        let result = check(["payer"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stdout.hasSuffix("\nspent JPY 1200 in 1 payment; USD 19.98 in 3 payments, 1 refunded\n"), result.stdout)
        // Nothing priced, nothing paid: no line (JSON still counts the unpriced payment).
        XCTAssertFalse(check(["unpriced"]).stdout.contains("spent"))
        XCTAssertFalse(check(["granted"]).stdout.contains("spent"))
    }

    func testJSONSaysWhatItCannotCount() throws {
        let unpriced = try JSON.parse(check(["unpriced", "--json"]).stdout)
        XCTAssertEqual(unpriced["totalSpent"]?.arrayValue?.first?["currency"], .null)
        XCTAssertEqual(unpriced["totalSpent"]?.arrayValue?.first?["amount"], .null)
        XCTAssertEqual(unpriced["totalSpent"]?.arrayValue?.first?["payments"], .number("1"))
        XCTAssertEqual(unpriced["totalSpent"]?.arrayValue?.first?["complete"], .bool(false))
        XCTAssertEqual(try JSON.parse(check(["granted", "--json"]).stdout)["totalSpent"], .array([]))
    }

    func testTSVAndCSVCarryTheSameTotals() throws {
        let tsv = check(["payer", "granted", "--format", "tsv"]).stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = tsv[0]
        let row = Dictionary(uniqueKeysWithValues: zip(header, tsv[1]))
        XCTAssertEqual(row["spent"], "JPY 1200;USD 19.98")
        XCTAssertEqual(row["payments"], "4")
        XCTAssertEqual(row["refunded"], "1")
        XCTAssertEqual(row["spentComplete"], "true")
        XCTAssertEqual(header.last, "error")
        let granted = Dictionary(uniqueKeysWithValues: zip(header, tsv[2]))
        XCTAssertEqual([granted["spent"], granted["payments"], granted["refunded"], granted["spentComplete"]], ["", "0", "0", "true"])
        let csv = check(["payer", "--format", "csv"]).stdout
        XCTAssertTrue(csv.contains(",JPY 1200;USD 19.98,4,1,true,"), csv)
    }

    func testHistoryEntriesCarryThePrice() throws {
        let doc = try JSON.parse(runCLI(["--store", path, "history", "payer", "--json", "--at", "2026-03-10T00:00:00Z"]).stdout)
        let paid = try XCTUnwrap(doc["entries"]?.arrayValue?.filter { $0["kind"] == .string("transaction") })
        XCTAssertEqual(paid.map { $0["price"] }, [.null, .string("9.99"), .string("9.99"), .string("1200"), .string("9.99")])
        XCTAssertEqual(paid.map { $0["currency"] }, [.null, .string("USD"), .string("USD"), .string("JPY"), .string("USD")])
    }

    func testMalformedMoneyInTheStoreIsADataErrorWithItsPath() {
        let bad: [(String, String)] = [
            (#""priceMicros": -5, "currency": "USD""#, "priceMicros: must not be negative"),
            (#""priceMicros": 9.99, "currency": "USD""#, "priceMicros: expected a whole number of millionths"),
            (#""priceMicros": 1e6, "currency": "USD""#, "priceMicros: expected a whole number of millionths"),
            (#""priceMicros": "9990000", "currency": "USD""#, "priceMicros: expected number"),
            (#""priceMicros": 99999999999999999999, "currency": "USD""#, "priceMicros: 99999999999999999999 is too large"),
            (#""priceMicros": 9990000"#, "currency: required with priceMicros"),
            (#""priceMicros": 9990000, "currency": "usd""#, "currency: expected an ISO 4217 code"),
            (#""priceMicros": 9990000, "currency": "US\u001bD""#, "currency: expected an ISO 4217 code"),
        ]
        for (fields, message) in bad {
            let store = dir.write("bad.json", """
            {"schemaVersion": 1, "products": {"m": {"type": "subscription", "entitlements": ["premium"]}},
             "customers": {"c": {"transactions": [{"transactionId": "t", "originalTransactionId": "t", "productId": "m",
               "type": "subscriptionStarted", "transactionDate": "2026-01-01T00:00:00Z",
               "expirationDate": "2026-02-01T00:00:00Z", \(fields)}]}}}
            """)
            let result = runCLI(["--store", store, "check", "c"])
            XCTAssertEqual(result.status.rawValue, 65, "\(fields): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("customers.c.transactions[0].\(message)"), "\(fields): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("\u{1b}"), "escaped")
        }
    }

    func testRemoteThroughServeAnswersWhatTheStoreAnswers() throws {
        let server = try LoopbackSubsServer(store: path, token: "t0ken")
        defer { server.stop() }
        for format in [["--json"], ["--format", "tsv"], []] {
            let here = check(["payer", "unpriced", "granted"] + format)
            let there = runCLI(["--remote", server.base, "check", "payer", "unpriced", "granted", "--at", "2026-03-10T00:00:00Z"] + format,
                               env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"])
            XCTAssertEqual(there.status, here.status, there.stderr)
            XCTAssertEqual(there.stdout, here.stdout, "\(format)")
        }
    }

    /// Generated stores (consumables in four currencies, prices up to Int64.max millionths, some
    /// refunded): `check --json`'s amounts equal an independent big-integer sum of the micros.
    func testTotalsEqualAnIndependentBigIntegerSumOnGeneratedStores() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"] ?? "") ?? 3_535
        var rng = SeededRandom(seed: seed)
        let currencies = [("EUR", 2), ("JPY", 0), ("KWD", 3), ("USD", 2)]
        for round in 0..<12 {
            var transactions: [String] = []
            var sums: [String: [UInt64]] = [:] // base 10^9 limbs, little-endian
            var counts: [String: (payments: Int, refunded: Int)] = [:]
            for i in 0..<Int.random(in: 1...30, using: &rng) {
                let (currency, _) = currencies.randomElement(using: &rng)!
                let micros: Int64 = Bool.random(using: &rng) ? Int64.random(in: 1...Int64.max, using: &rng)
                                                            : Int64.random(in: 1...1_000_000_000, using: &rng)
                let refunded = Int.random(in: 0..<5, using: &rng) == 0
                transactions.append("""
                {"transactionId": "t\(i)", "originalTransactionId": "t\(i)", "productId": "coins", "type": "consumablePurchase",
                 "transactionDate": "2026-01-0\(1 + i % 9)T00:00:00Z", "priceMicros": \(micros), "currency": "\(currency)"\(refunded ? #", "transactionRevocationDate": "2026-02-01T00:00:00Z""# : "")}
                """)
                counts[currency, default: (0, 0)].payments += 1
                if refunded { counts[currency]!.refunded += 1; continue }
                var limbs = sums[currency] ?? []
                var addend: [UInt64] = []
                var rest = UInt64(micros)
                while rest > 0 { addend.append(rest % 1_000_000_000); rest /= 1_000_000_000 }
                var carry: UInt64 = 0
                for j in 0..<max(limbs.count, addend.count) {
                    let sum = (j < limbs.count ? limbs[j] : 0) + (j < addend.count ? addend[j] : 0) + carry
                    if j < limbs.count { limbs[j] = sum % 1_000_000_000 } else { limbs.append(sum % 1_000_000_000) }
                    carry = sum / 1_000_000_000
                }
                if carry > 0 { limbs.append(carry) }
                sums[currency] = limbs
            }
            let store = dir.write("generated.json", """
            {"schemaVersion": 1, "products": {"coins": {"type": "consumable", "entitlements": []}},
             "customers": {"g": {"transactions": [\(transactions.joined(separator: ","))]}}}
            """)
            let result = runCLI(["--store", store, "check", "g", "--json", "--at", "2026-03-01T00:00:00Z"])
            XCTAssertEqual(result.status, .success, "seed \(seed) round \(round): \(result.stderr)")
            let totals = try XCTUnwrap(JSON.parse(result.stdout)["totalSpent"]?.arrayValue)
            let expected = currencies.filter { counts[$0.0] != nil }
            XCTAssertEqual(totals.map { $0["currency"]?.stringValue }, expected.map { $0.0 }, "seed \(seed) round \(round)")
            for (total, (currency, minor)) in zip(totals, expected) {
                // The micros' decimal digits, the point six from the right, zeros trimmed to the minor units.
                let limbs = sums[currency] ?? []
                var digits = limbs.reversed().enumerated().map { index, limb in
                    index == 0 ? String(limb) : String(repeating: "0", count: 9 - String(limb).count) + String(limb)
                }.joined()
                digits = String(repeating: "0", count: max(0, 7 - digits.count)) + digits
                var integer = String(digits.dropLast(6)), fraction = String(digits.suffix(6))
                integer = String(integer.drop { $0 == "0" })
                if integer.isEmpty { integer = "0" }
                while fraction.count > minor, fraction.hasSuffix("0") { fraction.removeLast() }
                let text = fraction.isEmpty ? integer : integer + "." + fraction
                XCTAssertEqual(total["amount"], .string(text), "seed \(seed) round \(round) \(currency)")
                XCTAssertEqual(total["payments"], .number(String(counts[currency]!.payments)))
                XCTAssertEqual(total["refunded"], .number(String(counts[currency]!.refunded)))
            }
        }
    }
}
