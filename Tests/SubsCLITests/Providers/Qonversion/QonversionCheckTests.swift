// `--provider qonversion check`: every fixture of Tests/Fixtures/qonversion mapped field by field
// (SPEC section 6), identities resolved (and QON_ ids not), requestDate from the HTTP Date
// header, and --at as a projection with its note.

import XCTest
import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsCLI

final class QonversionCheckTests: XCTestCase {
    private var api: QonversionFakeAPI!
    private var dir: TempDir!

    override func setUpWithError() throws {
        api = try QonversionFakeAPI()
        dir = TempDir()
    }

    override func tearDown() {
        api.stop()
        XCTAssertEqual(api.problems, [], "requests the fake Qonversion API did not expect")
    }

    private func run(_ args: [String], date: PinnedDateTransport.Mode = .set(qonversionDate)) -> CLIResult {
        runQonversion(args, remote: api.base, cache: dir.path + "/cache", date: date)
    }

    /// An entitlement document as `check --json` prints it: every key, in order, null unless given.
    private func entitlement(_ given: [String: JSONValue]) -> JSONValue {
        let keys = PlatformEntitlement.keys
        // UNTIL is the expiration unless the expectation says when access was taken back.
        let defaults: [String: JSONValue] = ["isSandbox": .bool(false), "transactions": .array([]),
                                             "otherActiveSources": .array([]), "accessEndDate": given["expirationDate"] ?? .null]
        return .object(JSONObject(keys.map { ($0, given[$0] ?? defaults[$0] ?? .null) }))
    }

    private func s(_ text: String) -> JSONValue { .string(text) }

