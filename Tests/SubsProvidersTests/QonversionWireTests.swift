// QonversionWire, the decoder of v3's answers, without a network: epoch values (0 and null are
// "none", fractions cut, milliseconds refused), enum values it does not know, extra fields, and
// arbitrary bytes — which only ever throw QonversionDecodeError (the fuzz harness checks more).

import XCTest
@testable import SubsModel
@testable import SubsProviders

final class QonversionWireTests: XCTestCase {
    private func one(_ fields: String) throws -> QonversionEntitlement {
        let list = try QonversionWire.entitlements(Array(#"{"data": [{"id": "e", "active": true\#(fields)}]}"#.utf8))
        XCTAssertEqual(list.entitlements.count, 1)
        XCTAssertEqual(list.problems, [])
        return list.entitlements[0]
    }

    func testEpochValues() throws {
        XCTAssertNil(try one("").expires, "absent")
        XCTAssertNil(try one(#", "expires": null"#).expires)
        XCTAssertNil(try one(#", "expires": 0"#).expires)
        XCTAssertNil(try one(#", "expires": 0.0, "started": -0"#).expires)
        XCTAssertNil(try one(#", "started": 0"#).started)
        XCTAssertEqual(try one(#", "expires": 1704067200"#).expires, Instant(seconds: 1_704_067_200))
        XCTAssertEqual(try one(#", "expires": 1704067200.9"#).expires, Instant(seconds: 1_704_067_200), "whole seconds")
        XCTAssertEqual(try one(#", "expires": 1.7040672e9"#).expires, Instant(seconds: 1_704_067_200))
        XCTAssertEqual(try one(#", "started": -86400"#).started, Instant(seconds: -86_400))
        XCTAssertEqual(try one(#", "expires": 253402300799"#).expires, Instant(seconds: 253_402_300_799), "9999-12-31T23:59:59Z")
        for bad in ["253402300800", "-62135596801", "1704067200000", "1e400", "-1e400", "99999999999999999999"] {
            XCTAssertThrowsError(try one(#", "expires": \#(bad)"#), bad) { error in
                XCTAssertEqual((error as? QonversionDecodeError)?.path, "data[0].expires", bad)
            }
        }
        for bad in [#""1704067200""#, "true", "[]", "{}"] {
            XCTAssertThrowsError(try one(#", "started": \#(bad)"#), bad)
        }
    }

    func testEnumValuesSubsDoesNotKnowAreUnknownAndExtraFieldsAreIgnored() throws {
        let e = try one(#", "source": "AppStore", "extra": {"deep": [1, {"x": null}]}, "product": {"product_id": "p", "x": 1, "#
                        + #""subscription": {"current_period_type": "Trial", "renew_state": "WILL_RENEW", "y": true}}"#)
        XCTAssertEqual(e.source, .unknown, "values are case-sensitive: not guessed")
        XCTAssertEqual(e.subscription?.periodType, .unknown)
        XCTAssertEqual(e.subscription?.renewState, .unknown)
        XCTAssertEqual(e.productId, "p")
        for (source, mapped) in [("appstore", EntitlementSource.appstore), ("playstore", .playstore), ("stripe", .stripe),
                                 ("manual", .manual), ("unknown", .unknown), ("amazon", .unknown), ("", .unknown)] {
            XCTAssertEqual(try one(#", "source": "\#(source)""#).source, mapped, source)
        }
        XCTAssertEqual(try one(#", "source": null"#).source, .unknown)
        for (state, mapped) in [("will_renew", RenewState.willRenew), ("canceled", .canceled), ("billing_issue", .billingIssue),
                                ("non_renewable", .nonRenewable), ("unknown", .unknown), ("cancelled", .unknown)] {
            let e = try one(#", "product": {"subscription": {"renew_state": "\#(state)"}}"#)
            XCTAssertEqual(e.subscription?.renewState, mapped, state)
        }
        XCTAssertEqual(try one(#", "product": {"subscription": {}}"#).subscription,
                       .init(periodType: .normal, renewState: .unknown), "an empty subscription")
        XCTAssertNil(try one(#", "product": {"subscription": null}"#).subscription)
        XCTAssertNil(try one(#", "product": null"#).productId)
    }

    func testMappingByRule() throws {
        // A manual source is a promotional grant whatever its product says.
        let manual = try one(#", "source": "manual", "expires": 2000000000, "product": {"subscription": {"current_period_type": "trial", "renew_state": "billing_issue"}}"#).info()
        XCTAssertEqual([manual.periodType.rawValue, manual.renewState.rawValue, manual.grantType.rawValue, manual.state.rawValue],
                       ["promotional", "nonRenewable", "manual", "active"])
        XCTAssertEqual(manual.sourceKind, .grant)
        // No subscription: nonRenewable; a one-time purchase when it never expires.
        XCTAssertEqual(try one("").info().sourceKind, .purchase)
        XCTAssertEqual(try one(#", "expires": 2000000000"#).info().sourceKind, .chain)
        XCTAssertEqual(try one("").info().renewState, .nonRenewable)
        // active + billing_issue: grace; inactive: expired, whatever the renew state.
        let lapsed = try QonversionWire.entitlement(Array(#"{"id": "e", "active": false, "product": {"subscription": {"renew_state": "billing_issue"}}}"#.utf8))
        XCTAssertEqual(lapsed.info().state, .expired)
        XCTAssertEqual(lapsed.info().renewState, .billingIssue)
        // --at: started ≤ T < expires.
        let dated = try one(#", "started": 100, "expires": 200"#)
        XCTAssertEqual([99, 100, 199, 200].map { dated.info(projectedTo: Instant(seconds: $0)).isActive }, [false, true, true, false])
        XCTAssertTrue(try one("").info(projectedTo: Instant.earliest).isActive, "no dates: always")
    }

    func testIdentityAndErrorBodies() throws {
        XCTAssertEqual(try QonversionWire.userId(fromIdentity: Array(#"{"id": "a", "user_id": "QON_1", "x": 2}"#.utf8)), "QON_1")
        XCTAssertThrowsError(try QonversionWire.userId(fromIdentity: Array(#"{"id": "a"}"#.utf8)))
        XCTAssertTrue(QonversionWire.error(Array("garbage".utf8)) == (nil, nil, nil))
        XCTAssertTrue(QonversionWire.error(Array(#"{"error": "x"}"#.utf8)) == (nil, nil, nil))
        XCTAssertTrue(QonversionWire.error(Array(#"{"error": {"code": "c", "message": 5}}"#.utf8)) == (nil, "c", nil))
    }

    func testArbitraryBytesOnlyEverThrowTheDecodeError() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [#"{"data": ["#, #"{"id": "e", "active": true"#, #", "expires": "#, "1704067200", "0", "null", "1e999", "}", "]",
                      #", "product": {"subscription": {"renew_state": "will_renew"}}"#, ",", "\"", "\u{0}", "\u{FF}", "-", "[", "{"]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for decode in [{ _ = try QonversionWire.entitlements(Array(text.utf8)) },
                           { _ = try QonversionWire.entitlement(Array(text.utf8)) },
                           { _ = try QonversionWire.userId(fromIdentity: Array(text.utf8)) }] as [() throws -> Void] {
                do { try decode() } catch {
                    XCTAssertTrue(error is QonversionDecodeError, "\(text): \(type(of: error))")
                }
            }
        }
    }
}
