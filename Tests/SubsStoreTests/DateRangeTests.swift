// SPEC section 7: every instant subs reads or writes lies in years 0001–9999. Parsing refuses
// anything outside (year 0000, five-digit years, offsets across an edge), date arithmetic is
// checked (nil instead of a year-10000 instant or an overflow trap), and the store decoder
// reports a stored date plus a stored period that leaves the range.

import SubsJSON
@testable import SubsModel
@testable import SubsStore
import XCTest

final class DateRangeTests: XCTestCase {
    // MARK: - Parsing

    func testParseAcceptsBothEdgesExactly() throws {
        XCTAssertEqual(ISODate.parse("0001-01-01T00:00:00Z"), Instant.earliest)
        XCTAssertEqual(ISODate.parse("0001-01-01T01:00:00+01:00"), Instant.earliest)
        XCTAssertEqual(ISODate.parse("9999-12-31T23:59:59.999999999Z"), Instant.latest)
        XCTAssertEqual(ISODate.parse("9999-12-31T22:59:59.999999999-01:00"), Instant.latest)
        XCTAssertEqual(ISODate.format(Instant.earliest), "0001-01-01T00:00:00Z")
        XCTAssertEqual(ISODate.format(Instant.latest), "9999-12-31T23:59:59Z")
        XCTAssertEqual(ISODate.parseInput("0001-01-01", now: Instant(seconds: 0)), Instant.earliest)
        XCTAssertNotNil(ISODate.parseInput("9999-12-31", now: Instant(seconds: 0)))
    }

    func testParseRefusesInstantsOutsideTheRange() {
        let outside = [
            "0000-01-01T00:00:00Z", "0000-12-31T23:59:59.999Z", "0000-02-29T12:00:00Z",
            // Offsets that carry an in-range local time across an edge.
            "9999-12-31T23:30:00-01:00", "9999-12-31T23:59:59.5-00:01", "0001-01-01T00:30:00+01:00",
            "0001-01-01T00:00:00+00:01",
            // Years that do not fit in four digits.
            "10000-01-01T00:00:00Z", "99999-12-31T00:00:00Z", "-0001-01-01T00:00:00Z", "-2026-03-01T00:00:00Z",
        ]
        for text in outside {
            XCTAssertNil(ISODate.parse(text), text)
            XCTAssertThrowsError(try ISODate.read(text), text) { error in
                XCTAssertEqual(error as? ISODateProblem, .outOfRange, text)
            }
            XCTAssertNil(ISODate.parseInput(text, now: Instant(seconds: 0)), text)
        }
        for day in ["0000-01-01", "0000-12-31", "10000-01-01", "-0001-12-31"] {
            XCTAssertThrowsError(try ISODate.readInput(day, now: Instant(seconds: 0)), day) { error in
                XCTAssertEqual(error as? ISODateProblem, .outOfRange, day)
            }
        }
        // Malformed stays malformed, not "out of range".
        for text in ["2026-02-30T00:00:00Z", "yesterday", "+2026-03-01T12:00:00Z", "2026-03-01T12:00:00"] {
            XCTAssertThrowsError(try ISODate.read(text), text) { error in
                XCTAssertEqual(error as? ISODateProblem, .malformed, text)
            }
        }
    }

    // MARK: - Arithmetic

    func testAddingStopsAtTheEndOfYear9999() {
        let now = at("2026-12-01T12:00:00Z")
        XCTAssertEqual(now.adding(ISODuration(years: 7973)), at("9999-12-01T12:00:00Z"))
        XCTAssertNil(now.adding(ISODuration(years: 7974)))
        XCTAssertNil(now.adding(ISODuration(months: 7973 * 12 + 1)))
        XCTAssertNil(now.adding(ISODuration(days: 2_913_000)))
        XCTAssertNil(now.adding(ISODuration(weeks: 416_200)))
        XCTAssertNil(now.adding(ISODuration(hours: 69_912_000)))
        XCTAssertNil(now.adding(ISODuration(seconds: 999_999_999)).flatMap { $0.adding(ISODuration(years: 7973)) })
        XCTAssertEqual(at("9999-11-30").adding(ISODuration(months: 1)), at("9999-12-30"))
        XCTAssertNil(at("9999-12-01").adding(ISODuration(months: 1)))
        XCTAssertNil(at("9999-12-31T00:00:00Z").adding(ISODuration(days: 1)))
        XCTAssertEqual(at("9999-12-31T23:59:58Z").adding(ISODuration(seconds: 1)), at("9999-12-31T23:59:59Z"))
        XCTAssertNil(Instant.latest.adding(ISODuration(seconds: 1)))
        XCTAssertNil(Instant.latest.adding(seconds: 1))
        XCTAssertEqual(Instant.latest.adding(ISODuration()), Instant.latest)
    }