    func testEveryFixtureMapsFieldByField() throws {
        let t = JSONValue.bool(true), f = JSONValue.bool(false)
        let cases: [(String, [JSONValue])] = [
            ("renewing", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("willRenew"), "willRenew": t,
                "periodType": s("normal"), "source": s("appstore"), "grantType": s("purchase"), "productId": s("plus_monthly"),
                "startedDate": s("2025-11-18T21:06:40Z"), "expirationDate": s("2026-11-28T10:00:00Z")])]),
            ("trial-canceled", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("canceled"), "willRenew": f,
                "periodType": s("trial"), "source": s("playstore"), "grantType": s("purchase"),
                "productId": s("plus_annual_trial"), "startedDate": s("2026-11-18T11:06:40Z"),
                "expirationDate": s("2026-11-25T11:06:40Z")])]),
            ("billing-active", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("gracePeriod"), "renewState": s("billingIssue"), "willRenew": f,
                "periodType": s("normal"), "source": s("appstore"), "grantType": s("purchase"), "productId": s("plus_monthly"),
                "startedDate": s("2026-09-21T14:13:20Z"), "expirationDate": s("2026-12-04T16:00:00Z")])]),
            ("billing-lapsed", [entitlement([
                "id": s("plus"), "isActive": f, "state": s("expired"), "renewState": s("billingIssue"), "willRenew": f,
                "periodType": s("normal"), "source": s("playstore"), "grantType": s("purchase"), "productId": s("plus_monthly"),
                "startedDate": s("2026-05-28T20:26:40Z"), "expirationDate": s("2026-09-21T14:13:20Z")])]),
            ("intro", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("willRenew"), "willRenew": t,
                "periodType": s("intro"), "source": s("stripe"), "grantType": s("purchase"), "productId": s("plus_intro"),
                "startedDate": s("2026-11-06T21:20:00Z"), "expirationDate": s("2026-12-06T23:33:20Z")])]),
            ("lifetime", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("nonRenewable"), "willRenew": f,
                "periodType": s("normal"), "source": s("appstore"), "grantType": s("purchase"), "productId": s("plus_lifetime"),
                "startedDate": s("2023-11-14T22:13:20Z")])]),
            ("manual", [entitlement([
                "id": s("beta"), "isActive": t, "state": s("active"), "renewState": s("nonRenewable"), "willRenew": f,
                "periodType": s("promotional"), "source": s("manual"), "grantType": s("manual"),
                "startedDate": s("2026-11-23T02:13:20Z"), "expirationDate": s("2026-12-23T04:26:40Z")])]),
            ("unknown-values", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("unknown"), "willRenew": f,
                "periodType": s("unknown"), "source": s("unknown"), "grantType": s("purchase"), "productId": s("plus_web"),
                "startedDate": s("2026-11-18T11:06:40Z"), "expirationDate": s("2026-12-11T14:40:00Z")]),
                entitlement([
                "id": s("zeta"), "isActive": f, "state": s("expired"), "renewState": s("willRenew"), "willRenew": t,
                "periodType": s("normal"), "source": s("unknown"), "grantType": s("purchase"), "productId": s("zeta_monthly")])]),
            ("expiry-zero", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("nonRenewable"), "willRenew": f,
                "periodType": s("promotional"), "source": s("manual"), "grantType": s("manual")])]),
            ("empty", []),
            ("non-renewable", [entitlement([
                "id": s("plus"), "isActive": t, "state": s("active"), "renewState": s("nonRenewable"), "willRenew": f,
                "periodType": s("normal"), "source": s("playstore"), "grantType": s("purchase"),
                "productId": s("plus_prepaid_month"), "startedDate": s("2026-11-18T11:06:40Z"),
                "expirationDate": s("2026-12-18T13:20:00Z")])]),
        ]
        XCTAssertEqual(cases.map(\.0), QonversionFakeAPI.fixtureNames, "a fixture without expectations")
        for (name, expected) in cases {
            let result = run(["check", "QON_\(name)", "--json"])
            XCTAssertEqual(result.status, .success, "\(name): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", name)
            let doc = try JSON.parse(result.stdout)
            XCTAssertEqual(doc["customerId"], s("QON_\(name)"), name)
            XCTAssertEqual(doc["requestedId"], s("QON_\(name)"), name)
            XCTAssertEqual(doc["requestDate"], s("2026-11-23T10:00:00Z"), name)
            XCTAssertEqual(doc["aliases"], .array([]), name)
            XCTAssertEqual(doc["firstSeen"], .null, name)
            XCTAssertEqual(doc["attributes"], .null, name)
            let active = expected.filter { $0["isActive"] == t }.compactMap { $0["id"] }
            XCTAssertEqual(doc["activeEntitlements"], .array(active), name)
            let entitlements = try XCTUnwrap(doc["entitlements"]?.objectValue, name)
            XCTAssertEqual(entitlements.keys, expected.compactMap { $0["id"]?.stringValue }, name)
            for e in expected {
                let id = try XCTUnwrap(e["id"]?.stringValue)
                XCTAssertEqual(entitlements[id], e, "\(name).\(id)")
            }
        }
    }

    func testTheTableTellsEveryFixtureInWords() {
        for name in QonversionFakeAPI.fixtureNames {
            let result = run(["check", "QON_\(name)"])
            XCTAssertEqual(result.status, .success, "\(name): \(result.stderr)")
            XCTAssertFalse(result.stdout.contains("?"), "\(name): a date v3 does not carry shown as '?':\n\(result.stdout)")
        }
        XCTAssertTrue(run(["check", "QON_billing-active"]).stdout.contains("plus: in grace period"))
        XCTAssertTrue(run(["check", "QON_trial-canceled"]).stdout.contains("plus: cancelled (auto-renew off), active until 2026-11-25"))
        XCTAssertTrue(run(["check", "QON_manual"]).stdout.contains("beta: manual grant, until 2026-12-23"))
        XCTAssertTrue(run(["check", "QON_billing-lapsed"]).stdout.contains("plus: expired on 2026-09-21 after a billing issue"))
        XCTAssertTrue(run(["check", "QON_lifetime"]).stdout.contains("plus: one-time purchase of plus_lifetime, no expiration"))
        XCTAssertTrue(run(["check", "QON_non-renewable"]).stdout.contains("plus: does not renew; active until 2026-12-18\n"))
    }

    func testAnIdentityIsResolvedAndAQonversionIdIsUsedAsIs() throws {
        let result = run(["check", "alice", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["customerId"], s("alice"))
        XCTAssertEqual(doc["requestedId"], s("alice"))
        XCTAssertEqual(doc["aliases"], .array([s("QON_renewing")]))
        XCTAssertEqual(doc["activeEntitlements"], .array([s("plus")]))
        XCTAssertEqual(api.seen.map { "\($0.method) \($0.target)" },
                       ["GET /v3/identities/alice", "GET /v3/users/QON_renewing/entitlements"])

        api.forget()
        XCTAssertEqual(run(["check", "QON_renewing", "-q"]).status, .success)
        XCTAssertEqual(api.seen.map(\.target), ["/v3/users/QON_renewing/entitlements"], "no identity lookup for a QON_ id")

        // Ids that are not plain: each one path segment, percent-encoded (the fake API checks it).
        for (identity, target) in [("a/b c+é", "/v3/identities/a%2Fb%20c%2B%C3%A9"), ("..", "/v3/identities/%2E%2E"),
                                   ("with/slash", "/v3/identities/with%2Fslash")] {
            api.forget()
            let odd = run(["check", identity, "--json"])
            XCTAssertEqual(odd.status, .success, "\(identity): \(odd.stderr)")
            XCTAssertEqual(api.seen.first?.target, target)
            XCTAssertEqual(try JSON.parse(odd.stdout)["customerId"], s(identity))
        }
        XCTAssertEqual(api.seen.last?.target, "/v3/users/QON_odd%2Fuser%20id/entitlements")
    }

    func testAnUnknownIdentityOrUserIsNotFoundAndTheOthersStillPrint() throws {
        api.forget()
        let ghost = run(["check", "ghost"])
        XCTAssertEqual(ghost.status, .notFound)
        XCTAssertEqual(ghost.stderr, "subs: error: customer 'ghost' not found\n")
        XCTAssertEqual(api.seen.map(\.target), ["/v3/identities/ghost"], "no entitlements asked for an unknown identity")
        XCTAssertEqual(run(["check", "QON_nobody"]).status, .notFound)

        let mixed = run(["check", "ghost", "alice", "QON_nobody", "QON_intro", "--json"])
        XCTAssertEqual(mixed.status, .notFound)
        let docs = try XCTUnwrap(JSON.parse(mixed.stdout).arrayValue)
        XCTAssertEqual(docs.map { $0["customerId"] }, [.null, s("alice"), .null, s("QON_intro")])
        XCTAssertEqual(mixed.stderr.components(separatedBy: "not found").count - 1, 2, mixed.stderr)
        XCTAssertEqual(run(["check", "alice", "--require", "plus", "-q"]).status, .success)
        XCTAssertEqual(run(["check", "QON_billing-lapsed", "--require", "plus", "-q"]).status, .requirementMissing)
    }

    func testRequestDateIsTheServersDateHeaderElseTheLocalClock() throws {
        let pinned = try JSON.parse(run(["check", "QON_renewing", "--json"]).stdout)
        XCTAssertEqual(pinned["requestDate"], s("2026-11-23T10:00:00Z"))
        let other = try JSON.parse(run(["check", "QON_renewing", "--json"], date: .set("Tue, 01 Jun 2027 08:30:00 GMT")).stdout)
        XCTAssertEqual(other["requestDate"], s("2027-06-01T08:30:00Z"))
        // isActive is Qonversion's `active`, whatever the dates say (only --at projects).
        XCTAssertEqual(other["activeEntitlements"], .array([s("plus")]))

        let noDate = try JSON.parse(run(["check", "QON_renewing", "--json"], date: .drop).stdout)
        XCTAssertEqual(noDate["requestDate"], s(testNow), "without a Date header: the local clock (SUBS_NOW)")
        let unreadable = try JSON.parse(run(["check", "QON_renewing", "--json"], date: .set("yesterday")).stdout)
        XCTAssertEqual(unreadable["requestDate"], s(testNow))

        // The engine's own Date, unpinned: the real clock around the request, not SUBS_NOW.
        let before = Int64(Date().timeIntervalSince1970)
        let real = try JSON.parse(run(["check", "QON_renewing", "--json"], date: .keep).stdout)
        let after = Int64(Date().timeIntervalSince1970)
        let seconds = try XCTUnwrap(real["requestDate"]?.stringValue.flatMap(ISODate.parse)).seconds
        XCTAssertTrue(before - 1 <= seconds && seconds <= after + 1, "\(seconds) not in [\(before), \(after)]")
    }

    func testAtProjectsTheCurrentRecordWithANote() throws {
        func at(_ user: String, _ date: String) throws -> (doc: JSONValue, stderr: String) {
            let result = run(["check", user, "--at", date, "--json"])
            XCTAssertEqual(result.status, .success, result.stderr)
            return (try JSON.parse(result.stdout), result.stderr)
        }
        // renewing: started 2025-11-18T21:06:40Z, expires 2026-11-28T10:00:00Z.
        let inside = try at("QON_renewing", "2026-11-25")
        XCTAssertEqual(inside.doc["requestDate"], s("2026-11-25T00:00:00Z"))
        XCTAssertEqual(inside.doc["entitlements"]?["plus"]?["isActive"], .bool(true))
        XCTAssertEqual(inside.stderr, "subs: note: Qonversion's API v3 answers the current record only; it was projected "
                       + "to 2026-11-25T00:00:00Z (active when started ≤ T < expires)\n")
        XCTAssertEqual(try at("QON_renewing", "2026-11-28T10:00:00Z").doc["entitlements"]?["plus"]?["state"], s("expired"),
                       "exactly at expires: ended")
        XCTAssertEqual(try at("QON_renewing", "2026-11-28T09:59:59Z").doc["entitlements"]?["plus"]?["isActive"], .bool(true))
        XCTAssertEqual(try at("QON_renewing", "2025-11-18T21:06:40Z").doc["entitlements"]?["plus"]?["isActive"], .bool(true),
                       "exactly at started: begun")
        XCTAssertEqual(try at("QON_renewing", "2025-11-18T21:06:39Z").doc["entitlements"]?["plus"]?["isActive"], .bool(false))
        // No expiry: active from started on, whatever T.
        XCTAssertEqual(try at("QON_lifetime", "9999-01-01").doc["activeEntitlements"], .array([s("plus")]))
        XCTAssertEqual(try at("QON_expiry-zero", "0001-01-01").doc["activeEntitlements"], .array([s("plus")]))
        // Inactive now, active at a T inside its dates; a billing issue then reads as grace.
        let lapsed = try at("QON_billing-lapsed", "2026-07-01").doc["entitlements"]?["plus"]
        XCTAssertEqual(lapsed?["isActive"], .bool(true))
        XCTAssertEqual(lapsed?["state"], s("gracePeriod"))
        // One note for several users.
        let several = run(["check", "QON_renewing", "alice", "--at", "2026-11-25"])
        XCTAssertEqual(several.stderr.components(separatedBy: "subs: note:").count - 1, 1, several.stderr)
    }

    func testWithoutRemoteTheDefaultBaseURLIsUsed() {
        let transport = RecordingTransport()
        let result = runQonversion(["check", "alice"], remote: nil, cache: dir.path + "/cache", transport: transport)
        XCTAssertEqual(result.status, .notFound, result.stderr)
        XCTAssertEqual(transport.urls, ["https://api.qonversion.io/v3/identities/alice"])
    }
}
