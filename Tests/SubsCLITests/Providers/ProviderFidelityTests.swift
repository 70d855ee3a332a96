// Issue 20, provider by provider, against the loopback fakes: RevenueCat's Google Play prepaid
// plans and one-time purchases' dates, IAPHUB's products without a sku and its `platform`
// parameter, Qonversion's non_renewable, and — every provider — one malformed item that never
// hides the rest (a warning naming its path, exit 0; 76 only when nothing can be read).

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsProviders
@testable import SubsCLI

final class RevenueCatFidelityTests: RevenueCatTestCase {
    private func entitlement(_ doc: JSONValue, _ id: String) throws -> JSONObject {
        try XCTUnwrap(doc["entitlements"]?[id]?.objectValue, "no entitlement \(id)")
    }

    private func assertFields(_ e: JSONObject, _ expected: [String: JSONValue], file: StaticString = #filePath, line: UInt = #line) {
        var all = PlatformEntitlement.baseline.merging(expected) { $1 }
        all["id"] = e["id"]
        if expected["accessEndDate"] == nil { all["accessEndDate"] = all["expirationDate"] }
        XCTAssertEqual(Set(e.keys), Set(all.keys), file: file, line: line)
        for key in e.keys { XCTAssertEqual(e[key], all[key], key, file: file, line: line) }
    }

    func testAGooglePlayPrepaidPlanNeverRenews() throws {
        let doc = try checkJSON("pete")
        XCTAssertEqual(doc["projected"], .bool(false))
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium")]))
        assertFields(try entitlement(doc, "premium"), [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "periodType": .string("prepaid"),
            "source": .string("playstore"), "productId": .string("pro_play"),
            "startedDate": .string("2026-10-20T09:30:00Z"), "firstPurchaseDate": .string("2026-10-20T09:30:00Z"),
            "lastPurchaseDate": .string("2026-11-20T09:30:00Z"), "expirationDate": .string("2026-12-20T09:30:00Z"),
        ])
        let table = run(["check", "pete"])
        XCTAssertEqual(table.status, .success, table.stderr)
        XCTAssertTrue(table.stdout.contains("premium: prepaid plan, ends 2026-12-20; it does not renew by itself\n"), table.stdout)
        XCTAssertTrue(table.stdout.contains("active, won't renew"), table.stdout)
        // Once over, the sentence still says why it stopped.
        let after = run(["check", "pete", "--at", "2026-12-21"])
        XCTAssertTrue(after.stdout.contains("premium: prepaid plan, ended on 2026-12-20; it does not renew by itself\n"), after.stdout)
        // A prepaid period never renews, whatever else the subscription says (no unsubscribe, no issue).
        let tsv = run(["check", "pete", "--format", "tsv"]).stdout
        XCTAssertTrue(tsv.contains("\tnonRenewable\t") && tsv.contains("\tprepaid\t"), tsv)
    }

    func testAOneTimePurchaseStartsAtItsOriginalPurchaseDateEvenAfterARestore() throws {
        let doc = try checkJSON("rhea")
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium"), .string("tips")]))
        // Restored on 2026-11-28: the start stays the first purchase.
        assertFields(try entitlement(doc, "premium"), [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "productId": .string("lifetime_unlock"),
            "startedDate": .string("2025-01-20T08:00:00Z"), "firstPurchaseDate": .string("2025-01-20T08:00:00Z"),
            "lastPurchaseDate": .string("2026-11-28T16:10:00Z"),
        ])
        // No original_purchase_date: the purchase_date is the start.
        assertFields(try entitlement(doc, "tips"), [
            "renewState": .string("nonRenewable"), "willRenew": .bool(false), "productId": .string("tip_jar"),
            "startedDate": .string("2026-03-03T03:03:03Z"), "firstPurchaseDate": .string("2026-03-03T03:03:03Z"),
            "lastPurchaseDate": .string("2026-03-03T03:03:03Z"),
        ])
    }

