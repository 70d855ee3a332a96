// Provider `revenuecat` against a loopback stand-in for RevenueCat's REST API v1 that answers our
// own fixtures (Tests/Fixtures/revenuecat/, written from the OpenAPI description) and checks
// every request: method, path and its encoding, Authorization, User-Agent, no X-Platform, body.
// Each fixture's `check --json` is compared field by field; the table's sentences too.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsRemote
@testable import SubsCLI

class RevenueCatTestCase: XCTestCase {
    var rc: FakeRevenueCat!
    var dir: TempDir!

    override func setUpWithError() throws {
        dir = TempDir()
        rc = try FakeRevenueCat()
    }

    override func tearDown() {
        rc.stop()
        XCTAssertEqual(rc.problems, [], "requests RevenueCat would not accept")
    }

    func run(_ args: [String], key: String? = FakeRevenueCat.key, env: [String: String] = [:]) -> CLIResult {
        var environment = ["XDG_CACHE_HOME": dir.path + "/cache"]
        if let key { environment["SUBS_API_KEY"] = key }
        environment.merge(env) { $1 }
        let result = runCLI(["--remote", rc.base, "--provider", "revenuecat"] + args, env: environment)
        XCTAssertFalse(result.stdout.contains(FakeRevenueCat.key) || result.stderr.contains(FakeRevenueCat.key), "the key was printed")
        return result
    }

    func checkJSON(_ id: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        let result = run(["check", id, "--json"])
        XCTAssertEqual(result.status, .success, result.stderr, file: file, line: line)
        return try JSON.parse(result.stdout)
    }
}

