// `--provider qonversion grant` / `revoke`: POST {"id", "expires"} in epoch seconds and DELETE,
// with the secret key; what v3 cannot do (lifetime, dry run, batches, history, renewal counts)
// is exit 64 with a sentence naming what can, and nothing is sent.

import XCTest
import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsCLI

final class QonversionWriteTests: XCTestCase {
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

    private func run(_ args: [String], key: String = QonversionFakeAPI.secretKey) -> CLIResult {
        runQonversion(args, remote: api.base, key: key, cache: dir.path + "/cache")
    }

    /// SUBS_NOW (2026-12-01T12:00:00Z) as epoch seconds.
    private let now: Int64 = 1_796_126_400

    func testGrantPostsTheEntitlementAndItsExpiryInEpochSeconds() throws {
        for (option, expires) in [(["--duration", "P1M"], now + 31 * 86_400), (["--until", "2027-03-01T00:00:00Z"], Int64(1_803_859_200)),
                                  (["--until", "2026-12-01T12:00:01Z"], now + 1)] {
            api.forget()
            let result = run(["grant", "alice", "beta", "--json"] + option)
            XCTAssertEqual(result.status, .success, "\(option): \(result.stderr)")
            XCTAssertEqual(api.seen.map { "\($0.method) \($0.target)" },
                           ["GET /v3/identities/alice", "POST /v3/users/QON_renewing/entitlements"])
            XCTAssertEqual(api.seen.last?.body, #"{"id":"beta","expires":\#(expires)}"#)
            let doc = try JSON.parse(result.stdout)
            XCTAssertEqual(doc["customerId"], .string("alice"))
            XCTAssertEqual(doc["dryRun"], .bool(false))
            let grant = try XCTUnwrap(doc["grants"]?.arrayValue?.first)
            XCTAssertEqual(grant["entitlement"], .string("beta"))
            XCTAssertEqual(grant["grantedAt"], .string(testNow))
            XCTAssertEqual(grant["expirationDate"], .string(ISODate.format(Instant(seconds: expires))))
            let e = doc["entitlement"]
            XCTAssertEqual(e?["isActive"], .bool(true))
            XCTAssertEqual(e?["source"], .string("manual"))
            XCTAssertEqual(e?["grantType"], .string("manual"))
            XCTAssertEqual(e?["periodType"], .string("promotional"))
            XCTAssertEqual(e?["renewState"], .string("nonRenewable"))
            XCTAssertEqual(e?["expirationDate"], .string(ISODate.format(Instant(seconds: expires))))
        }
        // A Qonversion id goes straight to the user; an entitlement id is one encoded segment of the body.
        api.forget()
        XCTAssertEqual(run(["grant", "QON_manual", "be/ta x", "--duration", "P1D", "-q"]).status, .success)
        XCTAssertEqual(api.seen.map(\.target), ["/v3/users/QON_manual/entitlements"])
        XCTAssertEqual(api.seen.last?.body, #"{"id":"be/ta x","expires":\#(now + 86_400)}"#)
    }

    func testGrantSaysWhatV3DoesNotKeep() {
        let result = run(["grant", "alice", "beta", "--duration", "P1D", "--reason", "goodwill"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "subs: note: Qonversion's API v3 keeps no reason for a grant; --reason was not sent\n")
        XCTAssertTrue(result.stdout.contains("alice: granted beta until 2026-12-02"), result.stdout)
    }

    func testRevokeDeletesTheManualEntitlement() throws {
        XCTAssertEqual(run(["grant", "bob", "beta", "--until", "2027-01-01", "-q"]).status, .success)
        api.forget()
        let result = run(["revoke", "bob", "beta", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(api.seen.map { "\($0.method) \($0.target)" },
                       ["GET /v3/identities/bob", "GET /v3/users/QON_billing-active/entitlements",
                        "DELETE /v3/users/QON_billing-active/entitlements/beta", "GET /v3/users/QON_billing-active/entitlements"])
        XCTAssertEqual(api.seen[2].body, "")
        let doc = try JSON.parse(result.stdout)
        let grant = try XCTUnwrap(doc["grants"]?.arrayValue?.first)
        XCTAssertEqual(grant["entitlement"], .string("beta"))
        XCTAssertEqual(grant["expirationDate"], .string("2027-01-01T00:00:00Z"))
        XCTAssertEqual(grant["revokedAt"], .string(testNow))
        XCTAssertEqual(doc["entitlement"], .null, "no source of beta left")
        XCTAssertFalse(api.entitlements(of: "QON_billing-active").contains { $0["id"] == .string("beta") })

        // Nothing left to revoke: 3, as for the local store.
        let again = run(["revoke", "bob", "beta"])
        XCTAssertEqual(again.status, .notFound)
        XCTAssertEqual(again.stderr, "subs: error: no active manual grant of 'beta' to revoke for 'bob'; nothing written\n")
        // A paid entitlement is not a manual grant: Qonversion has nothing to delete.
        XCTAssertEqual(run(["revoke", "bob", "plus"]).status, .notFound)
        // An entitlement id that is not plain is one encoded segment.
        XCTAssertEqual(run(["grant", "QON_manual", "a/b", "--duration", "P1D", "-q"]).status, .success)
        api.forget()
        XCTAssertEqual(run(["revoke", "QON_manual", "a/b", "-q"]).status, .success)
        XCTAssertEqual(api.seen.filter { $0.method == "DELETE" }.map(\.target), ["/v3/users/QON_manual/entitlements/a%2Fb"])
    }

    func testRevokeThatLeavesAPurchaseSaysSo() throws {
        // v3 lists plus twice: a manual grant and a purchase. The active one that ends last describes it.
        api.setUser("QON_both", [
            .object(JSONObject([("id", .string("plus")), ("active", .bool(true)), ("started", .number("1790000000")),
                                ("expires", .number("1797000000")), ("source", .string("appstore")),
                                ("product", .object(JSONObject([("product_id", .string("plus_monthly")),
                                    ("subscription", .object(JSONObject([("renew_state", .string("will_renew"))])))])))])),
            .object(JSONObject([("id", .string("plus")), ("active", .bool(true)), ("started", .number("1796000000")),
                                ("expires", .number("1798000000")), ("source", .string("manual"))])),
        ])
        let before = try JSON.parse(run(["check", "QON_both", "--json"]).stdout)["entitlements"]?["plus"]
        XCTAssertEqual(before?["source"], .string("manual"))
        XCTAssertEqual(before?["expirationDate"], .string("2026-12-23T04:26:40Z"))

        let result = run(["revoke", "QON_both", "plus", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "subs: note: QON_both keeps plus through a purchase (plus_monthly)\n")
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["grants"]?.arrayValue?.first?["expirationDate"], .string("2026-12-23T04:26:40Z"))
        XCTAssertEqual(doc["entitlement"]?["source"], .string("appstore"))
        XCTAssertEqual(doc["entitlement"]?["isActive"], .bool(true))
    }

    func testWritesToUnknownUsersAreNotFound() {
        api.forget()
        let identity = run(["grant", "ghost", "beta", "--duration", "P1D"])
        XCTAssertEqual(identity.status, .notFound)
        XCTAssertTrue(identity.stderr.hasPrefix("subs: error: customer 'ghost' not found: Qonversion knows no such user or identity"),
                      identity.stderr)
        XCTAssertEqual(api.seen.map(\.method), ["GET"], "nothing written")
        XCTAssertEqual(run(["grant", "QON_nobody", "beta", "--duration", "P1D"]).status, .notFound)
        XCTAssertEqual(run(["revoke", "QON_nobody", "beta"]).status, .notFound)
        XCTAssertEqual(run(["revoke", "ghost", "beta"]).status, .notFound)
    }

    func testAProjectKeyCannotWriteAndIsToldToUseTheSecretKey() {
        let key = QonversionFakeAPI.projectKey
        XCTAssertEqual(run(["check", "alice", "-q"], key: key).status, .success, "the project key reads")
        for args in [["grant", "alice", "beta", "--duration", "P1D"], ["revoke", "QON_manual", "beta"]] {
            let result = run(args, key: key)
            XCTAssertEqual(result.status, .permissionDenied, "\(args): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: http://127.0.0.1:"), result.stderr)
            XCTAssertTrue(result.stderr.contains("permission denied (HTTP 403): grant and revoke need Qonversion's secret key (sk_…"),
                          result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1)
            XCTAssertFalse((result.stdout + result.stderr).contains(key))
        }
        // A key Qonversion does not know at all, on a write: the same sentence (401).
        let unknown = run(["grant", "QON_manual", "beta", "--duration", "P1D"], key: "sk_wr0ng")
        XCTAssertEqual(unknown.status, .permissionDenied)
        XCTAssertTrue(unknown.stderr.contains("(HTTP 401): grant and revoke need Qonversion's secret key"), unknown.stderr)
        XCTAssertFalse(unknown.stderr.contains("sk_wr0ng"))
    }

    func testWhatV3CannotDoIsExit64WithASentenceAndNothingSent() {
        // As the user reads it: the option named in the sentence is resolved ({flag:--remote …}).
        let useV4 = "API v4 lists a user's purchases: select it with --remote https://api.qonversion.io/v4 and the project's secret key (sk_…)"
        let cases: [([String], String)] = [
            (["grant", "alice", "beta", "--lifetime"], "Qonversion's API v3 needs an expiry for every grant: use --duration or --until"),
            (["grant", "alice", "beta", "--duration", "P1D", "--dry-run"], "Qonversion's API v3 has no dry run; nothing was sent"),
            (["revoke", "alice", "beta", "--dry-run"], "Qonversion's API v3 has no dry run; nothing was sent"),
            (["grant", "alice", "bob", "beta", "--duration", "P1D"],
             "Qonversion's API v3 changes one user per request, so a batch could not be all or nothing; name one USER per grant or revoke"),
            (["history", "alice"], "Qonversion's API v3 exposes no transactions, so subs cannot show a history; " + useV4),
            (["renew-count", "alice"], "Qonversion's API v3 exposes no renewal counts; " + useV4),
            (["renew-count", "alice", "plus"], "Qonversion's API v3 exposes no renewal counts; " + useV4),
        ]
        for (args, sentence) in cases {
            api.forget()
            let result = run(args)
            XCTAssertEqual(result.status, .usage, "\(args): \(result.stderr)")
            XCTAssertEqual(result.stderr, "subs: error: \(sentence)\n", "\(args)")
            XCTAssertEqual(result.stdout, "")
            XCTAssertEqual(api.seen.filter { $0.method != "GET" }.count, 0, "\(args): nothing written")
        }
        // An expiry that is not in the future is refused before anything is sent (as for the store).
        api.forget()
        let past = run(["grant", "alice", "beta", "--until", "2026-12-01T12:00:00Z"])
        XCTAssertEqual(past.status, .usage, past.stderr)
        XCTAssertEqual(api.seen.filter { $0.method == "POST" }.count, 0)
        // A name twice is one user.
        XCTAssertEqual(run(["grant", "alice", "alice", "beta", "--duration", "P1D", "-q"]).status, .success)
    }
}
