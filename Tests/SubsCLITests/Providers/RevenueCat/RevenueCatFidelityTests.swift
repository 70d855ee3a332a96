// RevenueCat's answers as its SDKs and reference mean them, replayed through the loopback fakes
// from fixtures written after RevenueCat's published samples (Tests/Fixtures/revenuecat-v2,
// revenuecat/published-example.json): API v2's null versus 0 renewal counts, its free trials and
// its dates at the answer's second; API v1's entitlement dates and the period type its published
// example spells `NORMAL`. docs/providers.md says where each meaning comes from.

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI

/// A customer of RevenueCat's API v2 from a fixture: `customer`, `subscriptions`, `purchases`
/// and `transactions` (subscription id → its store transactions).
private func loadV2(_ name: String, into rc: FakeRevenueCatV2) throws -> String {
    let doc = try JSON.parse(String(contentsOfFile: Repo.path("Tests/Fixtures/revenuecat-v2/\(name).json"), encoding: .utf8))
    let customer = try XCTUnwrap(doc["customer"])
    let id = try XCTUnwrap(customer["id"]?.stringValue)
    rc.customers[id] = .init(body: customer, subscriptions: doc["subscriptions"]?.arrayValue ?? [],
                             purchases: doc["purchases"]?.arrayValue ?? [])
    for member in doc["transactions"]?.objectValue?.members ?? [] { rc.transactions[member.key] = member.value.arrayValue }
    return id
}

final class RevenueCatV2FidelityTests: RevenueCatV2TestCase {
    private func entries(_ doc: JSONValue) -> [JSONValue] { doc["entries"]?.arrayValue ?? [] }

    /// renewsCount is 0 where v2 tells there was no renewal — a one-time purchase, a subscription
    /// still in its first period (`current_period_starts_at` = `starts_at`) on any store, a free
    /// trial — and null only where it cannot tell (a Stripe subscription renewed since its start).
    func testRenewalCountsAreZeroWhereV2TellsNoRenewalHappened() throws {
        let id = try loadV2("first-period", into: rc)
        let doc = try json(["check", id])
        let expected: [String: JSONValue] = ["reader": .number("0"), "sync": .number("0"), "fonts": .number("0"),
                                             "video": .number("0"), "pro": .null]
        for (entitlement, count) in expected {
            XCTAssertEqual(doc["entitlements"]?[entitlement]?["renewsCount"], count, "check: \(entitlement)")
            XCTAssertEqual(run(["renew-count", id, entitlement]).stdout, count == .null ? "-\n" : "0\n", "renew-count \(entitlement)")
        }
        XCTAssertEqual(doc["entitlements"]?["reader"]?["source"], .string("amazon"))
        XCTAssertEqual(doc["entitlements"]?["fonts"]?["source"], .string("amazon"))
        XCTAssertEqual(doc["entitlements"]?["sync"]?["source"], .string("unknown"))
        // Milliseconds are kept for the rules and printed as whole seconds.
        XCTAssertEqual(doc["entitlements"]?["reader"]?["startedDate"], .string("2026-11-20T08:15:42Z"))
    }

    /// A subscription in its free trial has paid nothing: no first purchase yet (SPEC section 3),
    /// while its start and trial start are the trial's.
    func testAFreeTrialHasNoFirstPurchaseDate() throws {
        let id = try loadV2("first-period", into: rc)
        let video = try XCTUnwrap(json(["check", id])["entitlements"]?["video"])
        XCTAssertEqual(video["periodType"], .string("trial"))
        XCTAssertEqual(video["firstPurchaseDate"], .null)
        XCTAssertEqual(video["trialStartDate"], .string("2026-11-28T10:00:00Z"))
        XCTAssertEqual(video["startedDate"], .string("2026-11-28T10:00:00Z"))
        XCTAssertEqual(video["lastPurchaseDate"], .string("2026-11-28T10:00:00Z"))
        // A paid subscription keeps its start as its first purchase.
        XCTAssertEqual(try json(["check", id])["entitlements"]?["sync"]?["firstPurchaseDate"], .string("2026-11-25T00:00:00Z"))
    }

