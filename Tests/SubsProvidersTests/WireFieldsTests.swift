// The one field reader every provider's decoder shares (WireFields): each provider keeps its own
// words for a wrong type and its own paths, as users (and scripts grepping them) have read them.

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsSource
@testable import SubsProviders

final class WireFieldsTests: XCTestCase {
    private func failure<T>(_ decode: () throws -> T) -> String {
        do {
            _ = try decode()
            return "decoded"
        } catch {
            return "\(error)"
        }
    }

    /// The first item left out of a list that was otherwise read.
    private func firstProblem(_ decode: () throws -> [WireFormatError]) -> String {
        do { return try decode().first.map { "\($0)" } ?? "none left out" } catch { return "whole answer refused: \(error)" }
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testEachProviderKeepsItsWordsForAWrongType() {
        XCTAssertEqual(failure { try QonversionWire.entitlement(bytes(#"{"id": 7, "active": true}"#)) },
                       "id: expected string, found number")
        XCTAssertEqual(failure { try QonversionV4Wire.entitlement(bytes(#"{"id": "pro", "is_active": true, "product": []}"#)) },
                       "product: expected object, found array")
        XCTAssertEqual(failure { try QonversionV4Wire.entitlement(bytes(#"{"id": "pro", "is_active": true, "product": {"subscription": {"renew_state": 1}}}"#)) },
                       "product.subscription.renew_state: expected string, found number")
        XCTAssertEqual(firstProblem { try IAPHUBPurchasePage.decode(bytes(#"{"list": [{"id": "p", "purchaseDate": "2026-01-01T00:00:00Z", "productType": "renewable_subscription", "isSandbox": "yes"}], "hasNextPage": false}"#)).problems },
                       "list[0].isSandbox: expected a boolean, found string")
        XCTAssertEqual(firstProblem { try RevenueCatSubscriber.decode(bytes(#"{"request_date": "2026-01-01T00:00:00Z", "subscriber": {"entitlements": {}, "original_app_user_id": 5}}"#)).problems },
                       "subscriber.original_app_user_id: expected a string, found number")
    }

    func testADateThatIsNotOneIsShownCutEachProviderItsWay() {
        let long = String(repeating: "9", count: 50)
        XCTAssertEqual(failure { try QonversionV4Wire.entitlement(bytes(#"{"id": "pro", "is_active": true, "expires_at": "\#(long)"}"#)) },
                       "expires_at: expected an RFC 3339 date-time in years 0001–9999, found \"\(long.prefix(40))…\"")
        XCTAssertEqual(failure { try RevenueCatSubscriber.decode(bytes(#"{"request_date": "\#(long)", "subscriber": {}}"#)) },
                       "request_date: expected an ISO 8601 date-time in years 0001-9999, found \"\(long.prefix(40))…\"")
        XCTAssertEqual(firstProblem { try IAPHUBPurchasePage.decode(bytes(#"{"list": [{"id": "p", "purchaseDate": "\#(long)", "productType": "consumable"}]}"#)).problems },
                       "list[0].purchaseDate: expected an ISO 8601 date, found \"\(long.prefix(40))\"")
    }

    func testAbsentAndNullAreNothingAndRequiredIsMissing() throws {
        let f = WireFields(JSONObject([("a", .null)]), path: "x", words: .qonversion)
        XCTAssertNil(try f.string("a"))
        XCTAssertNil(try f.string("b"))
        XCTAssertNil(try f.fields("a"))
        XCTAssertEqual(try f.members("a").count, 0)
        XCTAssertThrowsError(try f.string("a", required: true)) { XCTAssertEqual("\($0)", "x.a: missing") }
    }

    func testMillisecondsOutsideTheSupportedYearsAreAnError() {
        let f = WireFields(JSONObject([("t", .number("999999999999999999"))]), path: "", words: .revenueCat)
        XCTAssertThrowsError(try f.milliseconds("t")) {
            XCTAssertEqual("\($0)", "t: expected milliseconds since 1970 in years 0001-9999, found number")
        }
        let ok = WireFields(JSONObject([("t", .number("-1"))]), path: "", words: .revenueCat)
        XCTAssertEqual(try ok.milliseconds("t"), Instant(seconds: -1, nanoseconds: 999_000_000))
    }
}
