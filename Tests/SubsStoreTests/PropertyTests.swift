// Property tests of the rules and the write path on seeded random customers (RandomCustomers).
// Each property runs a few hundred customers; a failure names the seed that replays it
// (SUBS_PROPERTY_SEED=N runs that seed alone). The properties are written to hold under SPEC
// section 3 as it stands and as it is to be revised (a revoked latest period revoking its
// chain, expirationDate including the grace period): adjust them here, in one place.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsStore
import XCTest

final class PropertyTests: XCTestCase {
    /// The seeds each property runs: fixed (so CI is deterministic), or the one to replay.
    func seeds(_ count: Int, base: UInt64) -> [UInt64] {
        if let text = ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"], let seed = UInt64(text) { return [seed] }
        return (0..<UInt64(count)).map { base &+ $0 }
    }

    // MARK: check agrees with history

    /// Whether a history entry (of the entries up to T) gives access to `entitlement` at T:
    /// an unrefunded subscription transaction whose period covers T, or whose product's grace
    /// period covers T while a billing issue of its chain is open; an unrefunded purchase; an
    /// unrevoked grant not yet expired.
    func grantsAccess(_ entry: HistoryEntry, _ entitlement: ID, at t: Instant, among entries: [HistoryEntry]) -> Bool {
        guard entry.entitlements.contains(entitlement) else { return false }
        func string(_ e: HistoryEntry, _ key: String) -> ID? { e.field(key)?.id }
        func date(_ e: HistoryEntry, _ key: String) -> Instant? {
            if case .date(let d)? = e.field(key) { return d }
            return nil
        }
        switch entry.kind {
        case .transaction:
            let id = string(entry, "transactionId")
            let refunded = entries.contains { $0.kind == .refund && string($0, "transactionId") == id }
            guard !refunded, let type = TransactionType(rawValue: entry.type), type != .consumablePurchase else { return false }
            if type == .nonConsumablePurchase { return true }
            guard let expiration = date(entry, "expirationDate") else { return false }
            if t < expiration { return true }
            let chain = string(entry, "originalTransactionId")
            let billingIssue = entries.contains {
                $0.kind == .event && $0.type == EventType.billingIssue.rawValue
                    && string($0, "originalTransactionId") == chain && $0.date >= entry.date
            }
            guard billingIssue, let grace = string(entry, "productId").flatMap({ RandomCustomers.catalog[$0] })?.gracePeriod
            else { return false }
            return t < expiration.adding(grace)!
        case .grant where entry.type == "granted":
            let id = string(entry, "grantId")
            let revoked = entries.contains { $0.kind == .grant && $0.type == "revoked" && string($0, "grantId") == id }
            return !revoked && (date(entry, "expirationDate").map { t < $0 } ?? true)
        default:
            return false
        }
    }

