// Found by PropertyTests (grant then revoke at one instant): revoke also ended grants dated after
// its own instant — grants that do not exist yet at that instant (SPEC section 3) — writing a
// revokedAt before their grantedAt. Revoke ends only the grants active at its instant.

import Foundation
@testable import SubsModel
@testable import SubsStore
import XCTest

final class RevokeFutureGrantTests: XCTestCase {
    let now = at("2026-06-01T12:00:00Z")

    func store(grants: [(id: String, grantedAt: String, expires: String?)]) throws -> (LocalStore, String, TempDirectory) {
        let dir = try TempDirectory()
        let list = grants.map { g in
            "{\"id\": \"\(g.id)\", \"entitlement\": \"premium\", \"grantedAt\": \"\(g.grantedAt)\", \"expirationDate\": "
                + (g.expires.map { "\"\($0)\"" } ?? "null") + "}"
        }.joined(separator: ", ")
        let text = """
        {"schemaVersion": 1,
         "products": {"life": {"type": "nonConsumable", "entitlements": ["premium"]}},
         "customers": {"alice": {"grants": [\(list)]}}}

        """
        let path = dir.path + "/store.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), "cannot create a test file")
        return (LocalStore(path: path, lockTimeout: 5), path, dir)
    }

    func revoke(_ store: LocalStore) throws -> ChangeResult {
        try store.apply(.revoke(entitlement: "premium", reason: nil, actor: "dana"), to: ["alice"], now: now, dryRun: false)
    }

    func testAGrantDatedLaterIsNotRevokedAndNothingIsWritten() throws {
        for grantedAt in ["2026-06-01T12:00:01Z", "2026-07-01T00:00:00Z", "2030-01-01T00:00:00Z"] {
            for expires in [nil, "2031-01-01T00:00:00Z"] {
                let (store, path, _dir) = try store(grants: [("g1", grantedAt, expires)])
                let before = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertThrowsError(try revoke(store), "grant of \(grantedAt)") { error in
                    XCTAssertEqual(error as? ChangeError, .nothingToRevoke(entitlement: "premium", customers: ["alice"]))
                }
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "grant of \(grantedAt)")
                _ = _dir
            }
        }
    }

    func testOnlyTheGrantActiveNowIsRevokedWhenALaterOneIsScheduled() throws {
        let (store, _, _dir) = try store(grants: [("g1", "2026-05-01T00:00:00Z", nil),
                                                   ("g2", "2026-08-01T00:00:00Z", "2026-09-01T00:00:00Z")])
        let result = try revoke(store)
        XCTAssertEqual(result.customers.first?.grants.map(\.id), ["g1"])
        let record = try XCTUnwrap(try store.read(["alice"]).records.first ?? nil)
        XCTAssertEqual(record.grants.map(\.revokedAt), [now, nil])
        // The scheduled grant still gives access in its own time.
        let august = EntitlementRules.evaluate(record, catalog: try store.read([]).catalog, at: at("2026-08-15"))
        XCTAssertEqual(august.first?.isActive, true)
        XCTAssertEqual(august.first?.grantId, "g2")
        _ = _dir
    }

    func testAGrantDatedExactlyNowIsRevoked() throws {
        let (store, _, _dir) = try store(grants: [("g1", "2026-06-01T12:00:00Z", nil)])
        XCTAssertEqual(try revoke(store).customers.first?.grants.map(\.revokedAt), [now])
        _ = _dir
    }
}