    /// The answer is dated 12:00:00 (HTTP Date, whole seconds); a renewal at 12:00:00.400 and a
    /// purchase at 12:00:00.750 happened before it, in the second it names.
    func testRecordsInTheSecondOfTheAnswersDateHappenedBeforeIt() throws {
        let id = try loadV2("same-second", into: rc)
        for extra in [[], ["--until", "2026-12-01T12:00:00Z"]] {
            let doc = try json(["history", id] + extra)
            let ids = entries(doc).map { $0["transactionId"]?.stringValue }
            XCTAssertEqual(ids, ["470001112001", "470001112002", "470001112003", "470001112099"], "\(extra)")
            XCTAssertEqual(entries(doc).last?["date"], .string("2026-12-01T12:00:00Z"))
        }
        XCTAssertEqual(run(["renew-count", id, "premium"]).stdout, "2\n")
        XCTAssertEqual(run(["renew-count", id, "premium", "--at", "2026-12-01T12:00:00Z"]).stdout, "2\n")
        // Before that second the renewal had not happened yet.
        XCTAssertEqual(run(["renew-count", id, "premium", "--at", "2026-12-01T11:59:59Z"]).stdout, "1\n")
        let before = try json(["history", id, "--until", "2026-12-01T11:59:59Z"])
        XCTAssertEqual(entries(before).map { $0["transactionId"]?.stringValue }, ["470001112001", "470001112002"])
    }

    /// RevenueCat's OpenAPI description gives every v2 date field one instant (2022-07-21): a
    /// trialing Amazon subscription that starts, starts its period and ends at once, and an
    /// entitlement listed active that expired years before the answer. Read as RevenueCat's SDKs
    /// judge an entitlement (its expiration against the request date): not active; a first period
    /// (renewsCount 0) of a trial (no first purchase); a one-time purchase never renews.
    func testTheOpenAPIExampleReplayed() throws {
        let id = try loadV2("openapi-example", into: rc)
        let doc = try json(["check", id])
        XCTAssertEqual(doc["activeEntitlements"], .array([]))
        XCTAssertEqual(doc["firstSeen"], .string("2022-07-21T10:30:23Z"))
        let example = try XCTUnwrap(doc["entitlements"]?["example"])
        XCTAssertEqual(example["isActive"], .bool(false))
        XCTAssertEqual(example["state"], .string("expired"))
        XCTAssertEqual(example["willRenew"], .bool(false))
        XCTAssertEqual(example["expirationDate"], .string("2022-07-21T10:30:23Z"))
        XCTAssertEqual(example["renewsCount"], .number("0"))
        XCTAssertEqual(example["firstPurchaseDate"], .null)
        XCTAssertEqual(example["periodType"], .string("trial"))
        XCTAssertEqual(example["source"], .string("amazon"))
        XCTAssertEqual(doc["entitlements"]?["extras"]?["renewsCount"], .number("0"))
        XCTAssertEqual(run(["renew-count", id, "example"]).stdout, "0\n")
        XCTAssertEqual(run(["check", id, "--require", "example", "-q"]).status, .requirementMissing)
        // Projected to the second it started and ends in, it was active (start and end within it).
        let then = try json(["check", id, "--at", "2022-07-21T10:30:23Z"])
        XCTAssertEqual(then["entitlements"]?["example"]?["isActive"], .bool(true))
        XCTAssertEqual(then["activeEntitlements"], .array([.string("example")]))
    }
}

final class RevenueCatV1FidelityTests: RevenueCatTestCase {
    /// RevenueCat's SDKs read an entitlement's latestPurchaseDate from the entitlement's own
    /// `purchase_date`, for a one-time product too; its first purchase stays the purchase's. The
    /// published example writes `period_type` as `NORMAL` beside a lower-case enum: the SDKs read it
    /// as normal. A promotional grant is manual whatever ownership it shows.
    func testPublishedExampleReadAsTheSDKsReadIt() throws {
        rc.set("nico", try FakeRevenueCat.fixture("published-example"))
        let doc = try checkJSON("nico")
        let studio = try XCTUnwrap(doc["entitlements"]?["studio"])
        XCTAssertEqual(studio["lastPurchaseDate"], .string("2026-09-14T16:20:05Z"))
        XCTAssertEqual(studio["startedDate"], .string("2026-09-14T16:19:58Z"))
        XCTAssertEqual(studio["firstPurchaseDate"], .string("2026-09-14T16:19:58Z"))
        XCTAssertEqual(studio["source"], .string("appstore"))
        XCTAssertEqual(studio["renewState"], .string("nonRenewable"))
        let cloud = try XCTUnwrap(doc["entitlements"]?["cloud"])
        XCTAssertEqual(cloud["periodType"], .string("normal"))
        XCTAssertEqual(cloud["renewState"], .string("canceled"))
        XCTAssertEqual(cloud["willRenew"], .bool(false))
        XCTAssertEqual(cloud["lastPurchaseDate"], .string("2026-01-10T09:30:00Z"))
        XCTAssertEqual(cloud["startedDate"], .string("2025-01-10T09:30:00Z"))
        let beta = try XCTUnwrap(doc["entitlements"]?["beta"])
        XCTAssertEqual(beta["grantType"], .string("manual"))
        XCTAssertEqual(beta["periodType"], .string("promotional"))
        XCTAssertEqual(beta["source"], .string("manual"))
    }
}
