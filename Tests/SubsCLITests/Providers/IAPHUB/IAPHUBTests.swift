// Provider `iaphub` against a loopback server that checks every request (path and its encoding,
// query, the `ApiKey` header, user agent) and answers fixtures written from IAPHUB's reference
// (Tests/Fixtures/iaphub): each product's mapping field by field, the table's sentences, --at.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsCLI

class IAPHUBTestCase: XCTestCase {
    var server: IAPHUBTestServer!
    var dir: TempDir!

    override func setUpWithError() throws {
        dir = TempDir()
        server = try IAPHUBTestServer()
    }

    override func tearDown() {
        server.stop()
        XCTAssertEqual(server.problems, [], "requests the server found wrong")
    }

    func iaphub(_ args: [String], env: [String: String] = [:], stdin: String? = nil) -> CLIResult {
        runCLI(["--provider", "iaphub", "--remote", server.base] + args,
               env: ["SUBS_API_KEY": IAPHUBTestServer.key, "XDG_CACHE_HOME": dir.path + "/cache"].merging(env) { $1 },
               stdin: stdin)
    }

    /// `check USER --json` and its one entitlement document, with the requestDate checked against
    /// the server's Date header (the real clock, whole seconds).
    func entitlements(_ user: String, _ extra: [String] = [], env: [String: String] = [:]) throws -> (doc: JSONValue, result: CLIResult) {
        // A server's Date may trail the real clock by a tick (time(2) reads the coarse clock, as
        // nginx's cached Date does): one second of slack before, none needed after.
        let before = Int64(Date().timeIntervalSince1970) - 1
        let result = iaphub(["check", user, "--json"] + extra, env: env)
        let after = Int64(Date().timeIntervalSince1970) + 1
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        if extra.isEmpty, case .string(let text)? = doc["requestDate"], let date = ISODate.parse(text) {
            XCTAssertTrue((before...after).contains(date.seconds), "requestDate \(text) is not the server's Date")
        } else if extra.isEmpty {
            XCTFail("no requestDate in \(result.stdout)")
        }
        return (doc, result)
    }
}

final class IAPHUBTests: IAPHUBTestCase {
    /// Every key of an IAPHUB entitlement: what IAPHUB never tells (null, [] ) unless given.
    private func expected(_ id: String, _ fields: [String: JSONValue]) -> JSONValue {
        let keys = PlatformEntitlement.keys
        var all: [String: JSONValue] = ["id": .string(id), "isSandbox": .bool(false), "transactions": .array([]),
                                        "otherActiveSources": .array([])]
        all.merge(fields) { $1 }
        // UNTIL: the expiration, unless the expectation says when access was taken back.
        if all["accessEndDate"] == nil { all["accessEndDate"] = all["expirationDate"] }
        for key in all.keys where !keys.contains(key) { XCTFail("unknown key \(key) in the expectation") }
        return .object(JSONObject(keys.map { ($0, all[$0] ?? .null) }))
    }

    private func check(_ user: String, active: [String], _ expectations: [String: [String: JSONValue]],
                       env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        let (doc, _) = try entitlements(user, env: env)
        XCTAssertEqual(doc["customerId"], .string(user), file: file, line: line)
        XCTAssertEqual(doc["requestedId"], .string(user), file: file, line: line)
        XCTAssertEqual(doc["aliases"], .array([]), file: file, line: line)
        XCTAssertEqual(doc["activeEntitlements"], .array(active.map { .string($0) }), file: file, line: line)
        let got = doc["entitlements"]?.objectValue
        XCTAssertEqual(got?.keys.sorted(), expectations.keys.sorted(), file: file, line: line)
        for (id, fields) in expectations {
            XCTAssertEqual(got?[id], expected(id, fields), "\(user): \(id)", file: file, line: line)
        }
    }

