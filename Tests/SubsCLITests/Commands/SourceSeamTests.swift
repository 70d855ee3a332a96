// The answer-level seam: commands work from answers, whatever source gives them. A scripted
// vendor-like source (answers already computed, no history, no renewal counts, no lifetime
// grants) goes behind it with no command file knowing.

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsStore
@testable import SubsSource
@testable import SubsCLI

/// Answers like a vendor API would: statuses computed elsewhere, a note, few capabilities.
struct ScriptedSource: CustomerSource {
    var capabilities: SourceCapabilities { [.grants] }

    func whyNotOffered(_ capability: SourceCapabilities) -> String {
        capability == .history ? "the scripted API has no transaction list"
            : capability == .renewalCounts ? "the scripted API has no renewal counts"
            : "the scripted API needs an expiry for every grant"
    }

    static let requestDate = Instant(seconds: 1_800_000_000)

    static func premium(active: Bool) -> EntitlementInfo {
        EntitlementInfo(id: "premium", isActive: active, state: active ? .active : .expired, renewState: .willRenew,
                        willRenew: active, periodType: .normal, source: .appstore, grantType: .purchase,
                        productId: "pro", startedDate: nil, trialStartDate: nil, firstPurchaseDate: nil,
                        lastPurchaseDate: nil, expirationDate: requestDate.adding(seconds: 86_400), gracePeriodExpirationDate: nil,
                        billingIssueDetectedAt: nil, autoRenewDisableDate: nil, autoResumeDate: nil,
                        renewalProductId: nil, renewsCount: nil, isSandbox: false, lastActivatedOfferCode: nil,
                        grantId: nil, transactions: [], sourceKind: .chain)
    }

    func statuses(of ids: [ID], at t: Instant?) throws -> StatusAnswer {
        StatusAnswer(requestDate: t ?? Self.requestDate, statuses: ids.map { id in
            id == "ghost" ? nil : CustomerStatus(record: CustomerRecord(id: "QON_\(id)"), requestedId: id,
                                                 requestDate: Self.requestDate, entitlements: [Self.premium(active: id != "lapsed")])
        }, notes: t == nil ? [] : ["the current record was projected to the --at date"])
    }

    func history(of id: ID, at t: Instant?, until: Instant?) throws -> HistoryAnswer? {
        XCTFail("history must not be asked of a source without it")
        return nil
    }

    func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer {
        XCTFail("not used")
        return ChangeAnswer(requestDate: now, customers: [])
    }

    func customerIds() throws -> [ID] { ["alice", "bob"] }
    func entitlementIds() throws -> [ID] { ["premium"] }
}

final class SourceSeamTests: XCTestCase {
    func run(_ args: [String]) -> CLIResult { runCLI(args, source: { ScriptedSource() }) }

    func testCheckRendersAnswersOfAnySource() throws {
        let result = run(["check", "alice", "--json"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let doc = try JSON.parse(result.stdout)
        XCTAssertEqual(doc["customerId"], .string("QON_alice"))
        XCTAssertEqual(doc["requestedId"], .string("alice"))
        XCTAssertEqual(doc["requestDate"], .string(ISODate.format(ScriptedSource.requestDate)))
        XCTAssertEqual(doc["entitlements"]?["premium"]?["renewsCount"], .null)
        XCTAssertEqual(run(["check", "lapsed", "--require", "premium", "-q"]).status, .requirementMissing)
        XCTAssertEqual(run(["check", "ghost"]).status, .notFound)
    }

    func testNotesOfAnAnswerGoToStderr() {
        let result = run(["check", "alice", "--at", "2027-01-01"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "subs: note: the current record was projected to the --at date\n")
    }

    func testWhatASourceDoesNotOfferIsExit64WithItsSentence() {
        let history = run(["history", "alice"])
        XCTAssertEqual(history.status, .usage)
        XCTAssertEqual(history.stderr, "subs: error: the scripted API has no transaction list\n")
        let count = run(["renew-count", "alice"])
        XCTAssertEqual(count.status, .usage)
        XCTAssertEqual(count.stderr, "subs: error: the scripted API has no renewal counts\n")
        let lifetime = run(["grant", "alice", "premium", "--lifetime"])
        XCTAssertEqual(lifetime.status, .usage)
        XCTAssertEqual(lifetime.stderr, "subs: error: the scripted API needs an expiry for every grant\n")
    }

    func testCompletionListsTheSourcesIds() {
        XCTAssertEqual(run(["__complete", "customers", "a"]).stdout, "alice\n")
        XCTAssertEqual(run(["__complete", "entitlements"]).stdout, "premium\n")
    }

    func testTheLocalStoreAnswersThroughTheRecordSource() throws {
        let dir = TempDir()
        let store = dir.write("store.json", TestStore.json)
        let source = RecordSource(records: LocalStore(path: store), clock: FixedClock(ISODate.parse(testNow)!))
        XCTAssertEqual(source.capabilities, .all)
        let answer = try source.statuses(of: ["alice-android", "nobody"], at: nil)
        XCTAssertEqual(answer.requestDate, ISODate.parse(testNow))
        XCTAssertEqual(answer.statuses[0]?.requestedId, "alice-android")
        XCTAssertNil(answer.statuses[1])
        XCTAssertEqual(answer.knownEntitlements, ["premium"])
        XCTAssertEqual(try source.history(of: "bob", at: nil, until: nil)?.entries.count, 2)
    }
}