final class RevenueCatCheckTests: RevenueCatTestCase {
    private func assertCustomer(_ doc: JSONValue, id: String, requested: String, aliases: [String] = [],
                                active: [String], attributes: JSONValue = .null,
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "projected", "aliases", "firstSeen", "attributes",
                                               "activeEntitlements", "entitlements", "totalSpent"], file: file, line: line)
        XCTAssertEqual(doc["customerId"], .string(id), file: file, line: line)
        XCTAssertEqual(doc["requestedId"], .string(requested), file: file, line: line)
        XCTAssertEqual(doc["requestDate"], .string(FakeRevenueCat.requestDate), file: file, line: line)
        XCTAssertEqual(doc["aliases"], .array(aliases.map { .string($0) }), file: file, line: line)
        XCTAssertEqual(doc["firstSeen"], .string("2025-06-01T08:00:00Z"), file: file, line: line)
        XCTAssertEqual(doc["attributes"], attributes, file: file, line: line)
        XCTAssertEqual(doc["activeEntitlements"], .array(active.map { .string($0) }), file: file, line: line)
    }

    private func sentences(_ id: String) -> [String] {
        let result = run(["check", id])
        XCTAssertEqual(result.status, .success, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("premium: ") }
    }

    func testActiveTrial() throws {
        let doc = try checkJSON("tina")
        assertCustomer(doc, id: "tina", requested: "tina", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "periodType": .string("trial"), "productId": .string("pro_monthly"),
            "startedDate": .string("2026-11-28T09:00:00Z"),
            // Nothing is paid during a free trial: no first purchase yet (SPEC section 3).
            "firstPurchaseDate": .null,
            "lastPurchaseDate": .string("2026-11-28T09:00:00Z"), "expirationDate": .string("2026-12-05T09:00:00Z"),
        ])
        XCTAssertEqual(sentences("tina"), ["premium: free trial, first payment due 2026-12-05"])
    }

    func testCancelledButStillActive() throws {
        let doc = try checkJSON("carl")
        assertCustomer(doc, id: "carl", requested: "carl", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "renewState": .string("canceled"), "willRenew": .bool(false), "source": .string("playstore"),
            "productId": .string("pro_monthly_play"), "startedDate": .string("2026-06-15T10:00:00Z"),
            "firstPurchaseDate": .string("2026-06-15T10:00:00Z"), "lastPurchaseDate": .string("2026-11-15T10:00:00Z"),
            "expirationDate": .string("2026-12-15T10:00:00Z"), "autoRenewDisableDate": .string("2026-11-20T16:30:00Z"),
        ])
        XCTAssertEqual(sentences("carl"), ["premium: cancelled on 2026-11-20, active until 2026-12-15"])
    }

    func testBillingIssueInGracePeriod() throws {
        let doc = try checkJSON("gina")
        assertCustomer(doc, id: "gina", requested: "gina", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "state": .string("gracePeriod"), "renewState": .string("billingIssue"), "willRenew": .bool(false),
            "productId": .string("pro_monthly"), "startedDate": .string("2026-03-30T08:00:00Z"),
            "firstPurchaseDate": .string("2026-03-30T08:00:00Z"), "lastPurchaseDate": .string("2026-10-30T08:00:00Z"),
            "expirationDate": .string("2026-12-14T08:00:00Z"), "gracePeriodExpirationDate": .string("2026-12-14T08:00:00Z"),
            "billingIssueDetectedAt": .string("2026-11-28T08:05:00Z"),
        ])
        XCTAssertEqual(sentences("gina"), ["premium: in grace period — billing issue detected 2026-11-28; access ends 2026-12-14 unless payment recovers"])
    }

    func testBillingRetry() throws {
        let doc = try checkJSON("rita")
        assertCustomer(doc, id: "rita", requested: "rita", active: [])
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("billingRetry"), "renewState": .string("billingIssue"),
            "willRenew": .bool(false), "productId": .string("pro_monthly"), "startedDate": .string("2026-01-10T07:00:00Z"),
            "firstPurchaseDate": .string("2026-01-10T07:00:00Z"), "lastPurchaseDate": .string("2026-10-10T07:00:00Z"),
            "expirationDate": .string("2026-11-26T07:00:00Z"), "gracePeriodExpirationDate": .string("2026-11-26T07:00:00Z"),
            "billingIssueDetectedAt": .string("2026-11-10T07:02:00Z"),
        ])
        XCTAssertEqual(sentences("rita"), ["premium: billing retry — billing issue detected 2026-11-10, access lost on 2026-11-26"])
        XCTAssertEqual(run(["check", "rita", "--require", "premium", "-q"]).status, .requirementMissing)
    }

    func testRefund() throws {
        let doc = try checkJSON("ralph")
        assertCustomer(doc, id: "ralph", requested: "ralph", active: [])
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("revoked"), "renewState": .string("unknown"), "willRenew": .bool(false),
            "productId": .string("pro_yearly"), "startedDate": .string("2025-09-01T12:00:00Z"),
            "firstPurchaseDate": .string("2025-09-01T12:00:00Z"), "lastPurchaseDate": .string("2026-09-01T12:00:00Z"),
            "expirationDate": .string("2026-11-15T13:20:00Z"), "refundedAt": .string("2026-11-15T13:20:00Z"),
            "revokedAt": .string("2026-11-15T13:20:00Z"),
        ])
        XCTAssertEqual(sentences("ralph"), ["premium: refunded on 2026-11-15"])
    }

    func testLifetimeNonSubscription() throws {
        let doc = try checkJSON("lena")
        assertCustomer(doc, id: "lena", requested: "lena", active: ["premium"])
        // The latest purchase of the product describes it.
        assertEntitlement(doc, "premium", [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "source": .string("stripe"),
            "productId": .string("lifetime_unlock"), "startedDate": .string("2026-04-02T10:00:00Z"),
            "firstPurchaseDate": .string("2026-04-02T10:00:00Z"), "lastPurchaseDate": .string("2026-04-02T10:00:00Z"),
        ])
        XCTAssertEqual(sentences("lena"), ["premium: one-time purchase of lifetime_unlock on 2026-04-02, no expiration"])
    }

    func testPromotionalGrant() throws {
        let doc = try checkJSON("paul")
        assertCustomer(doc, id: "paul", requested: "paul", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "periodType": .string("promotional"),
            "source": .string("manual"), "grantType": .string("manual"), "productId": .string("rc_promo_premium_custom"),
            "startedDate": .string("2026-11-20T09:00:00Z"), "firstPurchaseDate": .string("2026-11-20T09:00:00Z"),
            "lastPurchaseDate": .string("2026-11-20T09:00:00Z"), "expirationDate": .string("2027-01-01T00:00:00Z"),
        ])
        XCTAssertEqual(sentences("paul"), ["premium: manual grant, until 2027-01-01"])
    }

    func testFamilySharingWithAnotherOriginalIdAndAttributes() throws {
        rc.set("fay", try FakeRevenueCat.fixture("family"))
        let doc = try checkJSON("fay")
        assertCustomer(doc, id: "$RCAnonymousID:4b6f2a", requested: "fay", aliases: ["fay"], active: ["premium"],
                       attributes: .object(JSONObject([("$email", .string("fay@example.com"))])))
        assertEntitlement(doc, "premium", [
            "grantType": .string("familySharing"), "productId": .string("family_annual"),
            "startedDate": .string("2025-07-04T15:00:00Z"), "firstPurchaseDate": .string("2025-07-04T15:00:00Z"),
            "lastPurchaseDate": .string("2026-07-04T15:00:00Z"), "expirationDate": .string("2027-07-04T15:00:00Z"),
        ])
        XCTAssertEqual(sentences("fay"), ["premium: renews 2027-07-04; shared through family sharing"])
    }

    func testSandboxIntroOnAmazon() throws {
        let doc = try checkJSON("sam")
        assertCustomer(doc, id: "sam", requested: "sam", active: ["premium"])
        assertEntitlement(doc, "premium", [
            "periodType": .string("intro"), "source": .string("amazon"), "productId": .string("pro_weekly"),
            "startedDate": .string("2026-11-08T20:00:00Z"), "firstPurchaseDate": .string("2026-11-08T20:00:00Z"),
            "lastPurchaseDate": .string("2026-11-29T20:00:00Z"), "expirationDate": .string("2026-12-06T20:00:00Z"),
            "isSandbox": .bool(true),
        ])
    }

    func testPausedPlaySubscription() throws {
        let doc = try checkJSON("pia")
        assertCustomer(doc, id: "pia", requested: "pia", active: [])
        assertEntitlement(doc, "premium", [
            "isActive": .bool(false), "state": .string("paused"), "renewState": .string("unknown"), "willRenew": .bool(false),
            "source": .string("playstore"), "productId": .string("pro_monthly_play"),
            "startedDate": .string("2026-02-20T11:00:00Z"), "firstPurchaseDate": .string("2026-02-20T11:00:00Z"),
            "lastPurchaseDate": .string("2026-10-20T11:00:00Z"), "expirationDate": .string("2026-11-20T11:00:00Z"),
            "autoResumeDate": .string("2027-01-20T11:00:00Z"),
        ])
        XCTAssertEqual(sentences("pia"), ["premium: paused from 2026-11-20 until 2027-01-20"])
    }

    func testUnknownStorePeriodAndOwnershipAndExtraFieldsNeverBreakALookup() throws {
        let doc = try checkJSON("uri")
        assertCustomer(doc, id: "uri", requested: "uri", active: ["extras", "premium"])
        let fields: [String: JSONValue] = [
            "source": .string("unknown"), "periodType": .string("unknown"), "productId": .string("pro_quarterly"),
            "startedDate": .string("2026-08-01T00:00:00Z"), "firstPurchaseDate": .string("2026-08-01T00:00:00Z"),
            "lastPurchaseDate": .string("2026-11-01T00:00:00Z"), "expirationDate": .string("2027-02-01T00:00:00Z"),
        ]
        assertEntitlement(doc, "premium", fields)
        assertEntitlement(doc, "extras", fields)
        XCTAssertEqual(doc["entitlements"]?.objectValue?.keys, ["extras", "premium"])
    }

    func testSeveralCustomersInOneCheckAndTheRequestsTheySend() throws {
        let result = run(["check", "tina", "rita", "--format", "jsonl"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 2)
        XCTAssertEqual(rc.requests.map { "\($0.method) \($0.target)" }, ["GET /v1/subscribers/tina", "GET /v1/subscribers/rita"])
    }

    func testIdsArePercentEncodedAsOnePathSegment() throws {
        for id in ["a/b", "a b?c#d", "ü€", "..", ".", "%41", "$RCAnonymousID:x+y&z=1"] {
            rc.set(id, try FakeRevenueCat.fixture("trial"))
            let result = run(["check", id, "--json"])
            XCTAssertEqual(result.status, .success, "\(id): \(result.stderr)")
            XCTAssertEqual(try JSON.parse(result.stdout)["requestedId"], .string(id))
            XCTAssertEqual(rc.requests.last?.path, "/v1/subscribers/" + RemoteURL.segment(id))
            XCTAssertEqual(rc.requests.last?.pathSegments?.last, id)
        }
        XCTAssertEqual(rc.requests.map(\.path).suffix(3), ["/v1/subscribers/%2E", "/v1/subscribers/%2541",
                                                           "/v1/subscribers/%24RCAnonymousID%3Ax%2By%26z%3D1"].suffix(3))
    }

    func testAnEmptySubscriberRevenueCatJustCreatedIsNotFound() {
        for id in ["ghost", "never-seen"] {
            let result = run(["check", id])
            XCTAssertEqual(result.status, .notFound, result.stderr)
            XCTAssertEqual(result.stdout, "")
            XCTAssertTrue(result.stderr.contains("subs: note: RevenueCat created an empty subscriber for '\(id)' on this request"), result.stderr)
            XCTAssertTrue(result.stderr.hasSuffix("subs: error: customer '\(id)' not found\n"), result.stderr)
        }
        // Among others: the others are printed, the status is 3.
        let mixed = run(["check", "tina", "ghost", "--json"])
        XCTAssertEqual(mixed.status, .notFound)
        XCTAssertEqual((try? JSON.parse(mixed.stdout))?.arrayValue?.map { $0["requestedId"] }, [.string("tina"), .string("ghost")])
        // History says why too.
        let history = run(["history", "ghost"])
        XCTAssertEqual(history.status, .notFound)
        XCTAssertTrue(history.stderr.contains("RevenueCat created an empty subscriber"), history.stderr)
    }

    func testAnEmptySubscriberSeenLongAgoIsACustomerWithoutEntitlements() throws {
        var old = try FakeRevenueCat.fixture("empty").objectValue!
        var subscriber = old["subscriber"]!.objectValue!
        subscriber["first_seen"] = .string("2026-11-01T00:00:00Z")
        old["subscriber"] = .object(subscriber)
        rc.set("quiet", .object(old))
        let result = run(["check", "quiet", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout)["entitlements"], .object(JSONObject()))
        XCTAssertEqual(result.stderr, "")
    }
}