    func testAddingStopsAtTheStartOfYear0001() {
        XCTAssertNil(Instant.earliest.adding(seconds: -1))
        XCTAssertNil(at("0001-01-15").adding(ISODuration(months: -1)))
        XCTAssertNil(at("0001-06-01").adding(ISODuration(years: -1)))
        XCTAssertNil(at("0001-01-01T00:00:01Z").adding(ISODuration(seconds: -2)))
        XCTAssertEqual(at("0001-02-15").adding(ISODuration(months: -1)), at("0001-01-15"))
    }

    func testAddingNeverTrapsOnOverflow() {
        let now = at("2026-03-01")
        for huge in [ISODuration(years: .max), ISODuration(years: .min), ISODuration(months: .max),
                     ISODuration(years: .max / 12, months: .max), ISODuration(weeks: .max), ISODuration(days: .min),
                     ISODuration(hours: .max), ISODuration(minutes: .min), ISODuration(seconds: .max),
                     ISODuration(weeks: .max / 604_800, days: .max / 86_400),
                     ISODuration(years: 999_999_999, months: 999_999_999, weeks: 999_999_999, days: 999_999_999,
                                 hours: 999_999_999, minutes: 999_999_999, seconds: 999_999_999)] {
            XCTAssertNil(now.adding(huge), "\(huge)")
        }
        // Hand-built instants far outside the range are refused, not computed on.
        for wild in [Instant(seconds: .max), Instant(seconds: .min), Instant(seconds: Instant.latest.seconds + 1)] {
            XCTAssertNil(wild.adding(ISODuration(months: 1)))
            XCTAssertNil(wild.adding(ISODuration(days: 1)))
            XCTAssertNil(wild.adding(seconds: 1))
        }
        XCTAssertNil(now.adding(seconds: .max))
        XCTAssertNil(now.adding(seconds: .min))
    }

    func testRelativeDisplayNeverTraps() {
        // 9999 calendar years are 10 005 years of 365 days, the unit "y" counts.
        XCTAssertEqual(ISODate.relative(Instant.latest, now: Instant.earliest), "in 10005y")
        XCTAssertEqual(ISODate.relative(Instant.earliest, now: Instant.latest), "10005y ago")
        XCTAssertTrue(ISODate.relative(Instant(seconds: .max), now: Instant(seconds: .min)).hasPrefix("in "))
        XCTAssertTrue(ISODate.relative(Instant(seconds: .min), now: Instant(seconds: .max)).hasSuffix(" ago"))
    }

    func testAPeriodFitsWhenSomeDatePlusItStaysInRange() {
        XCTAssertTrue(ISODuration(years: 9998).fitsSupportedRange)
        XCTAssertTrue(ISODuration(days: 60).fitsSupportedRange)
        XCTAssertFalse(ISODuration(years: 9999).fitsSupportedRange)
        XCTAssertFalse(ISODuration(months: 999_999_999).fitsSupportedRange)
        XCTAssertFalse(ISODuration(days: 999_999_999).fitsSupportedRange)
        XCTAssertFalse(ISODuration.parse("P999999999Y")!.fitsSupportedRange)
    }

    // MARK: - Rules

    func testRulesNeverTrapOnAPeriodPastYear9999() throws {
        // The store refuses such a record; built by hand it still evaluates, the period lasting
        // to the end of year 9999.
        let catalog = Catalog([Product(id: "m", type: .subscription, entitlements: ["premium"],
                                       gracePeriod: ISODuration(years: 999_999_999),
                                       billingRetryPeriod: ISODuration(years: 999_999_999))])
        let b = RecordBuilder().subscription("t1", product: "m", on: "9999-01-01", expires: "9999-12-01")
            .event(.billingIssue, on: "9999-12-01")
        let e = try XCTUnwrap(b.evaluate(at: "9999-12-31T23:59:59Z", catalog: catalog).first)
        XCTAssertEqual(e.state, .gracePeriod)
        XCTAssertEqual(e.gracePeriodExpirationDate, Instant.latest)
        let noGrace = Catalog([Product(id: "m", type: .subscription, entitlements: ["premium"],
                                       billingRetryPeriod: ISODuration(days: 60))])
        XCTAssertEqual(try XCTUnwrap(b.evaluate(at: "9999-12-31T23:59:59Z", catalog: noGrace).first).state, .billingRetry)
    }