    func testOneMalformedEntitlementOrPurchaseNeverHidesTheRest() throws {
        let result = run(["check", "mallory", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, [
            "subs: warning: subscriber.entitlements.cloud.expires_date: expected a string, found number "
                + "(RevenueCat's subscriber 'mallory': this item is left out, the rest is answered)",
            "subs: warning: subscriber.non_subscriptions.stickers[0].is_sandbox: expected true or false, found string "
                + "(RevenueCat's subscriber 'mallory': this item is left out, the rest is answered)",
        ].map { $0 + "\n" }.joined())
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["entitlements"]?.objectValue?.keys, ["premium"])
        assertFields(try entitlement(doc, "premium"), [
            "productId": .string("pro_monthly"), "startedDate": .string("2026-05-15T10:00:00Z"),
            "firstPurchaseDate": .string("2026-05-15T10:00:00Z"), "lastPurchaseDate": .string("2026-11-15T10:00:00Z"),
            "expirationDate": .string("2026-12-15T10:00:00Z"),
        ])
        XCTAssertEqual(run(["check", "mallory", "--require", "premium", "-q"]).status, .success)
        // What could not be read gives no access; the warning says why.
        let gate = run(["check", "mallory", "--require", "cloud", "-q"])
        XCTAssertEqual(gate.status, .requirementMissing)
        XCTAssertTrue(gate.stderr.contains("subscriber.entitlements.cloud.expires_date"), gate.stderr)
        // Others in a batch are answered alike.
        let batch = run(["check", "mallory", "tina", "--format", "jsonl"])
        XCTAssertEqual(batch.status, .success)
        XCTAssertEqual(batch.stdout.split(separator: "\n").count, 2)
    }