/// `totalSpent` from RevenueCat v1 (fixture money.json): two currencies, a refunded subscription,
/// a renewed one (its latest price only: incomplete), a malformed one-time price (unknown, the rest
/// answered), and the line under the table.
final class RevenueCatMoneyTests: RevenueCatTestCase {
    func testTotalSpentSaysWhatV1CanAndWhyNotMore() throws {
        let doc = try checkJSON("mona")
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium")]), "a malformed price hides nothing")
        let totals = try XCTUnwrap(doc["totalSpent"]?.arrayValue)
        XCTAssertEqual(totals.map { $0["currency"] }, [.string("EUR"), .string("USD"), .null])
        XCTAssertEqual(totals.map { $0["amount"] }, [.string("2.97"), .string("9.99"), .null], "0.99 + 1.98 exactly; the refunded 29.99 not summed")
        XCTAssertEqual(totals.map { $0["payments"] }, [.number("2"), .number("2"), .number("1")])
        XCTAssertEqual(totals.map { $0["refunded"] }, [.number("0"), .number("1"), .number("0")])
        XCTAssertEqual(totals.map { $0["complete"] }, [.bool(false), .bool(false), .bool(false)])
        XCTAssertEqual(totals[1]["incompleteReason"]?.stringValue?.hasPrefix("RevenueCat API v1 gives each subscription's latest price only"), true)
        let table = run(["check", "mona"])
        XCTAssertEqual(table.status, .success, table.stderr)
        XCTAssertTrue(table.stdout.contains("spent EUR 2.97 in 2 payments; USD 9.99 in 2 payments, 1 refunded; 1 payment of unknown price (incomplete: "),
                      table.stdout)
        // No price anywhere in a fixture: every payment unknown, no line, JSON still counts.
        let refund = try checkJSON("ralph")
        XCTAssertEqual(refund["totalSpent"]?.arrayValue?.first?["currency"], .null)
        XCTAssertEqual(refund["totalSpent"]?.arrayValue?.first?["refunded"], .number("1"))
        XCTAssertFalse(run(["check", "ralph"]).stdout.contains("spent"))
    }
}
