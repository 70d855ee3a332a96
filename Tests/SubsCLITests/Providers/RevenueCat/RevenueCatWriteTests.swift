// Provider `revenuecat`: grant and revoke round trips (promotional entitlements), history from
// what v1 exposes, --at as a projection, what v1 cannot do (exit 64), cache and --offline, and
// the default base URL when --remote is absent.

import XCTest
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsRemote
@testable import SubsProviders
@testable import SubsCLI

final class RevenueCatWriteTests: RevenueCatTestCase {
    private func posts() -> [HTTPRequest] { rc.requests.filter { $0.method == "POST" } }

    func testGrantForADurationThenRevokeRoundTrip() throws {
        let grant = run(["grant", "carl", "gold", "--duration", "P1M", "--json"])
        XCTAssertEqual(grant.status, .success, grant.stderr)
        XCTAssertEqual(posts().count, 1)
        XCTAssertEqual(posts()[0].path, "/v1/subscribers/carl/entitlements/gold/promotional")
        // SUBS_NOW 2026-12-01T12:00:00Z + P1M, in milliseconds.
        XCTAssertEqual(try JSON.parse(posts()[0].body), .object(JSONObject([("end_time_ms", .number("1798804800000"))])))
        let doc = try JSON.parse(grant.stdout)
        XCTAssertEqual(doc["customerId"], .string("carl"))
        XCTAssertEqual(doc["dryRun"], .bool(false))
        XCTAssertEqual(doc["grants"]?.arrayValue?.first?["entitlement"], .string("gold"))
        XCTAssertEqual(doc["grants"]?.arrayValue?.first?["expirationDate"], .string("2027-01-01T12:00:00Z"))
        XCTAssertEqual(doc["grants"]?.arrayValue?.first?["id"], .string("promo-gold-1"))
        XCTAssertEqual(doc["entitlement"]?["state"], .string("active"))
        XCTAssertEqual(doc["entitlement"]?["source"], .string("manual"))
        XCTAssertEqual(doc["entitlement"]?["periodType"], .string("promotional"))

        XCTAssertEqual(run(["check", "carl", "--require", "gold", "-q"]).status, .success)

        let revoke = run(["revoke", "carl", "gold", "--json"])
        XCTAssertEqual(revoke.status, .success, revoke.stderr)
        XCTAssertEqual(posts().last?.path, "/v1/subscribers/carl/entitlements/gold/revoke_promotionals")
        XCTAssertEqual(posts().last?.body, [])
        let revoked = try JSON.parse(revoke.stdout)
        XCTAssertEqual(revoked["grants"]?.arrayValue?.first?["revokedAt"], .string(FakeRevenueCat.requestDate))
        XCTAssertEqual(revoked["entitlement"]?["isActive"], .bool(false))
        XCTAssertEqual(run(["check", "carl", "--require", "gold", "-q"]).status, .requirementMissing)

        // Nothing left to revoke: exit 3, and no POST is sent.
        let postsBefore = posts().count
        let again = run(["revoke", "carl", "gold"])
        XCTAssertEqual(again.status, .notFound)
        XCTAssertEqual(again.stderr, "subs: error: no active manual grant of 'gold' to revoke for 'carl'; nothing written\n")
        XCTAssertEqual(posts().count, postsBefore)
    }

    func testLifetimeAndUntilGrants() throws {
        let lifetime = run(["grant", "tina", "vip", "--lifetime"])
        XCTAssertEqual(lifetime.status, .success, lifetime.stderr)
        XCTAssertEqual(try JSON.parse(posts()[0].body), .object(JSONObject([("duration", .string("lifetime"))])))
        XCTAssertTrue(lifetime.stdout.contains("tina: granted vip for life"), lifetime.stdout)
        let until = run(["grant", "tina", "extra", "--until", "2027-03-01T00:00:00.250Z", "--json"])
        XCTAssertEqual(until.status, .success, until.stderr)
        XCTAssertEqual(try JSON.parse(posts()[1].body), .object(JSONObject([("end_time_ms", .number("1803859200250"))])))
        // An expiration that is not in the future is refused before anything is sent.
        let past = run(["grant", "tina", "extra", "--until", "2026-01-01"])
        XCTAssertEqual(past.status, .usage, past.stderr)
        XCTAssertEqual(posts().count, 2)
    }