    /// A server that lies: ids that would drive the terminal, and thousands of malformed items.
    func testWarningsAreEscapedAndBoundedWhateverTheServerSends() throws {
        var entitlements: [(String, JSONValue)] = [("premium", .object(JSONObject([
            ("product_identifier", .string("p")), ("expires_date", .string("2027-01-01T00:00:00Z"))])))]
        entitlements.append(("evil\u{1B}[2J\u{202E}", .object(JSONObject([("expires_date", .string("\u{1B}]0;pwned\u{07}"))]))))
        for n in 0..<5000 { entitlements.append(("bad\(n)", .number("\(n)"))) }
        rc.set("flood", .object(JSONObject([
            ("request_date", .string(FakeRevenueCat.requestDate)),
            ("subscriber", .object(JSONObject([("entitlements", .object(JSONObject(entitlements)))]))),
        ])))
        let result = run(["check", "flood", "--json"])
        XCTAssertEqual(result.status, .success, String(result.stderr.prefix(500)))
        XCTAssertEqual(try JSON.parse(result.stdout)["activeEntitlements"], .array([.string("premium")]))
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, Commands.warningLimit + 1, "one line per warning up to the limit, then a count")
        XCTAssertEqual(lines.last, "subs: warning: \(5001 - Commands.warningLimit) more warnings like these, not shown")
        XCTAssertFalse(result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E },
                       "raw control or bidi characters reached stderr")
        // The path quotes the key as JSON (ESC as \u001b), and the terminal escaping shows that backslash.
        XCTAssertTrue(lines[0].hasPrefix("subs: warning: subscriber.entitlements[\"evil\\\\u001b[2J\\u202e\"].expires_date: "),
                      String(lines[0]))
    }

    func testNothingReadableIsStill76() {
        let bodies: [(String, String)] = [
            (#"{"request_date": "2026-12-01T12:00:00Z", "subscriber": {"entitlements": {"a": [], "b": {"purchase_date": 5}}}}"#,
             "subscriber.entitlements.a: expected an object, found array"),
            (#"{"request_date": "2026-12-01T12:00:00Z", "subscriber": "mallory"}"#, "subscriber: expected an object, found string"),
            (#"[{"request_date": "2026-12-01T12:00:00Z"}]"#, "expected an object, found array"),
        ]
        for (body, words) in bodies {
            rc.script = { _, _ in HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(body.utf8)) }
            let result = run(["check", "mallory"])
            XCTAssertEqual(result.status, .protocolError, body)
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: ") && result.stderr.contains(words), result.stderr)
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
        }
    }

    /// The issue's example: first purchase 2025-01-20, `--at 2024-02-01`.
    func testAProjectionIsNeverActiveBeforeTheFirstPurchaseAndSaysItIsOne() throws {
        let result = run(["check", "rhea", "--at", "2024-02-01", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["projected"], .bool(true))
        XCTAssertEqual(doc["requestDate"], .string("2024-02-01T00:00:00Z"))
        XCTAssertEqual(doc["activeEntitlements"], .array([]))
        let premium = try entitlement(doc, "premium")
        XCTAssertEqual(premium["isActive"], .bool(false))
        XCTAssertEqual(premium["state"], .string("expired"))
        XCTAssertEqual(premium["willRenew"], .bool(false))
        XCTAssertTrue(result.stderr.contains("subs: note: RevenueCat's API v1 answers the current record only"), result.stderr)
        XCTAssertTrue(run(["check", "rhea", "--at", "2024-02-01"]).stdout.contains(
            "premium: not bought yet at that date — first purchase 2025-01-20 (a projection of the current record)\n"))
        // From the first purchase on, the record holds; exactly at it, it has begun.
        let begun = try JSON.parse(run(["check", "rhea", "--at", "2025-01-20T08:00:00Z", "--json"]).stdout)
        XCTAssertEqual(begun["activeEntitlements"], .array([.string("premium")]))
        XCTAssertEqual(begun["projected"], .bool(true))
        // A subscription too: carl's started 2026-06-15.
        let carl = try JSON.parse(run(["check", "carl", "--at", "2026-06-15T09:59:59Z", "--json"]).stdout)
        XCTAssertEqual(carl["entitlements"]?["premium"]?["isActive"], .bool(false))
        XCTAssertEqual(try JSON.parse(run(["check", "carl", "--at", "2026-06-15T10:00:00Z", "--json"]).stdout)["activeEntitlements"],
                       .array([.string("premium")]))
    }

    func testRequireRefusesToGateOnAProjectionUnlessAllowed() {
        rc.script = nil
        let before = rc.requestCount
        let refused = run(["check", "rhea", "--at", "2024-02-01", "--require", "premium", "-q"])
        XCTAssertEqual(refused.status, .usage)
        XCTAssertEqual(refused.stderr, "subs: error: --require will not gate on a projection: provider revenuecat answers for now "
                       + "only, so the status at 2024-02-01T00:00:00Z would be its current record projected to that date "
                       + "(add --allow-projection to gate on it anyway)\n")
        XCTAssertEqual(rc.requestCount, before, "refused before anything is sent")
        // Allowed: the projection gates, and it does not pass before the first purchase.
        XCTAssertEqual(run(["check", "rhea", "--at", "2024-02-01", "--require", "premium", "-q", "--allow-projection"]).status,
                       .requirementMissing)
        XCTAssertEqual(run(["check", "rhea", "--at", "2026-01-01", "--require", "premium", "-q", "--allow-projection"]).status,
                       .success)
        // Without --at nothing is projected: --require gates as always, --allow-projection changes nothing.
        XCTAssertEqual(run(["check", "rhea", "--require", "premium", "-q"]).status, .success)
        XCTAssertEqual(run(["check", "rhea", "--require", "premium", "-q", "--allow-projection"]).status, .success)
        XCTAssertEqual(run(["check", "rhea", "--at", "2024-02-01", "-q"]).status, .success, "no --require: nothing to refuse")
    }
}

final class IAPHUBFidelityTests: IAPHUBTestCase {
    func testAProductWithoutASkuIsKeyedByItsGroupElseItsIdAndNothingIsLost() throws {
        let (doc, result) = try entitlements("missing-sku")
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("7a11d0c5d3b1c80012340002"), .string("premium"),
                                                          .string("season_pass")]))
        let premium = doc["entitlements"]?["premium"]
        XCTAssertEqual(premium?["productId"], .null, "no sku on the platform asked for")
        XCTAssertEqual(premium?["source"], .string("playstore"), "bought on Android, whatever is asked")
        XCTAssertEqual(premium?["state"], .string("active"))
        XCTAssertEqual(premium?["willRenew"], .bool(true))
        let promo = doc["entitlements"]?["7a11d0c5d3b1c80012340002"]
        XCTAssertEqual(promo?["productId"], .null)
        XCTAssertEqual(promo?["grantType"], .string("offerCode"))
        XCTAssertEqual(promo?["lastActivatedOfferCode"], .string("LAUNCH-GIFT"))
        XCTAssertEqual(promo?["renewState"], .string("nonRenewable"))
        XCTAssertEqual(doc["entitlements"]?["season_pass"]?["productId"], .string("season_pass"))
        XCTAssertTrue(iaphub(["check", "missing-sku"]).stdout.contains("season_pass: does not renew; active until 2027-02-01\n"))
    }

    func testThePlatformParameterIsSentAndDecidesTheSku() throws {
        // Default: ios (the server checks the query of every request).
        let ios = try entitlements("cross-platform")
        XCTAssertEqual(ios.doc["entitlements"]?["5e51"]?["productId"], .null)
        server.expectedQuery = "environment=production&platform=android"
        for (args, env) in [(["--iaphub-platform", "android"], [:]), (["--iaphub-platform=android"], [:]),
                            ([], ["SUBS_IAPHUB_PLATFORM": "android"])] as [([String], [String: String])] {
            let result = iaphub(args + ["check", "cross-platform", "--json"], env: env)
            XCTAssertEqual(result.status, .success, result.stderr)
            XCTAssertEqual(try JSON.parse(result.stdout)["entitlements"]?["pro_monthly"]?["productId"], .string("pro_monthly"))
        }
        let config = dir.write("config", "iaphub-platform = android\n")
        XCTAssertEqual(iaphub(["check", "cross-platform", "-q"], env: ["SUBS_CONFIG": config]).status, .success)
        // The flag wins over the environment, the environment over the config file.
        server.expectedQuery = "environment=production&platform=ios"
        XCTAssertEqual(iaphub(["--iaphub-platform", "ios", "check", "cross-platform", "-q"],
                              env: ["SUBS_IAPHUB_PLATFORM": "android"]).status, .success)
        XCTAssertEqual(iaphub(["check", "cross-platform", "-q"], env: ["SUBS_IAPHUB_PLATFORM": "ios", "SUBS_CONFIG": config]).status,
                       .success)
        // Only what IAPHUB takes: a usage error on the command line, a configuration error elsewhere.
        let before = server.paths.count
        let flag = iaphub(["--iaphub-platform", "web", "check", "cross-platform"])
        XCTAssertEqual(flag.status, .usage, flag.stderr)
        XCTAssertTrue(flag.stderr.contains("--iaphub-platform"), flag.stderr)
        XCTAssertEqual(iaphub(["check", "cross-platform"], env: ["SUBS_IAPHUB_PLATFORM": "Android"]).status, .configError)
        let badConfig = dir.write("bad-config", "iaphub-platform = windows\n")
        XCTAssertEqual(iaphub(["check", "cross-platform"], env: ["SUBS_CONFIG": badConfig]).status, .configError)
        XCTAssertEqual(server.paths.count, before, "nothing sent with a bad platform")
    }

    func testOneMalformedProductNeverHidesTheRest() throws {
        let (doc, result) = try entitlements("one-malformed")
        XCTAssertEqual(result.stderr, "subs: warning: activeProducts[2].expirationDate: expected an ISO 8601 date, found \"next week\" "
                       + "(IAPHUB user 'one-malformed': this item is left out, the rest is answered)\n")
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("lifetime_pro"), .string("premium")]))
        XCTAssertEqual(doc["entitlements"]?.objectValue?.keys, ["lifetime_pro", "premium"])
        XCTAssertEqual(doc["entitlements"]?["premium"]?["expirationDate"], .string("2026-12-20T10:00:00Z"))
        XCTAssertEqual(iaphub(["check", "one-malformed", "--require", "premium", "-q"]).status, .success)
        XCTAssertEqual(iaphub(["check", "one-malformed", "--require", "cloud", "-q"]).status, .requirementMissing)
        // A product of a type the decoder cannot read at all, next to a good one.
        let decoded = try IAPHUBAnswer.decode(Array(#"{"activeProducts":[7,{"sku":"a","type":"non_consumable"},{"sku":"b"},{"type":"x"}]}"#.utf8))
        XCTAssertEqual(decoded.activeProducts.map(\.sku), ["a"])
        XCTAssertEqual(decoded.problems.map(\.path), ["activeProducts[0]", "activeProducts[2].type", "activeProducts[3]"])
    }

    func testAProjectionIsMarkedAndRefusedAsAGate() throws {
        let projected = try entitlements("promo-trial-cancelled", ["--at", "2026-12-01"])
        XCTAssertEqual(projected.doc["projected"], .bool(true))
        XCTAssertEqual(try entitlements("promo-trial-cancelled").doc["projected"], .bool(false))
        let refused = iaphub(["check", "promo-trial-cancelled", "--at", "2026-12-01", "--require", "premium"])
        XCTAssertEqual(refused.status, .usage)
        XCTAssertTrue(refused.stderr.hasPrefix("subs: error: --require will not gate on a projection: provider iaphub"), refused.stderr)
        XCTAssertEqual(iaphub(["check", "promo-trial-cancelled", "--at", "2026-12-01", "--require", "premium", "-q",
                               "--allow-projection"]).status, .success)
        // Before the purchase date the answer tells of, nothing was bought yet.
        let early = iaphub(["check", "promo-trial-cancelled", "--at", "2026-11-01"])
        XCTAssertTrue(early.stdout.contains("premium: not bought yet at that date — first purchase 2026-11-28"), early.stdout)
    }
}