    func testAnEntitlementIsActiveOnlyWhenSomeHistoryEntryGrantsAccess() {
        var checked = 0, active = 0
        for seed in seeds(300, base: 1_000) {
            var g = SeededGenerator(seed: seed)
            let record = RandomCustomers.customer("c\(seed)", &g).record
            for t in RandomCustomers.instants(for: record, &g) {
                let infos = EntitlementRules.evaluate(record, catalog: RandomCustomers.catalog, at: t)
                let entries = History.entries(of: record, catalog: RandomCustomers.catalog, until: t)
                // Every entitlement with a source at T shows in history up to T, and the other way round.
                let sourced = Set(entries.filter { $0.kind != .event }.flatMap(\.entitlements))
                XCTAssertEqual(Set(infos.map(\.id)), sourced, "seed \(seed), T \(ISODate.format(t))")
                for info in infos where info.isActive {
                    active += 1
                    XCTAssertTrue(entries.contains { grantsAccess($0, info.id, at: t, among: entries) },
                                  "seed \(seed): \(info.id) is \(info.state) at \(ISODate.format(t)) but no history entry grants it")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 1_000)
        XCTAssertGreaterThan(active, 300, "the generator must give active entitlements often enough to test anything")
    }

    // MARK: renewsCount never decreases

    /// Without refunds, and with the entitlement described by the same chain, renewsCount can
    /// only grow with T: renewals are added, never taken away.
    func testRenewsCountNeverDecreasesAsTimeGoesOn() {
        var compared = 0
        for seed in seeds(300, base: 2_000) {
            var g = SeededGenerator(seed: seed)
            // Odd seeds: subscriptions only, no refunds, so every pair of instants compares.
            let plain = seed % 2 == 1
            let record = RandomCustomers.customer("c\(seed)", &g, revocations: !plain, chains: plain ? 1...1 : 0...3,
                                                  others: !plain).record
            let revocations = record.transactions.compactMap(\.revocationDate)
            var last: [ID: (t: Instant, chain: ID?, count: Int)] = [:]
            for t in RandomCustomers.instants(for: record, &g) {
                for info in EntitlementRules.evaluate(record, catalog: RandomCustomers.catalog, at: t) {
                    let count = info.renewsCount ?? 0
                    XCTAssertGreaterThanOrEqual(count, 0, "seed \(seed)")
                    let chain = info.sourceKind == .chain ? info.transactions.first?.originalTransactionId : nil
                    if let before = last[info.id], before.chain != nil, before.chain == chain,
                       !revocations.contains(where: { before.t < $0 && $0 <= t }) {
                        XCTAssertGreaterThanOrEqual(count, before.count, "seed \(seed): \(info.id) renewsCount went from \(before.count) at \(ISODate.format(before.t)) to \(count) at \(ISODate.format(t))")
                        compared += 1
                    }
                    if plain { XCTAssertEqual(info.sourceKind, .chain, "seed \(seed)") }
                    last[info.id] = (t, chain, count)
                }
            }
        }
        XCTAssertGreaterThan(compared, 2_000)
    }

    // MARK: writes

    func makeStore(_ customers: [(id: ID, json: JSONObject)], _ g: inout SeededGenerator, in dir: TempDirectory) -> (path: String, bytes: Data) {
        let text = RandomCustomers.store(customers, &g)
        let path = dir.path + "/store.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), "cannot create a test file")
        return (path, Data(text.utf8))
    }

    /// A grant and its revoke at the same instant change nothing that matters: every
    /// entitlement active before is active after with the same fields; one that was not active
    /// stays inactive; a new one may appear only as a revoked grant. Other customers are not
    /// touched. (Only customers without an active manual grant of E take part: revoke ends
    /// those too, as it should.)
    func testGrantThenRevokeAtTheSameInstantChangesNoEntitlement() throws {
        var customersChecked = 0
        for seed in seeds(12, base: 3_000) {
            var g = SeededGenerator(seed: seed)
            let dir = try TempDirectory()
            let generated = (0..<25).map { RandomCustomers.customer("u\($0)", &g) }
            let (path, _) = makeStore(generated.map { ($0.record.id, $0.json) }, &g, in: dir)
            let entitlement = RandomCustomers.entitlements.randomElement(using: &g)!
            let now = RandomCustomers.date(&g, from: RandomCustomers.origin, withinDays: 400)
            let catalog = RandomCustomers.catalog
            let eligible = generated.map(\.record).filter { record in
                !record.grants.contains { $0.entitlement == entitlement && $0.grantedAt <= now
                    && ($0.revokedAt.map { $0 > now } ?? true) && ($0.expirationDate.map { now < $0 } ?? true) }
            }
            let store = LocalStore(path: path, lockTimeout: 5)
            let expiration: Instant? = Bool.random(using: &g) ? nil : now.adding(seconds: 30 * 86_400)
            _ = try store.apply(.grant(entitlement: entitlement, expirationDate: expiration, reason: "p", actor: "prop", createMissing: false),
                                to: eligible.map(\.id), now: now, dryRun: false)
            _ = try store.apply(.revoke(entitlement: entitlement, reason: "p", actor: "prop"),
                                to: eligible.map(\.id), now: now, dryRun: false)

            let after = try store.lookup(generated.map(\.record.id))
            let changed = Set(eligible.map(\.id))
            for (before, record) in zip(generated.map(\.record), after.records) {
                let record = try XCTUnwrap(record, "seed \(seed)")
                guard changed.contains(before.id) else {
                    XCTAssertEqual(record, before, "seed \(seed): a customer not named was changed")
                    continue
                }
                customersChecked += 1
                for t in [now, now.adding(seconds: 1)!, now.adding(seconds: 40 * 86_400)!] {
                    let old = EntitlementRules.evaluate(before, catalog: catalog, at: t)
                    let new = EntitlementRules.evaluate(record, catalog: catalog, at: t)
                    let context = "seed \(seed), customer \(before.id), \(entitlement) granted and revoked at \(ISODate.format(now)), T \(ISODate.format(t))"
                    for info in old {
                        let now = new.first { $0.id == info.id }
                        if info.isActive || info.id != entitlement {
                            XCTAssertEqual(now, info, context)
                        } else {
                            XCTAssertEqual(now?.isActive, false, context)
                        }
                    }
                    for info in new where !old.contains(where: { $0.id == info.id }) {
                        XCTAssertEqual(info.id, entitlement, context)
                        XCTAssertEqual(info.state, .revoked, context)
                        XCTAssertEqual(info.sourceKind, .grant, context)
                    }
                }
            }
        }
        XCTAssertGreaterThan(customersChecked, 200)
    }

    /// A customer record spliced back unchanged gives the same bytes, whatever the store's
    /// layout (compact, two or four spaces, tabs); and writes that change nothing (a dry run,
    /// a revoke with nothing to revoke) leave the file byte-identical.
    func testWritingACustomerBackUnchangedLeavesTheStoreByteIdentical() throws {
        var spliced = 0
        for seed in seeds(20, base: 4_000) {
            var g = SeededGenerator(seed: seed)
            let dir = try TempDirectory()
            let generated = (0..<15).map { RandomCustomers.customer("u\($0)", &g) }
            let (path, original) = makeStore(generated.map { ($0.record.id, $0.json) }, &g, in: dir)

            let ids = generated.map(\.record.id)
            let scanned = try ScannedStore.scan(path: path, ids: ids)
            for i in ids.indices {
                let span = try XCTUnwrap(try scanned.customerSpan(forRequest: i, id: ids[i]), "seed \(seed)")
                let edit = Splice.replaceValue(span.range, with: try scanned.value(span.range), in: scanned)
                var out = Data()
                try Splice.write([edit], over: scanned.bytes, to: { out.append(contentsOf: $0) })
                XCTAssertEqual(out, original, "seed \(seed): customer \(ids[i]) written back unchanged changed the store")
                spliced += 1
            }

            let store = LocalStore(path: path, lockTimeout: 5)
            let now = RandomCustomers.date(&g)
            _ = try store.apply(.grant(entitlement: "premium", expirationDate: nil, reason: nil, actor: nil, createMissing: true),
                                to: ids + ["new"], now: now, dryRun: true)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original, "seed \(seed): a dry run wrote")
            // Nobody holds a grant of an entitlement no customer was ever granted: nothing to revoke.
            let fresh = generated.filter { !$0.record.grants.contains { $0.entitlement == "cloud" } }.map(\.record.id)
            if !fresh.isEmpty {
                XCTAssertThrowsError(try store.apply(.revoke(entitlement: "cloud", reason: nil, actor: nil), to: fresh, now: now, dryRun: false))
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original, "seed \(seed): a refused revoke wrote")
            }
        }
        XCTAssertGreaterThanOrEqual(spliced, 300)
    }
}