    func testGrantEncodesIdAndEntitlementAsSegments() throws {
        rc.set("a/b c", try FakeRevenueCat.fixture("trial"))
        let result = run(["grant", "a/b c", "pro/max plus", "--duration", "P1D"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(posts().last?.path, "/v1/subscribers/a%2Fb%20c/entitlements/pro%2Fmax%20plus/promotional")
        let revoke = run(["revoke", "a/b c", "pro/max plus"])
        XCTAssertEqual(revoke.status, .success, revoke.stderr)
        XCTAssertEqual(posts().last?.path, "/v1/subscribers/a%2Fb%20c/entitlements/pro%2Fmax%20plus/revoke_promotionals")
        XCTAssertEqual(rc.requests.filter { $0.method == "GET" }.map(\.path), Array(repeating: "/v1/subscribers/a%2Fb%20c", count: 2))
    }

    func testGrantToACustomerRevenueCatDoesNotKnowNeedsCreate() throws {
        let refused = run(["grant", "newbie", "premium", "--duration", "P1M"])
        XCTAssertEqual(refused.status, .notFound)
        XCTAssertTrue(refused.stderr.contains("customer 'newbie' not found: RevenueCat created an empty subscriber"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--create"), refused.stderr)
        XCTAssertEqual(posts().count, 0)
        let created = run(["grant", "newbie2", "premium", "--duration", "P1M", "--create"])
        XCTAssertEqual(created.status, .success, created.stderr)
        XCTAssertEqual(rc.requests.map(\.method), ["GET", "POST"])
    }

    func testReasonIsNotKeptByRevenueCatAndSaysSo() {
        let result = run(["grant", "tina", "gold", "--duration", "P1D", "--reason", "goodwill"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "subs: note: RevenueCat's API v1 keeps no reason or actor with a grant: --reason was not recorded\n")
    }

    func testRevokeKeepsAPurchaseAndSaysSo() throws {
        // carl's premium comes from a Play subscription; a promotional premium on top is revoked,
        // premium stays through the purchase.
        XCTAssertEqual(run(["grant", "carl", "premium", "--duration", "P2M", "-q"]).status, .success)
        let revoke = run(["revoke", "carl", "premium"])
        XCTAssertEqual(revoke.status, .success, revoke.stderr)
        XCTAssertTrue(revoke.stdout.contains("carl: revoked premium"), revoke.stdout)
        XCTAssertTrue(revoke.stdout.contains("carl: premium is now active"), revoke.stdout)
        XCTAssertEqual(revoke.stderr, "subs: note: carl keeps premium through a purchase (pro_monthly_play)\n")
    }

    func testWritesThatV1CannotDoAreExit64AndSendNothing() {
        for (args, why) in [
            (["grant", "tina", "gold", "--duration", "P1D", "--dry-run"], "RevenueCat's API v1 has no dry run; nothing was sent"),
            (["grant", "tina", "carl", "gold", "--duration", "P1D"], "RevenueCat's API v1 changes one customer per request (a batch could not be all or nothing)"),
            (["revoke", "tina", "carl", "gold"], "RevenueCat's API v1 changes one customer per request (a batch could not be all or nothing)"),
        ] {
            let result = run(args)
            XCTAssertEqual(result.status, .usage, "\(args)")
            XCTAssertEqual(result.stderr, "subs: error: \(why)\n", "\(args)")
        }
        XCTAssertEqual(rc.requestCount, 0)
    }

    func testRenewCountIsNotOfferedWithASentence() {
        for args in [["renew-count", "tina"], ["renew-count", "tina", "premium"]] {
            let result = run(args)
            XCTAssertEqual(result.status, .usage)
            XCTAssertEqual(result.stderr, "subs: error: RevenueCat's API v1 has no renewal counts: its subscriber answer carries no transaction list; "
                           + "a subs store (--store, or --remote to subs serve) counts renewals\n")
        }
        XCTAssertEqual(rc.requestCount, 0)
    }

    func testAnIncompleteHistoryIsSaidOnStderrInEveryFormat() {
        for format in ["table", "tsv", "jsonl", "json"] {
            let result = run(["history", "ralph", "--format", format])
            XCTAssertEqual(result.status, .success, result.stderr)
            XCTAssertEqual(result.stderr, "subs: note: incomplete history: \(RevenueCatSource.historyNote)\n", format)
        }
    }

    func testHistoryFromWhatV1ExposesWithItsNote() throws {
        let result = run(["history", "ralph", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        // v1 has no full transaction list: the answer says it is incomplete, on stderr and in the document.
        XCTAssertEqual(result.stderr, "subs: note: incomplete history: \(RevenueCatSource.historyNote)\n")
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["provider"], .string("revenuecat"))
        XCTAssertEqual(doc["complete"], .bool(false))
        XCTAssertEqual(doc["incompleteReason"], .string(RevenueCatSource.historyNote))
        let entries = try XCTUnwrap(doc["entries"]?.arrayValue)
        XCTAssertEqual(entries.map { "\($0["date"]!.stringValue!) \($0["kind"]!.stringValue!) \($0["type"]!.stringValue!)" }, [
            "2025-09-01T12:00:00Z transaction subscriptionStarted",
            "2026-09-01T12:00:00Z transaction subscriptionRenewed",
            "2026-11-15T13:20:00Z refund revoked",
        ])
        XCTAssertEqual(entries[1]["transactionId"], .string("2000000444444444"))
        XCTAssertEqual(entries[1]["expirationDate"], .string("2026-11-15T13:20:00Z"))
        XCTAssertEqual(entries[0]["transactionId"], .null)
        XCTAssertEqual(entries[2]["productId"], .string("pro_yearly"))
        XCTAssertEqual(entries[2]["entitlements"], .array([.string("premium")]))

        let carl = try JSON.parse(run(["history", "carl", "--json"]).stdout)["entries"]?.arrayValue ?? []
        XCTAssertEqual(carl.map { $0["type"]!.stringValue! }, ["subscriptionStarted", "subscriptionRenewed", "autoRenewDisabled"])
        let gina = try JSON.parse(run(["history", "gina", "--json"]).stdout)["entries"]?.arrayValue ?? []
        XCTAssertEqual(gina.last?["type"], .string("billingIssue"))
        XCTAssertEqual(gina.last?["kind"], .string("event"))
        let tina = try JSON.parse(run(["history", "tina", "--json"]).stdout)["entries"]?.arrayValue ?? []
        XCTAssertEqual(tina.map { $0["type"]!.stringValue! }, ["trialStarted"])
        XCTAssertEqual(tina.first?["transactionId"], .string("2000000111111111"))
        let lena = try JSON.parse(run(["history", "lena", "--json"]).stdout)["entries"]?.arrayValue ?? []
        XCTAssertEqual(lena.map { "\($0["type"]!.stringValue!) \($0["productId"]!.stringValue!)" },
                       ["nonConsumablePurchase lifetime_unlock", "nonConsumablePurchase lifetime_unlock", "consumablePurchase coins_100"])
        // `price.amount` as RevenueCat wrote the number, `price.currency`; null where v1 gave none.
        XCTAssertEqual(lena.map { $0["price"] }, [.null, .string("99.99"), lena[2]["price"]])
        XCTAssertEqual(lena[1]["currency"], .string("EUR"))
        XCTAssertEqual(lena[0]["currency"], .null)
        // A renewed subscription's price is its latest period's: the first period's is unknown.
        XCTAssertEqual(entries.map { $0["price"] }, [.null, .null, nil])
        let paul = try JSON.parse(run(["history", "paul", "--json"]).stdout)["entries"]?.arrayValue ?? []
        XCTAssertEqual(paul.map { "\($0["kind"]!.stringValue!) \($0["type"]!.stringValue!)" }, ["grant granted"])
        XCTAssertEqual(paul.first?["entitlements"], .array([.string("premium")]))
        // --until and --at cut the history; --limit keeps the most recent.
        let cut = try JSON.parse(run(["history", "ralph", "--until", "2026-10-01", "--json"]).stdout)["entries"]?.arrayValue
        XCTAssertEqual(cut?.count, 2)
        XCTAssertEqual(try JSON.parse(run(["history", "ralph", "--at", "2026-01-01", "--json"]).stdout)["entries"]?.arrayValue?.count, 1)
        XCTAssertEqual(try JSON.parse(run(["history", "ralph", "--limit", "1", "--json"]).stdout)["entries"]?.arrayValue?.first?["kind"],
                       .string("refund"))
    }

    func testAtProjectsTheCurrentRecordWithANote() throws {
        // gina: in grace until 2026-12-14 (billing issue detected 2026-11-28).
        func state(_ at: String, _ id: String = "gina") throws -> (JSONValue?, JSONValue?, String) {
            let result = run(["check", id, "--at", at, "--json"])
            XCTAssertEqual(result.status, .success, result.stderr)
            let e = try JSON.parse(result.stdout)["entitlements"]?["premium"]
            return (e?["state"], e?["isActive"], result.stderr)
        }
        let later = try state("2026-12-20T00:00:00Z")
        XCTAssertEqual(later.0, .string("billingRetry"))
        XCTAssertEqual(later.1, .bool(false))
        XCTAssertEqual(later.2, "subs: note: RevenueCat's API v1 answers the current record only: the record of 2026-12-01T12:00:00Z was projected to 2026-12-20T00:00:00Z, not replayed from history\n")
        XCTAssertEqual(try state("2026-12-14T07:59:59Z").0, .string("gracePeriod"))
        XCTAssertEqual(try state("2026-12-14T08:00:00Z").0, .string("billingRetry"))
        // Before the billing issue was detected: simply active.
        XCTAssertEqual(try state("2026-11-01T00:00:00Z").0, .string("active"))
        // A refund has not happened before its date; a pause is over once its resume date has passed.
        XCTAssertEqual(try state("2026-11-01T00:00:00Z", "ralph").0, .string("active"))
        XCTAssertEqual(try state("2026-11-15T13:20:00Z", "ralph").0, .string("revoked"))
        XCTAssertEqual(try state("2027-01-20T11:00:00Z", "pia").0, .string("expired"))
        XCTAssertEqual(try state("2027-01-20T10:59:59Z", "pia").0, .string("paused"))
        // The document's requestDate is T; without --at, no note.
        XCTAssertEqual(try JSON.parse(run(["check", "tina", "--at", "2027-01-01", "--json"]).stdout)["requestDate"], .string("2027-01-01T00:00:00Z"))
        XCTAssertEqual(run(["check", "tina"]).stderr, "")
    }

    func testCacheAnswersWhenRevenueCatIsUnreachableAndOfflineUsesOnlyIt() throws {
        XCTAssertEqual(run(["check", "tina", "-q"]).status, .success)
        rc.stop()
        let cached = run(["check", "tina", "--json"])
        XCTAssertEqual(cached.status, .success, cached.stderr)
        XCTAssertTrue(cached.stderr.contains("answered from the cache"), cached.stderr)
        XCTAssertEqual(try JSON.parse(cached.stdout)["entitlements"]?["premium"]?["state"], .string("active"))
        XCTAssertEqual(run(["--offline", "check", "tina", "-q"]).status, .success)
        XCTAssertEqual(run(["--offline", "check", "carl"]).status, .unavailable)
        XCTAssertEqual(run(["--offline", "grant", "tina", "gold", "--duration", "P1D"]).status, .usage, "a write needs RevenueCat")
        XCTAssertEqual(run(["check", "carl"]).status, .unavailable)
        assertNoFileContains([FakeRevenueCat.key], under: dir.path + "/cache")
    }

    func testWithoutRemoteTheDefaultBaseURLIsUsed() throws {
        final class Recorder: HTTPTransport, @unchecked Sendable {
            var urls: [String] = []
            var authorizations: [String?] = []
            let body: [UInt8]
            init(_ body: [UInt8]) { self.body = body }
            func send(_ request: RemoteRequest) throws -> RemoteResponse {
                urls.append(request.url)
                authorizations.append(request.header("Authorization"))
                return RemoteResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
            }
        }
        let recorder = Recorder(Array(try String(contentsOfFile: Repo.path("Tests/Fixtures/revenuecat/trial.json"), encoding: .utf8).utf8))
        var harness = CLIHarness(env: ["XDG_CACHE_HOME": dir.path + "/cache", "SUBS_API_KEY": "sk_default",
                                       "SUBS_PROVIDER": "revenuecat"], http: recorder)
        let found = harness.run(["check", "alice", "--json"])
        XCTAssertEqual(found.status, .success, found.stderr)
        XCTAssertEqual(recorder.urls, ["https://api.revenuecat.com/v1/subscribers/alice"])
        XCTAssertEqual(recorder.authorizations, ["Bearer sk_default"])
        XCTAssertEqual(try JSON.parse(found.stdout)["requestedId"], .string("alice"))

        // No key: a configuration error before anything is sent.
        harness.env["SUBS_API_KEY"] = nil
        let keyless = harness.run(["check", "alice"])
        XCTAssertEqual(keyless.status, .configError)
        XCTAssertEqual(keyless.stderr, "subs: error: provider revenuecat needs an API key: --api-key-file, SUBS_API_KEY_FILE or SUBS_API_KEY\n")
        XCTAssertEqual(recorder.urls.count, 1)
    }
}