final class QonversionFidelityTests: XCTestCase {
    private var api: QonversionFakeAPI!
    private var dir: TempDir!

    override func setUpWithError() throws {
        api = try QonversionFakeAPI()
        dir = TempDir()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Repo.path("Tests/Fixtures/qonversion/one-malformed.json")))
        api.setUser("QON_mal", try JSON.parse(Array(bytes))["data"]?.arrayValue ?? [])
    }

    override func tearDown() {
        api.stop()
        XCTAssertEqual(api.problems, [])
    }

    private func run(_ args: [String]) -> CLIResult {
        runQonversion(args, remote: api.base, cache: dir.path + "/cache")
    }

    func testOneMalformedEntitlementNeverHidesTheRest() throws {
        let result = run(["check", "QON_mal", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "subs: warning: data[1].expires: expected epoch seconds, found string "
                       + "(Qonversion user 'QON_mal': this item is left out, the rest is answered)\n")
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("lifetime"), .string("plus")]))
        XCTAssertEqual(doc["entitlements"]?["plus"]?["renewState"], .string("willRenew"))
        XCTAssertEqual(doc["entitlements"]?["lifetime"]?["productId"], .string("lifetime_web"))
        // Every element unreadable: nothing of the user can be told.
        api.setUser("QON_bad", [.number("7"), .object(JSONObject([("id", .string("x"))]))])
        let bad = run(["check", "QON_bad"])
        XCTAssertEqual(bad.status, .protocolError, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("data[0]: expected object, found number"), bad.stderr)
    }

    func testNonRenewableIsNonRenewable() throws {
        let doc = try JSON.parse(run(["check", "QON_non-renewable", "--json"]).stdout)
        XCTAssertEqual(doc["entitlements"]?["plus"]?["renewState"], .string("nonRenewable"))
        XCTAssertEqual(doc["entitlements"]?["plus"]?["willRenew"], .bool(false))
        XCTAssertEqual(doc["entitlements"]?["plus"]?["state"], .string("active"))
    }

    func testAProjectionIsMarkedNeverActiveBeforeItStartedAndRefusedAsAGate() throws {
        // renewing: started 2025-11-18T21:06:40Z.
        let early = run(["check", "QON_renewing", "--at", "2025-01-01", "--json"])
        let doc = try JSON.parse(early.stdout)
        XCTAssertEqual(doc["projected"], .bool(true))
        XCTAssertEqual(doc["entitlements"]?["plus"]?["isActive"], .bool(false))
        XCTAssertEqual(try JSON.parse(run(["check", "QON_renewing", "--json"]).stdout)["projected"], .bool(false))
        XCTAssertTrue(run(["check", "QON_renewing", "--at", "2025-01-01"]).stdout.contains(
            "plus: not bought yet at that date — first purchase 2025-11-18"))
        XCTAssertEqual(run(["check", "QON_renewing", "--at", "2026-11-25", "--require", "plus"]).status, .usage)
        XCTAssertEqual(run(["check", "QON_renewing", "--at", "2026-11-25", "--require", "plus", "-q", "--allow-projection"]).status,
                       .success)
    }
}

/// The local store (and so `subs serve`, which the client judges with the same rules) answers for
/// any T from its records: never a projection, and `--require` gates on it as always.
final class LocalStoreIsNeverProjectedTests: XCTestCase {
    func testTheStoreJudgesItsRecordsAtT() throws {
        let dir = TempDir()
        let store = dir.write("store.json", TestStore.json)
        for at in [[], ["--at", "2020-01-01"], ["--at", "2026-12-01T12:00:00Z"]] {
            let result = runCLI(["--store", store, "check", "alice", "--json"] + at)
            XCTAssertEqual(result.status, .success, result.stderr)
            XCTAssertEqual(try JSON.parse(result.stdout)["projected"], .bool(false), "\(at)")
        }
        XCTAssertEqual(runCLI(["--store", store, "check", "alice", "--at", "2026-12-01T12:00:00Z", "--require", "premium", "-q"]).status,
                       .success)
    }
}
