// ISO 8601 date-time parsing and printing: accepted forms, rejections and calendar boundaries.

import XCTest
@testable import SubsModel

final class ISODateTests: XCTestCase {
    private func utc(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Instant {
        guard let i = ISODate.parse(text) else {
            XCTFail("could not parse \(text)", file: file, line: line)
            return Instant(seconds: 0)
        }
        return i
    }

    func testParsesUTCToEpochSeconds() {
        XCTAssertEqual(ISODate.parse("1970-01-01T00:00:00Z"), Instant(seconds: 0))
        XCTAssertEqual(ISODate.parse("2026-03-01T12:00:00Z"), Instant(seconds: 1_772_366_400))
        XCTAssertEqual(ISODate.parse("2000-02-29T23:59:59Z"), Instant(seconds: 951_868_799))
        XCTAssertEqual(ISODate.parse("1969-12-31T23:59:59Z"), Instant(seconds: -1))
    }

    func testFractionalSecondsKeptToTheNanosecond() {
        XCTAssertEqual(ISODate.parse("2026-03-01T12:00:00.5Z"), Instant(seconds: 1_772_366_400, nanoseconds: 500_000_000))
        XCTAssertEqual(ISODate.parse("2026-03-01T12:00:00.000000001Z"), Instant(seconds: 1_772_366_400, nanoseconds: 1))
        // Digits past the ninth are truncated, not rounded.
        XCTAssertEqual(ISODate.parse("2026-03-01T12:00:00.1234567899999Z"), Instant(seconds: 1_772_366_400, nanoseconds: 123_456_789))
        XCTAssertNil(ISODate.parse("2026-03-01T12:00:00.Z"))
        XCTAssertNil(ISODate.parse("2026-03-01T12:00:00,5Z"))
    }

    func testFractionalSecondsOrderAsInstants() {
        let a = utc("2026-03-01T12:00:00.1Z")
        let b = utc("2026-03-01T12:00:00.09Z")
        let c = utc("2026-03-01T12:00:00.100000001Z")
        XCTAssertLessThan(b, a)
        XCTAssertLessThan(a, c)
        XCTAssertLessThan(utc("2026-03-01T11:59:59.999999999Z"), utc("2026-03-01T12:00:00Z"))
    }

    func testOffsetsAreAppliedAndMayCrossMidnight() {
        XCTAssertEqual(utc("2026-03-01T01:30:00+02:00"), utc("2026-02-28T23:30:00Z"))
        XCTAssertEqual(utc("2026-02-28T22:00:00-03:30"), utc("2026-03-01T01:30:00Z"))
        XCTAssertEqual(utc("2024-12-31T23:00:00-01:00"), utc("2025-01-01T00:00:00Z"))
        XCTAssertEqual(utc("2026-03-01T12:00:00-00:00"), utc("2026-03-01T12:00:00Z"))
        XCTAssertEqual(utc("2026-03-01T12:00:00.25+05:45"),
                       Instant(seconds: utc("2026-03-01T06:15:00Z").seconds, nanoseconds: 250_000_000))
    }

    func testRejectsInvalidCalendarDatesAndTimes() {
        for text in ["2026-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z",
                     "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z",
                     "2026-03-01T24:00:00Z", "2026-03-01T12:60:00Z", "2026-03-01T12:00:60Z",
                     "1900-02-29T00:00:00Z"] {
            XCTAssertNil(ISODate.parse(text), text)
        }
        XCTAssertNotNil(ISODate.parse("2024-02-29T00:00:00Z"))
        XCTAssertNotNil(ISODate.parse("2000-02-29T00:00:00Z"))
    }

    func testRejectsOtherForms() {
        for text in ["", "2026-03-01", "2026-03-01T12:00:00", "2026-03-01t12:00:00Z", "2026-03-01T12:00:00z",
                     "2026-03-01 12:00:00Z", "2026-3-01T12:00:00Z", "2026-03-01T12:00Z", "26-03-01T12:00:00Z",
                     "2026-03-01T12:00:00+0200", "2026-03-01T12:00:00+02", "2026-03-01T12:00:00+24:00",
                     "2026-03-01T12:00:00Z ", " 2026-03-01T12:00:00Z", "2026-03-01T12:00:00ZZ",
                     "now", "+2026-03-01T12:00:00Z", "２０２６-03-01T12:00:00Z"] {
            XCTAssertNil(ISODate.parse(text), text)
        }
    }

    func testParseInputAcceptsDayAndNow() {
        let now = Instant(seconds: 123, nanoseconds: 4)
        XCTAssertEqual(ISODate.parseInput("now", now: now), now)
        XCTAssertEqual(ISODate.parseInput("2026-03-01", now: now), utc("2026-03-01T00:00:00Z"))
        XCTAssertEqual(ISODate.parseInput("2026-03-01T12:00:00+01:00", now: now), utc("2026-03-01T11:00:00Z"))
        XCTAssertNil(ISODate.parseInput("2026-02-30", now: now))
        XCTAssertNil(ISODate.parseInput("NOW", now: now))
        XCTAssertNil(ISODate.parseInput("yesterday", now: now))
        XCTAssertNil(ISODate.parseInput("2026-03-01T", now: now))
    }

    func testFormatsTruncateToWholeSecondsInUTC() {
        let i = utc("2026-03-01T12:34:56.999+01:00")
        XCTAssertEqual(ISODate.format(i), "2026-03-01T11:34:56Z")
        XCTAssertEqual(ISODate.formatShort(i), "2026-03-01 11:34Z")
        XCTAssertEqual(ISODate.formatDay(i), "2026-03-01")
        // Before 1970 the fraction still truncates toward the past.
        XCTAssertEqual(ISODate.format(Instant(seconds: -1, nanoseconds: 500_000_000)), "1969-12-31T23:59:59Z")
        XCTAssertEqual(ISODate.format(Instant(seconds: 0)), "1970-01-01T00:00:00Z")
    }

    func testFormatRoundTripsAcrossLeapDaysAndYearEnds() {
        for text in ["2024-02-29T00:00:00Z", "2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z", "2100-03-01T00:00:00Z",
                     "1999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1600-02-29T12:00:00Z"] {
            XCTAssertEqual(ISODate.format(utc(text)), text)
        }
    }

    func testRelativeUsesLargestWholeUnit() {
        let now = utc("2026-03-01T12:00:00Z")
        func rel(_ seconds: Int64) -> String { ISODate.relative(now.adding(seconds: seconds)!, now: now) }
        XCTAssertEqual(rel(0), "now")
        XCTAssertEqual(rel(30), "in 30s")
        XCTAssertEqual(rel(-59), "59s ago")
        XCTAssertEqual(rel(-12 * 60), "12m ago")
        XCTAssertEqual(rel(5 * 3600 + 3599), "in 5h")
        XCTAssertEqual(rel(9 * 86_400 + 86_399), "in 9d")
        XCTAssertEqual(rel(-3 * 86_400), "3d ago")
        XCTAssertEqual(rel(729 * 86_400), "in 729d")
        XCTAssertEqual(rel(3 * 365 * 86_400 + 5), "in 3y")
        XCTAssertEqual(rel(-2 * 365 * 86_400), "2y ago")
        // Sub-second differences truncate toward zero.
        XCTAssertEqual(ISODate.relative(Instant(seconds: 10, nanoseconds: 900_000_000), now: Instant(seconds: 10)), "now")
        XCTAssertEqual(ISODate.relative(Instant(seconds: 11, nanoseconds: 0), now: Instant(seconds: 10, nanoseconds: 1)), "now")
        XCTAssertEqual(ISODate.relative(Instant(seconds: 9, nanoseconds: 1), now: Instant(seconds: 10, nanoseconds: 2)), "1s ago")
    }
}
