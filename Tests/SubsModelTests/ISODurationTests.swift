// ISO 8601 durations: parsing, canonical text, and calendar addition clamped to month ends.

import XCTest
@testable import SubsModel

final class ISODurationTests: XCTestCase {
    private func at(_ text: String) -> Instant { ISODate.parse(text)! }

    func testParsesTheDocumentedForms() {
        XCTAssertEqual(ISODuration.parse("P1D"), ISODuration(days: 1))
        XCTAssertEqual(ISODuration.parse("P7D"), ISODuration(days: 7))
        XCTAssertEqual(ISODuration.parse("P2W"), ISODuration(weeks: 2))
        XCTAssertEqual(ISODuration.parse("P1M"), ISODuration(months: 1))
        XCTAssertEqual(ISODuration.parse("P3M"), ISODuration(months: 3))
        XCTAssertEqual(ISODuration.parse("P1Y"), ISODuration(years: 1))
        XCTAssertEqual(ISODuration.parse("PT12H"), ISODuration(hours: 12))
        XCTAssertEqual(ISODuration.parse("PT30M"), ISODuration(minutes: 30))
        XCTAssertEqual(ISODuration.parse("PT45S"), ISODuration(seconds: 45))
        XCTAssertEqual(ISODuration.parse("P1Y2M3DT4H"), ISODuration(years: 1, months: 2, days: 3, hours: 4))
        XCTAssertEqual(ISODuration.parse("P1Y2M1W3DT4H5M6S"),
                       ISODuration(years: 1, months: 2, weeks: 1, days: 3, hours: 4, minutes: 5, seconds: 6))
        XCTAssertEqual(ISODuration.parse("PT0S"), ISODuration())
    }

    func testRejectsMalformedDurations() {
        for text in ["", "P", "PT", "P1H", "PT1D", "P1DT", "-P1D", "P-1D", "P1.5D", "PT0.5S", "p1d", "P1d",
                     "1D", "P1M1Y", "P1D1D", "PT1S1M", "P1DT2HT3M", "P D", "P1D ", "P9999999999Y"] {
            XCTAssertNil(ISODuration.parse(text), text)
        }
    }

    func testDescriptionIsCanonical() {
        XCTAssertEqual(ISODuration(days: 16).description, "P16D")
        XCTAssertEqual(ISODuration(years: 1, months: 2, days: 3, hours: 4).description, "P1Y2M3DT4H")
        XCTAssertEqual(ISODuration(minutes: 30).description, "PT30M")
        XCTAssertEqual(ISODuration(months: 1, seconds: 5).description, "P1MT5S")
        XCTAssertEqual(ISODuration().description, "PT0S")
        XCTAssertEqual(ISODuration.parse("P007D")?.description, "P7D")
        for text in ["P2W", "P1Y2M1W3DT4H5M6S", "PT12H"] {
            XCTAssertEqual(ISODuration.parse(text)?.description, text)
        }
    }

    func testMonthAdditionClampsToTheLastDay() {
        XCTAssertEqual(at("2026-01-31T10:00:00Z").adding(ISODuration(months: 1)), at("2026-02-28T10:00:00Z"))
        XCTAssertEqual(at("2024-01-31T10:00:00Z").adding(ISODuration(months: 1)), at("2024-02-29T10:00:00Z"))
        XCTAssertEqual(at("2026-03-31T00:00:00Z").adding(ISODuration(months: 1)), at("2026-04-30T00:00:00Z"))
        XCTAssertEqual(at("2026-01-31T00:00:00Z").adding(ISODuration(months: 2)), at("2026-03-31T00:00:00Z"))
        XCTAssertEqual(at("2026-11-30T00:00:00Z").adding(ISODuration(months: 3)), at("2027-02-28T00:00:00Z"))
        XCTAssertEqual(at("2026-12-15T00:00:00Z").adding(ISODuration(months: 1)), at("2027-01-15T00:00:00Z"))
    }

    func testYearAdditionFromLeapDay() {
        XCTAssertEqual(at("2024-02-29T12:00:00Z").adding(ISODuration(years: 1)), at("2025-02-28T12:00:00Z"))
        XCTAssertEqual(at("2024-02-29T12:00:00Z").adding(ISODuration(years: 4)), at("2028-02-29T12:00:00Z"))
        XCTAssertEqual(at("2096-02-29T00:00:00Z").adding(ISODuration(years: 4)), at("2100-02-28T00:00:00Z"))
    }

    func testCalendarPartIsAppliedBeforeFixedPart() {
        // Jan 31 + P1M = Feb 28, then + 1 day = Mar 1 (not Mar 3 as days-first would give).
        XCTAssertEqual(at("2026-01-31T00:00:00Z").adding(ISODuration(months: 1, days: 1)), at("2026-03-01T00:00:00Z"))
        XCTAssertEqual(at("2026-03-01T12:00:00Z").adding(ISODuration.parse("P1Y2M3DT4H")!), at("2027-05-04T16:00:00Z"))
    }

    func testFixedPartsAndFractionsSurvive() {
        let start = Instant(seconds: at("2026-02-28T23:00:00Z").seconds, nanoseconds: 123)
        XCTAssertEqual(start.adding(ISODuration(hours: 2)), Instant(seconds: at("2026-03-01T01:00:00Z").seconds, nanoseconds: 123))
        XCTAssertEqual(start.adding(ISODuration(months: 1)), Instant(seconds: at("2026-03-28T23:00:00Z").seconds, nanoseconds: 123))
        XCTAssertEqual(at("2026-03-01T00:00:00Z").adding(ISODuration(weeks: 2)), at("2026-03-15T00:00:00Z"))
        XCTAssertEqual(at("2026-03-01T00:00:00Z").adding(ISODuration(minutes: 90, seconds: 30)), at("2026-03-01T01:30:30Z"))
        XCTAssertEqual(at("2026-03-01T00:00:00Z").adding(ISODuration()), at("2026-03-01T00:00:00Z"))
    }

    func testMonthAdditionBefore1970() {
        XCTAssertEqual(at("1969-12-31T23:59:59Z").adding(ISODuration(months: 2)), at("1970-02-28T23:59:59Z"))
    }
}
