// Near misses of ISO 8601 durations get a reason a user can act on, not just "not a duration".

import XCTest
@testable import SubsModel

final class DurationProblemTests: XCTestCase {
    private func problem(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ISODurationProblem? {
        XCTAssertNil(ISODuration.parse(text), text, file: file, line: line)
        do {
            _ = try ISODuration.read(text)
            XCTFail("'\(text)' was accepted", file: file, line: line)
            return nil
        } catch {
            return error as? ISODurationProblem
        }
    }

    func testEachNearMissHasItsOwnReason() {
        let expected: [(ISODurationProblem, [String])] = [
            (.fractionalSeconds, ["P1Y2M3DT4H5M6.5S", "PT0.5S", "PT1,5S", "PT6.25S"]),
            (.fractional, ["P1.5D", "P0.5Y", "PT1.5H", "P1,5W", "PT2.5M"]),
            (.lowercase, ["p1d", "P1d", "pt12h", "P1y2m", "P1DT12h"]),
            (.negative, ["-P1D", "P-1D", "PT-5M", "-PT12H", "P1Y-2M"]),
            (.noComponent, ["P"]),
            (.emptyTime, ["PT", "P1DT"]),
            (.tooLarge, ["P9999999999Y", "PT99999999999S", "P1000000000D", "P99999999999999999999999M"]),
            (.empty, [""]),
            (.missingDesignator, ["P1", "PT12", "P1D2"]),
            (.missingNumber, ["PD", "PTH", "P1DTM"]),
            (.outOfOrder, ["P1M1Y", "P1D1D", "PT1HT2M", "PT1S1M", "P1DT2HT3M"]),
            (.timeWithoutT, ["P1H", "P2S", "P1D3H"]),
            (.dateAfterT, ["PT1D", "PT2W", "PT1Y"]),
            (.malformed, ["3 months", "1h", "P D", "P1D ", " P1D", "1D", "P1X", "P１D"]),
        ]
        for (reason, texts) in expected {
            for text in texts {
                XCTAssertEqual(problem(text), reason, "'\(text)'")
            }
        }
    }

    func testMessagesSayWhatIsWrong() {
        XCTAssertEqual(ISODurationProblem.fractionalSeconds.message(for: "P1Y2M3DT4H5M6.5S"),
                       "'P1Y2M3DT4H5M6.5S': fractional seconds are not supported")
        XCTAssertEqual(ISODurationProblem.negative.message(for: "-P1D"), "'-P1D': negative durations are not supported")
        XCTAssertEqual(ISODurationProblem.malformed.message(for: "3 months"), "'3 months' is not an ISO 8601 duration")
        for reason in [ISODurationProblem.empty, .noComponent, .emptyTime, .lowercase, .negative, .fractional,
                       .fractionalSeconds, .tooLarge, .missingDesignator, .missingNumber, .outOfOrder,
                       .timeWithoutT, .dateAfterT] {
            XCTAssertFalse(reason.description.isEmpty)
            XCTAssertFalse(reason.message(for: "x").contains("not an ISO 8601 duration"), "\(reason)")
        }
    }

    func testValidDurationsStillParse() throws {
        for text in ["P1D", "PT12H", "P1Y2M3DT4H", "P1Y2M1W3DT4H5M6S", "PT0S", "P999999999Y"] {
            XCTAssertNoThrow(try ISODuration.read(text), text)
        }
    }
}
