// Qonversion v4's renewals as Qonversion means them (a trial's conversion and an upgrade are not
// renewals) and a purchase within the second of the answer's Date, replayed from a listing written
// after Qonversion's v4 examples (Tests/Fixtures/qonversion-v4).

import XCTest
import Foundation
import SubsJSON
@testable import SubsCLI

final class QonversionV4FidelityTests: XCTestCase {
    var api: QonversionV4FakeAPI!
    var dir: TempDir!
    var user = ""

    override func setUpWithError() throws {
        api = try QonversionV4FakeAPI()
        dir = TempDir()
        let doc = try JSON.parse(String(contentsOfFile: Repo.path("Tests/Fixtures/qonversion-v4/trial-upgrade.json"), encoding: .utf8))
        let identity = try XCTUnwrap(doc["identity"]?.stringValue), id = try XCTUnwrap(doc["user_id"]?.stringValue)
        user = identity
        api.set { api in
            api.identities[identity] = id
            api.entitlements[id] = doc["entitlements"]?.arrayValue ?? []
            api.purchases[id] = doc["purchases"]?.arrayValue ?? []
        }
    }

    override func tearDown() {
        api.stop()
        XCTAssertEqual(api.problems, [])
    }

    func run(_ args: [String]) -> CLIResult {
        runQonversion(args, remote: api.base, key: QonversionV4FakeAPI.secretKey, cache: dir.path + "/cache")
    }

    /// Qonversion's worked example counts a trial, its conversion and 18 renewals as 18: a
    /// conversion is `trial_converted`, an upgrade `subscription_upgraded`, neither a renewal.
    func testNeitherATrialsConversionNorAnUpgradeIsARenewal() throws {
        let result = run(["renew-count", user, "premium"])
        XCTAssertEqual(result.stdout, "2\n", result.stderr)
        let history = try JSON.parse(run(["history", user, "--json"]).stdout)
        let types = history["entries"]?.arrayValue?.map { "\($0["type"]?.stringValue ?? "?") \($0["productId"]?.stringValue ?? "?")" }
        XCTAssertEqual(types, ["subscriptionStarted pro_monthly", "subscriptionRenewed pro_monthly", "subscriptionRenewed pro_monthly",
                               "subscriptionRenewed pro_monthly", "subscriptionStarted pro_yearly", "consumablePurchase coins_100"])
    }

    /// The answer is dated 10:00:00 (HTTP Date); coins bought at 10:00:00.600 were bought before it.
    func testAPurchaseInTheSecondOfTheAnswersDateIsShown() throws {
        let history = try JSON.parse(run(["history", user, "--json"]).stdout)
        let last = try XCTUnwrap(history["entries"]?.arrayValue?.last)
        XCTAssertEqual(last["productId"], .string("coins_100"))
        XCTAssertEqual(last["date"], .string("2026-11-23T10:00:00Z"))
    }
}