    func testAnActiveRenewingSubscription() throws {
        try check("active-renewing", active: ["premium"], ["premium": [
            "isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"), "willRenew": .bool(true),
            "periodType": .string("normal"), "source": .string("playstore"), "grantType": .string("purchase"),
            "productId": .string("pro_monthly"), "lastPurchaseDate": .string("2026-11-20T10:00:00Z"),
            "expirationDate": .string("2026-12-20T10:00:00Z")]])
        let table = iaphub(["check", "active-renewing"])
        XCTAssertEqual(table.status, .success, table.stderr)
        XCTAssertTrue(table.stdout.contains("premium"), table.stdout)
        XCTAssertFalse(table.stdout.contains("premium:"), "active and renewing needs no sentence: \(table.stdout)")
    }

    func testGracePeriodWithFamilySharing() throws {
        try check("grace-family", active: ["premium"], ["premium": [
            "isActive": .bool(true), "state": .string("gracePeriod"), "renewState": .string("billingIssue"),
            "willRenew": .bool(false), "periodType": .string("normal"), "source": .string("appstore"),
            "grantType": .string("familySharing"), "productId": .string("pro_monthly"),
            "lastPurchaseDate": .string("2026-10-25T08:30:00Z"), "expirationDate": .string("2026-12-09T08:30:00Z")]])
        XCTAssertTrue(iaphub(["check", "grace-family"]).stdout.contains(
            "premium: in grace period — a renewal payment failed; access ends 2026-12-09 unless payment recovers; shared through family sharing\n"))
        XCTAssertEqual(iaphub(["check", "grace-family", "--require", "premium", "-q"]).status, .success)
    }

    func testRetryPeriodIsInactive() throws {
        try check("retry", active: [], ["premium": [
            "isActive": .bool(false), "state": .string("billingRetry"), "renewState": .string("billingIssue"),
            "willRenew": .bool(false), "periodType": .string("normal"), "source": .string("playstore"),
            "grantType": .string("purchase"), "productId": .string("pro_monthly"),
            "lastPurchaseDate": .string("2026-10-15T09:00:00Z"), "expirationDate": .string("2026-11-15T09:00:00Z")]])
        XCTAssertTrue(iaphub(["check", "retry"]).stdout.contains(
            "premium: billing retry — a renewal payment failed, access lost on 2026-11-15\n"))
        XCTAssertEqual(iaphub(["check", "retry", "--require", "premium", "-q"]).status, .requirementMissing)
    }

    func testAPausedSubscriptionWithItsResumeDate() throws {
        try check("paused", active: [], ["premium": [
            "isActive": .bool(false), "state": .string("paused"), "renewState": .string("willRenew"),
            "willRenew": .bool(false), "periodType": .string("normal"), "source": .string("playstore"),
            "grantType": .string("purchase"), "productId": .string("pro_monthly"),
            "lastPurchaseDate": .string("2026-09-01T12:00:00Z"), "expirationDate": .string("2026-10-01T12:00:00Z"),
            "autoResumeDate": .string("2027-01-01T12:00:00Z")]])
        XCTAssertTrue(iaphub(["check", "paused"]).stdout.contains("premium: paused from 2026-10-01 until 2027-01-01\n"))
    }

    func testACancelledTrialBoughtWithAPromoCode() throws {
        try check("promo-trial-cancelled", active: ["premium"], ["premium": [
            "isActive": .bool(true), "state": .string("active"), "renewState": .string("canceled"),
            "willRenew": .bool(false), "periodType": .string("trial"), "source": .string("appstore"),
            "grantType": .string("offerCode"), "productId": .string("pro_monthly"),
            "lastPurchaseDate": .string("2026-11-28T15:45:12Z"), "expirationDate": .string("2026-12-05T15:45:12Z"),
            "lastActivatedOfferCode": .string("SPRING26")]])
        XCTAssertTrue(iaphub(["check", "promo-trial-cancelled"]).stdout.contains(
            "premium: cancelled (auto-renew off), active until 2026-12-05; offer code SPRING26\n"))
    }

    func testALifetimeNonConsumableIsKeyedByItsSku() throws {
        try check("lifetime", active: ["lifetime_pro"], ["lifetime_pro": [
            "isActive": .bool(true), "state": .string("active"), "renewState": .string("nonRenewable"),
            "willRenew": .bool(false), "periodType": .string("normal"), "source": .string("playstore"),
            "grantType": .string("purchase"), "productId": .string("lifetime_pro"),
            "lastPurchaseDate": .string("2025-06-01T00:00:00Z")]])
    }

    func testAConsumableIsIgnored() throws {
        try check("consumable", active: [], [:])
        let table = iaphub(["check", "consumable"])
        XCTAssertEqual(table.status, .success)
        XCTAssertTrue(table.stdout.contains("no entitlements"), table.stdout)
    }

    func testUnknownValuesBecomeUnknownAndNeverAccess() throws {
        try check("unknown-platform", active: [], ["pro_web": [
            "isActive": .bool(false), "state": .string("unknown"), "renewState": .string("willRenew"),
            "willRenew": .bool(false), "periodType": .string("unknown"), "source": .string("unknown"),
            "grantType": .string("purchase"), "productId": .string("pro_web"),
            "lastPurchaseDate": .string("2026-11-20T10:00:00Z"), "expirationDate": .string("2026-12-20T10:00:00Z")]])
        XCTAssertEqual(iaphub(["check", "unknown-platform", "--require", "pro_web", "-q"]).status, .requirementMissing)
    }

    func testAPendingProductChangeWithinAndAcrossGroups() throws {
        try check("product-change", active: ["cloud", "premium"], [
            "premium": ["isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"),
                        "willRenew": .bool(true), "periodType": .string("normal"), "source": .string("playstore"),
                        "grantType": .string("purchase"), "productId": .string("pro_monthly"),
                        "lastPurchaseDate": .string("2026-11-20T10:00:00Z"), "expirationDate": .string("2026-12-20T10:00:00Z"),
                        "renewalProductId": .string("pro_yearly")],
            "cloud": ["isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"),
                      "willRenew": .bool(false), "periodType": .string("normal"), "source": .string("playstore"),
                      "grantType": .string("purchase"), "productId": .string("cloud_monthly"),
                      "lastPurchaseDate": .string("2026-11-20T10:00:00Z"), "expirationDate": .string("2026-12-20T10:00:00Z"),
                      "renewalProductId": .string("basic_monthly")],
        ])
        let table = iaphub(["check", "product-change"]).stdout
        XCTAssertTrue(table.contains("premium: switches to pro_yearly at the next renewal (2026-12-20)\n"), table)
        XCTAssertTrue(table.contains("cloud: ends 2026-12-20 — renews as basic_monthly, which does not include cloud\n"), table)
    }

    func testTwoProductsOfOneGroupTheLaterExpirationDescribesIt() throws {
        try check("two-in-group", active: ["premium"], ["premium": [
            "isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"), "willRenew": .bool(true),
            "periodType": .string("normal"), "source": .string("appstore"), "grantType": .string("purchase"),
            "productId": .string("pro_yearly"), "lastPurchaseDate": .string("2026-11-01T10:00:00Z"),
            "expirationDate": .string("2027-11-01T10:00:00Z")]])
    }

    func testTheEnvironmentComesFromSUBS_IAPHUB_ENVIRONMENT() throws {
        server.expectedQuery = "environment=staging&platform=ios"
        try check("active-renewing", active: ["premium"], ["premium": [
            "isActive": .bool(true), "state": .string("active"), "renewState": .string("willRenew"), "willRenew": .bool(true),
            "periodType": .string("normal"), "source": .string("playstore"), "grantType": .string("purchase"),
            "productId": .string("pro_monthly"), "lastPurchaseDate": .string("2026-11-20T10:00:00Z"),
            "expirationDate": .string("2026-12-20T10:00:00Z"), "isSandbox": .bool(true)]],
                  env: ["SUBS_IAPHUB_ENVIRONMENT": "staging"])
    }

    func testTheEnvironmentIsOneEncodedQueryValueAndEmptyMeansProduction() throws {
        server.expectedQuery = "environment=dev%20x%26upsert%3Dtrue&platform=ios"
        let odd = iaphub(["check", "retry", "-q"], env: ["SUBS_IAPHUB_ENVIRONMENT": "dev x&upsert=true"])
        XCTAssertEqual(odd.status, .success, odd.stderr)
        XCTAssertEqual(server.paths.count, 1)
        server.expectedQuery = "environment=production&platform=ios"
        XCTAssertEqual(iaphub(["check", "retry", "-q"], env: ["SUBS_IAPHUB_ENVIRONMENT": ""]).status, .success)
    }

    func testUserIdsArePercentEncodedAsOnePathSegment() throws {
        for (id, encoded) in [("alice/ü x", "alice%2F%C3%BC%20x"), ("..", "%2E%2E"), ("a?b#c%d+e&f=g", "a%3Fb%23c%25d%2Be%26f%3Dg")] {
            let result = iaphub(["check", id, "--json"])
            XCTAssertEqual(result.status, .success, result.stderr)
            XCTAssertEqual(try JSON.parse(result.stdout)["requestedId"], .string(id))
            XCTAssertEqual(server.paths.last, "/v1/app/\(IAPHUBTestServer.appId)/user/\(encoded)")
        }
    }

    func testAtProjectsTheCurrentAnswerWithANote() throws {
        // The cancelled trial ends 2026-12-05T15:45:12Z.
        let before = try entitlements("promo-trial-cancelled", ["--at", "2026-12-05T15:45:11Z"])
        XCTAssertEqual(before.doc["requestDate"], .string("2026-12-05T15:45:11Z"))
        XCTAssertEqual(before.doc["entitlements"]?["premium"]?["isActive"], .bool(true))
        XCTAssertEqual(before.doc["entitlements"]?["premium"]?["state"], .string("active"))
        XCTAssertEqual(before.result.stderr,
                       "subs: note: IAPHUB's user answer holds the products active now: the status at 2026-12-05T15:45:11Z is that answer projected to that date\n")
        for at in ["2026-12-05T15:45:12Z", "2027-01-01", "2026-11-28T15:45:11Z"] {
            let projected = try entitlements("promo-trial-cancelled", ["--at", at])
            XCTAssertEqual(projected.doc["entitlements"]?["premium"]?["isActive"], .bool(false), at)
            XCTAssertEqual(projected.doc["entitlements"]?["premium"]?["state"], .string("expired"), at)
            XCTAssertEqual(projected.doc["activeEntitlements"], .array([]), at)
        }
        // Grace ends at its expiration date too; a lifetime purchase stays.
        XCTAssertEqual(try entitlements("grace-family", ["--at", "2026-12-10"]).doc["entitlements"]?["premium"]?["state"], .string("expired"))
        XCTAssertEqual(try entitlements("lifetime", ["--at", "2030-01-01"]).doc["activeEntitlements"], .array([.string("lifetime_pro")]))
        XCTAssertEqual(iaphub(["check", "promo-trial-cancelled", "--at", "2027-01-01", "--require", "premium", "-q",
                                "--allow-projection"]).status, .requirementMissing)
    }

    func testSeveralUsersInOneCheck() throws {
        let result = iaphub(["check", "-", "--json"], stdin: "retry\nnobody\nlifetime\n")
        XCTAssertEqual(result.status, .notFound)
        XCTAssertEqual(result.stderr, "subs: error: customer 'nobody' not found\n")
        let docs = try JSON.parse(result.stdout).arrayValue ?? []
        XCTAssertEqual(docs.map { $0["customerId"] }, [.string("retry"), .null, .string("lifetime")])
    }

    func testMissingRemoteIsAUsageErrorSayingWhy() {
        for args in [["--provider", "iaphub", "check", "alice"], ["check", "alice", "--provider=iaphub"]] {
            let result = runCLI(args, env: ["SUBS_API_KEY": "k"])
            XCTAssertEqual(result.status, .usage, args.joined(separator: " "))
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: provider iaphub needs --remote https://api.iaphub.com/v1/app/APP_ID"),
                          result.stderr)
        }
        let fromEnvironment = runCLI(["check", "alice"], env: ["SUBS_PROVIDER": "iaphub", "SUBS_API_KEY": "k"])
        XCTAssertEqual(fromEnvironment.status, .usage)
    }

    func testWhatIAPHUBDoesNotOfferIsExit64WithASentenceAndNoRequest() {
        let cases: [([String], String)] = [
            (["grant", "alice", "premium", "--duration", "P1M"], "grant or revoke"),
            (["grant", "alice", "premium", "--lifetime"], "grant or revoke"),
            (["revoke", "alice", "premium"], "grant or revoke"),
        ]
        for (args, words) in cases {
            let result = iaphub(args)
            // 64, never 69: a script that retries on 69 ("unreachable") would retry this forever.
            XCTAssertEqual(result.status, .usage, args.joined(separator: " "))
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: IAPHUB") && result.stderr.contains(words), result.stderr)
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
        }
        XCTAssertEqual(server.paths, [], "nothing is asked of IAPHUB for what it does not offer")
    }
}