    // MARK: - Store decoding

    private func decode(products: String, customer: String) throws -> [StoreProblem] {
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(try JSON.parse(Array(products.utf8)))
        _ = decoder.customer(id: "u", try JSON.parse(Array(customer.utf8)), catalog: catalog,
                             path: "customers.u")
        return decoder.problems
    }

    private func subscription(expires: String, date: String = "2026-01-01T00:00:00Z") -> String {
        """
        {"transactions": [{"transactionId": "t1", "originalTransactionId": "t1", "productId": "m",
          "type": "subscriptionStarted", "transactionDate": "\(date)", "expirationDate": "\(expires)"}]}
        """
    }

    func testCatalogRefusesPeriodsNoDateCanBeExtendedBy() throws {
        for (key, period) in [("gracePeriod", "P999999999Y"), ("gracePeriod", "P9999Y"),
                              ("billingRetryPeriod", "P119988M"), ("billingRetryPeriod", "P999999999W"),
                              ("gracePeriod", "P999999999D"), ("billingRetryPeriod", "PT999999999H")] {
            let problems = try decode(products: #"{"m": {"type": "subscription", "entitlements": ["premium"], "\#(key)": "\#(period)"}}"#,
                                      customer: "{}")
            XCTAssertEqual(problems.map(\.path), ["products.m.\(key)"], period)
            XCTAssertTrue(problems.first?.message.contains("years 0001-9999") == true, "\(problems)")
        }
    }

    func testAStoredDatePlusAStoredPeriodPastYear9999IsADataError() throws {
        let cases: [(period: String, expires: String)] = [
            (#""gracePeriod": "P8000Y""#, "2026-02-01T00:00:00Z"),
            (#""billingRetryPeriod": "P96000M""#, "2026-02-01T00:00:00Z"),
            (#""gracePeriod": "P16D""#, "9999-12-20T00:00:00Z"),
            (#""gracePeriod": "PT1H", "billingRetryPeriod": "P60D""#, "9999-11-15T00:00:00Z"),
        ]
        for (period, expires) in cases {
            let problems = try decode(
                products: #"{"m": {"type": "subscription", "entitlements": ["premium"], \#(period)}}"#,
                customer: subscription(expires: expires))
            XCTAssertEqual(problems.map(\.path), ["customers.u.transactions[0].expirationDate"], period)
            XCTAssertTrue(problems.first?.message.contains("past year 9999") == true, "\(problems)")
        }
        // Just inside: exp + P60D ends on 9999-12-31.
        XCTAssertEqual(try decode(products: #"{"m": {"type": "subscription", "entitlements": ["premium"], "gracePeriod": "P16D"}}"#,
                                  customer: subscription(expires: "9999-11-01T00:00:00Z")), [])
    }

    func testStoredDatesOutsideTheRangeNameTheRange() throws {
        let problems = try decode(
            products: #"{"m": {"type": "subscription", "entitlements": ["premium"]}}"#,
            customer: subscription(expires: "9999-12-31T23:30:00-01:00", date: "0000-06-01T00:00:00Z"))
        XCTAssertEqual(problems.map(\.path), ["customers.u.transactions[0].transactionDate",
                                              "customers.u.transactions[0].expirationDate"])
        XCTAssertTrue(problems.allSatisfy { $0.message.contains("outside years 0001-9999") }, "\(problems)")
    }
}

extension DateRangeTests {
    func testNeverExpiresSentinelWithTheDefaultRetryPeriodIsValid() throws {
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(try JSON.parse(Array(#"{"m": {"type": "subscription", "entitlements": ["premium"]}}"#.utf8)))
        let customer = #"{"transactions": [{"transactionId": "t1", "originalTransactionId": "t1", "productId": "m", "type": "subscriptionStarted", "transactionDate": "2026-01-01T00:00:00Z", "expirationDate": "9999-12-31T00:00:00Z"}]}"#
        _ = decoder.customer(id: "u", try JSON.parse(Array(customer.utf8)), catalog: catalog, path: "customers.u")
        XCTAssertEqual(decoder.problems, [])
    }
}
