// grant and revoke in-process: what is written, byte for byte, and what is refused.

import Foundation
import SubsCLI
import SubsJSON
import XCTest

final class GrantRevokeTests: XCTestCase {
    var dir: TempDir!
    var store: String!

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    func run(_ args: [String], stdin: String? = nil, now: String = testNow, env: [String: String] = [:]) -> CLIResult {
        runCLI(["--store", store] + args, env: ["USER": "tester"].merging(env) { $1 }, stdin: stdin, now: now)
    }

    /// The store as readers see it (its journal folded in).
    func storeBytes() -> [UInt8] { StoreView.folded(store) }

    func testGrantChangesOnlyTheTargetCustomersBytes() throws {
        let before = storeBytes()
        let result = run(["grant", "carol", "premium", "--duration", "P1M", "--reason", "goodwill"])
        XCTAssertEqual(result.status, .success, result.stderr)
        let after = storeBytes()
        let text = String(decoding: before, as: UTF8.self)
        // carol's record runs from her key to the start of "dave".
        let start = text.utf8.distance(from: text.utf8.startIndex, to: text.range(of: "\"carol\"")!.lowerBound)
        let end = text.utf8.distance(from: text.utf8.startIndex, to: text.range(of: "\"dave\"")!.lowerBound)
        XCTAssertEqual(Array(after.prefix(start)), Array(before.prefix(start)), "bytes before carol unchanged")
        let tail = before.count - end
        XCTAssertEqual(Array(after.suffix(tail)), Array(before.suffix(tail)), "bytes after carol unchanged")
        XCTAssertEqual(runCLI(["--store", store, "store", "validate"]).status, .success)
        let carol = String(decoding: after[start..<(after.count - tail)], as: UTF8.self)
        XCTAssertTrue(carol.contains("""
              "grants": [
                {
                  "id": "grant-1",
                  "entitlement": "premium",
                  "grantedAt": "2026-12-01T12:00:00Z",
                  "expirationDate": "2027-01-01T12:00:00Z",
                  "grantedBy": "tester",
                  "reason": "goodwill"
                }
              ]
        """), "written in the store's own indentation:\n\(carol)")
    }

    func testUnknownFieldsAndKeyOrderSurviveAGrant() throws {
        let text = """
        {"zeta": [1, 2.50, {"keep": true}], "schemaVersion": 1,
            "products": {"m": {"type": "subscription", "entitlements": ["premium"], "displayName": "Monthly"}},
            "customers": {
                "u": {"vip": {"tier": 3}, "transactions": [], "grants": [{"id": "grant-1", "entitlement": "premium",
                      "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": "2026-02-01T00:00:00Z", "ticket": "T-1"}]}
            }}
        """
        store = dir.write("custom.json", text)
        XCTAssertEqual(run(["grant", "u", "premium", "--lifetime"]).status, .success)
        let after = String(decoding: storeBytes(), as: UTF8.self)
        XCTAssertTrue(after.hasPrefix("""
        {"zeta": [1, 2.50, {"keep": true}], "schemaVersion": 1,
            "products": {"m": {"type": "subscription", "entitlements": ["premium"], "displayName": "Monthly"}},
            "customers": {
                "u":
        """), after)
        let u = try XCTUnwrap(JSON.parse(after)["customers"]?["u"]?.objectValue)
        XCTAssertEqual(u.keys, ["vip", "transactions", "grants"])
        XCTAssertEqual(u["vip"], .object(JSONObject([("tier", .number("3"))])))
        let grants = try XCTUnwrap(u["grants"]?.arrayValue)
        XCTAssertEqual(grants.count, 2)
        XCTAssertEqual(grants[0]["ticket"], .string("T-1"))
        XCTAssertEqual(grants[1]["id"], .string("grant-2"))
        XCTAssertEqual(grants[1]["expirationDate"], .null)
    }

    func testGrantThenRevokeThenCheckAtSeveralInstants() throws {
        XCTAssertEqual(run(["grant", "carol", "premium", "--until", "2027-06-01"], now: "2026-12-01T00:00:00Z").status, .success)
        XCTAssertEqual(run(["revoke", "carol", "premium", "--reason", "abuse"], now: "2027-01-01T00:00:00Z").status, .success)
        func state(at: String) throws -> JSONValue? {
            try JSON.parse(run(["check", "carol", "--json", "--at", at]).stdout)["entitlements"]?["premium"]?["state"]
        }
        XCTAssertEqual(try state(at: "2026-11-30T00:00:00Z"), .string("expired"), "before the grant: the old subscription")
        XCTAssertEqual(try state(at: "2026-12-01T00:00:00Z"), .string("active"), "granted at that instant")
        XCTAssertEqual(try state(at: "2026-12-31T23:59:59Z"), .string("active"))
        XCTAssertEqual(try state(at: "2027-01-01T00:00:00Z"), .string("revoked"), "revoked at that instant")
        let grant = try JSON.parse(run(["check", "carol", "--json", "--at", "2027-02-01"]).stdout)["entitlements"]?["premium"]
        XCTAssertEqual(grant?["grantId"], .string("grant-1"))
    }

    func testGrantJSONOutputHasTheGrantAndTheStatusAfterTheWrite() throws {
        let doc = try JSON.parse(run(["grant", "alice", "premium", "--duration", "P7D", "--json", "--actor", "dana"]).stdout)
        XCTAssertEqual(doc.objectValue?.keys, ["customerId", "requestedId", "requestDate", "dryRun", "grants", "entitlement"])
        XCTAssertEqual(doc["dryRun"], .bool(false))
        XCTAssertEqual(doc["grants"]?.arrayValue?.first?["grantedBy"], .string("dana"))
        XCTAssertEqual(doc["grants"]?.arrayValue?.first?["revokedAt"], .null)
        // alice's subscription (until 2026-12-15) ends later than the 7-day grant: it still describes premium.
        XCTAssertEqual(doc["entitlement"]?["grantType"], .string("purchase"))
    }

    func testBatchGrantFromStdinIsOneWrite() throws {
        let result = run(["grant", "-", "premium", "--duration", "P3M", "--json"], stdin: "# early adopters\nalice\nbob\n\ncarol\n")
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(try JSON.parse(result.stdout).arrayValue?.count, 3)
        let customers = try JSON.parse(String(decoding: storeBytes(), as: UTF8.self))["customers"]
        for id in ["alice", "bob", "carol"] {
            XCTAssertEqual(customers?[id]?["grants"]?.arrayValue?.count, 1, id)
        }
    }

    func testBatchWithAMissingCustomerWritesNothing() {
        let before = storeBytes()
        let result = run(["grant", "alice", "nobody", "premium", "--lifetime"])
        XCTAssertEqual(result.status, .notFound)
        XCTAssertTrue(result.stderr.contains("'nobody' not found"), result.stderr)
        XCTAssertEqual(storeBytes(), before)
    }

    func testCreateAddsTheCustomer() throws {
        let result = run(["grant", "newbie", "premium", "--lifetime", "--create"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertTrue(result.stdout.contains("newbie (new customer): granted premium for life"), result.stdout)
        XCTAssertEqual(runCLI(["--store", store, "store", "validate"]).status, .success)
        let doc = try JSON.parse(run(["check", "newbie", "--json"]).stdout)
        XCTAssertEqual(doc["activeEntitlements"], .array([.string("premium")]))
    }

    func testCreateIntoAnEmptyStore() throws {
        store = dir.write("empty.json", "{\n  \"schemaVersion\": 1,\n  \"products\": {\"p\": {\"type\": \"nonConsumable\", \"entitlements\": [\"pro\"]}},\n  \"customers\": {}\n}\n")
        XCTAssertEqual(run(["grant", "a", "b", "pro", "--lifetime", "--create"]).status, .success)
        XCTAssertEqual(runCLI(["--store", store, "store", "validate"]).status, .success)
        let text = String(decoding: storeBytes(), as: UTF8.self)
        XCTAssertTrue(text.contains("  \"customers\": {\n    \"a\": {\n      \"firstSeen\""), text)
    }

    func testUnknownEntitlementIsRefusedWithASuggestion() {
        let before = storeBytes()
        let result = run(["grant", "alice", "premum", "--lifetime"])
        XCTAssertEqual(result.status, .notFound)
        XCTAssertTrue(result.stderr.contains("did you mean 'premium'?"), result.stderr)
        XCTAssertEqual(storeBytes(), before)
    }

    func testExpirationInThePastIsRefused() {
        let before = storeBytes()
        let result = run(["grant", "alice", "premium", "--until", "2026-01-01"])
        XCTAssertEqual(result.status, .usage)
        XCTAssertTrue(result.stderr.contains("not in the future"), result.stderr)
        XCTAssertEqual(storeBytes(), before)
    }

    func testDryRunWritesNothing() throws {
        let before = storeBytes()
        let result = run(["grant", "alice", "premium", "--lifetime", "--dry-run", "--json"])
        XCTAssertEqual(result.status, .success)
        XCTAssertEqual(try JSON.parse(result.stdout)["dryRun"], .bool(true))
        XCTAssertEqual(storeBytes(), before)
    }

    func testRevokeWithNothingToRevokeIsExit3() {
        let result = run(["revoke", "alice", "premium"])
        XCTAssertEqual(result.status, .notFound)
        XCTAssertTrue(result.stderr.contains("no active manual grant"), result.stderr)
    }

    func testRevokeSaysWhenAPurchaseKeepsTheEntitlementActive() {
        XCTAssertEqual(run(["grant", "alice", "premium", "--lifetime"]).status, .success)
        let result = run(["revoke", "alice", "premium"])
        XCTAssertEqual(result.status, .success, result.stderr)
        XCTAssertEqual(result.stderr, "subs: note: alice keeps premium through a purchase (pro_monthly)\n")
        XCTAssertTrue(result.stdout.contains("alice: premium is now active"), result.stdout)
    }

    func testInvalidStoreIsNotWritten() {
        store = dir.write("bad.json", "{\"schemaVersion\": 1, \"products\": {\"m\": {\"type\": \"gift\", \"entitlements\": [\"p\"]}}, \"customers\": {\"a\": {}}}")
        let before = storeBytes()
        XCTAssertEqual(run(["grant", "a", "p", "--lifetime"]).status, .dataError)
        XCTAssertEqual(storeBytes(), before)
    }

    func testFileModeIsKept() throws {
        chmod(store, 0o640)
        XCTAssertEqual(run(["grant", "alice", "premium", "--lifetime"]).status, .success)
        let attributes = try FileManager.default.attributesOfItem(atPath: store)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o640)
    }

    func testCompactStoreStaysCompact() throws {
        store = dir.write("compact.json", "{\"schemaVersion\":1,\"products\":{\"p\":{\"type\":\"nonConsumable\",\"entitlements\":[\"pro\"]}},\"customers\":{\"a\":{},\"b\":{}}}")
        XCTAssertEqual(run(["grant", "a", "pro", "--lifetime", "--actor", "x"]).status, .success)
        XCTAssertEqual(run(["grant", "c", "pro", "--lifetime", "--actor", "x", "--create"]).status, .success)
        let text = String(decoding: storeBytes(), as: UTF8.self)
        XCTAssertFalse(text.contains("\n"), text)
        XCTAssertNoThrow(try JSON.parse(text))
        XCTAssertTrue(text.hasSuffix(",\"b\":{},\"c\":{\"firstSeen\":\"2026-12-01T12:00:00Z\",\"grants\":[{\"id\":\"grant-1\",\"entitlement\":\"pro\",\"grantedAt\":\"2026-12-01T12:00:00Z\",\"expirationDate\":null,\"grantedBy\":\"x\"}]}}}"), text)
    }
}
