// SPEC section 7, "Ids are bytes", in the library and in every route of the subs REST API (called
// without sockets): for random pairs of canonically equivalent ids, the served index, the group
// commit, the writer, the validator, the rules and the Idempotency-Key table treat them as two.
// A failure names its seed and its ids; `SUBS_PROPERTY_SEED=N` replays one seed.

import XCTest
import SubsJSON
@testable import SubsSystem
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsRemote
@testable import SubsServer
import TestSupport

final class IdsAreBytesServeTests: XCTestCase {
    private let now = ISODate.parse(testNow)!

    private func seeds(_ count: Int, base: UInt64) -> [UInt64] {
        if let text = ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"], let seed = UInt64(text) { return [seed] }
        return (0..<UInt64(count)).map { base &+ $0 }
    }

    private func request(_ method: String, _ target: String, body: String = "", key: [UInt8]? = nil) -> HTTPRequest {
        var headers = HTTPHeaders()
        if let key { headers.append(name: "Idempotency-Key", value: key) }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    private func customer(_ id: ID) -> String { "/v1/customers/" + RemoteURL.segment(id.string) }

    private func grantBody(_ entitlement: ID, create: Bool = false) -> String {
        #"{"entitlement": \#(JSON.quote(entitlement.string)), "expirationDate": null\#(create ? #", "create": true"# : "")}"#
    }

    /// The answer's customer id, as bytes.
    private func answeredId(_ answer: HTTPResponse) -> [UInt8]? {
        (try? JSON.parse(answer.body))?["customer"]?["id"]?.stringValue.map { Array($0.utf8) }
    }

    private func grantCount(_ answer: HTTPResponse) -> Int? {
        (try? JSON.parse(answer.body))?["customer"]?["grants"]?.arrayValue?.count
    }

    func testTheIndexTheWriterTheValidatorAndTheRulesKeepEquivalentIdsApart() throws {
        for seed in seeds(12, base: 29_000) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let path = dir.write("store.json", ids.json)

            XCTAssertEqual(try StoreValidator.problems(path: path), [], context)
            let store = LocalStore(path: path)
            let lookup = try store.read([ids.a, ids.b, ids.alias1, ids.alias2, ids.new1])
            XCTAssertEqual(lookup.records.map { $0?.id }, [ids.a, ids.b, ids.a, ids.b, nil], context)
            XCTAssertEqual(Set(lookup.catalog.entitlementIds), [ids.entitlement1, ids.entitlement2], context)
            XCTAssertEqual(lookup.catalog.entitlements(unlockedBy: ids.product1), [ids.entitlement1], context)
            XCTAssertEqual(lookup.catalog.entitlements(unlockedBy: ids.product2), [ids.entitlement2], context)

            // The rules: a's chains are two (chain1 never renewed), and a has entitlement1 only.
            let a = try XCTUnwrap(lookup.records[0], context)
            let atNow = EntitlementRules.evaluate(a, catalog: lookup.catalog, at: now)
            XCTAssertEqual(atNow.map(\.id), [ids.entitlement1], context)
            XCTAssertEqual(atNow.first?.isActive, true, context)
            XCTAssertEqual(atNow.first?.renewsCount, 0, "two chains taken for one: \(context)")
            XCTAssertEqual(atNow.first?.transactions.map(\.originalTransactionId), [ids.chain1], context)
            let history = History.entries(of: a, catalog: lookup.catalog, until: now)
            XCTAssertEqual(history.compactMap { $0.field("originalTransactionId")?.id }, [ids.chain2, ids.chain2, ids.chain1], context)
            let b = try XCTUnwrap(lookup.records[1], context)
            XCTAssertEqual(EntitlementRules.evaluate(b, catalog: lookup.catalog, at: now).map(\.id), [ids.entitlement2], context)

            // A grant to both new ids at once (`grant - E --create`) makes two customers.
            let created = try store.apply(.grant(entitlement: ids.entitlement1, expirationDate: nil, reason: nil, actor: nil,
                                                 createMissing: true),
                                          to: [ids.new1, ids.new2, ids.new1], now: now, dryRun: false)
            XCTAssertEqual(created.customers.map(\.record.id), [ids.new1, ids.new2], context)
            XCTAssertEqual(created.customers.map(\.created), [true, true], context)
            XCTAssertEqual(try store.customerIds(), [ids.a, ids.b, ids.new1, ids.new2], context)
            // A revoke names one customer: the other keeps its grant.
            _ = try store.apply(.revoke(entitlement: ids.entitlement1, reason: nil, actor: nil), to: [ids.new2], now: now, dryRun: false)
            let after = try store.read([ids.new1, ids.new2])
            XCTAssertEqual(after.records.map { $0?.grants.first?.revokedAt == nil }, [true, false], context)
            // A grant of entitlement2 is not one of entitlement1: nothing of it to revoke.
            XCTAssertThrowsError(try store.apply(.revoke(entitlement: ids.entitlement1, reason: nil, actor: nil), to: [ids.b],
                                                 now: now, dryRun: false), context) { error in
                XCTAssertEqual(error as? ChangeError, .nothingToRevoke(entitlement: ids.entitlement1, customers: [ids.b]), context)
            }
            XCTAssertEqual(try StoreValidator.problems(path: path), [], context)
        }
    }

    /// Two POSTs for the two ids committed in one write (the server's group commit): two
    /// customers, each with its own grant; and a later batch names each again.
    func testOneGroupCommitForBothIdsWritesTwoRecords() throws {
        for seed in seeds(12, base: 29_100) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let path = dir.write("store.json", ids.json)
            let grant = CustomerChange.grant(entitlement: ids.entitlement1, expirationDate: nil, reason: nil, actor: nil,
                                             createMissing: true)
            let results = try LocalStore(path: path).applyEach([ChangeRequest(change: grant, id: ids.new1),
                                                                ChangeRequest(change: grant, id: ids.new2),
                                                                ChangeRequest(change: grant, id: ids.a),
                                                                ChangeRequest(change: grant, id: ids.b)], now: now)
            let stored = results.map { try? $0.get() }
            XCTAssertEqual(stored.map { $0?.id }, [ids.new1, ids.new2, ids.a, ids.b], context)
            XCTAssertEqual(stored.map { $0?.created }, [true, true, false, false], context)
            let records = try LocalStore(path: path).read([ids.new1, ids.new2, ids.a, ids.b]).records
            XCTAssertEqual(records.map { $0?.grants.filter { $0.entitlement == ids.entitlement1 }.count }, [1, 1, 1, 1], context)
            XCTAssertEqual(records[3]?.grants.count, 3, "b's two grants of entitlement2 and the new one: \(context)")
        }
    }

    func testEveryRouteAnswersEachOfTwoEquivalentIdsForItself() throws {
        for seed in seeds(12, base: 29_200) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let path = dir.write("store.json", ids.json)
            let api = SubsAPI(store: LocalStore(path: path), token: nil, clock: FixedClock(now))
            try api.prepare()

            // GET, from the index without waiting and on the waiting path alike.
            for (asked, owner) in [(ids.a, ids.a), (ids.b, ids.b), (ids.alias1, ids.a), (ids.alias2, ids.b)] {
                let quick = try XCTUnwrap(api.answerWithoutWaiting(request("GET", customer(asked))), context)
                XCTAssertEqual(answeredId(quick), Array(owner.utf8), "GET \(asked.debugDescription): \(context)")
                XCTAssertEqual(answeredId(api.handle(request("GET", customer(asked)))), Array(owner.utf8), context)
            }
            XCTAssertEqual(api.handle(request("GET", customer(ids.new1))).status, 404, context)

            // POST a grant to a: b's record does not change; the body's entitlement is its bytes.
            let granted = api.handle(request("POST", customer(ids.a) + "/grants", body: grantBody(ids.entitlement2)))
            XCTAssertEqual(granted.status, 201, context)
            XCTAssertEqual(answeredId(granted), Array(ids.a.utf8), context)
            XCTAssertEqual(grantCount(api.handle(request("GET", customer(ids.b)))), 2, context)
            let aRecord = try XCTUnwrap(try LocalStore(path: path).read([ids.a]).records.first ?? nil)
            XCTAssertEqual(aRecord.grants.map(\.entitlement), [ids.entitlement2], context)

            // Revoke: the path's entitlement is its bytes, the customer too.
            XCTAssertEqual(api.handle(request("POST", customer(ids.b) + "/entitlements/" + RemoteURL.segment(ids.entitlement1.string)
                                                  + "/revoke")).status, 404, context)
            XCTAssertEqual(api.handle(request("POST", customer(ids.b) + "/entitlements/" + RemoteURL.segment(ids.entitlement2.string)
                                                  + "/revoke")).status, 200, context)
            let revoked = try XCTUnwrap(try LocalStore(path: path).read([ids.a, ids.b]).records.compactMap { $0 }.first)
            XCTAssertNil(revoked.grants.first?.revokedAt, "revoking b's grant revoked a's: \(context)")

            // Search: the term is matched by its bytes.
            let found = try JSON.parse(api.handle(request("GET", "/v1/customers?search=" + RemoteURL.segment(ids.b.string))).body)
            XCTAssertEqual(found["matches"]?.arrayValue?.compactMap { $0["customerId"]?.stringValue.map { Array($0.utf8) } },
                           [Array(ids.b.utf8)], context)
            XCTAssertEqual(found["matches"]?.arrayValue?.first?["matchedBy"], .string("customerId"), context)
        }
    }

    func testAnIdempotencyKeyBindsItsCustomerAndItsOwnBytes() throws {
        for seed in seeds(12, base: 29_300) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let (key1, key2) = EquivalentIds.pair(using: &g)
            let context = "seed \(seed): \(ids.description) keys \(key1.debugDescription) \(key2.debugDescription)"
            let dir = TempDir()
            let path = dir.write("store.json", ids.json)
            let api = SubsAPI(store: LocalStore(path: path), token: nil, clock: FixedClock(now))

            // The key first came with a's grant: the same key for b is another request, never a's answer.
            let first = api.handle(request("POST", customer(ids.a) + "/grants", body: grantBody(ids.entitlement1), key: Array(key1.utf8)))
            XCTAssertEqual(first.status, 201, context)
            let replay = api.handle(request("POST", customer(ids.a) + "/grants", body: grantBody(ids.entitlement1), key: Array(key1.utf8)))
            XCTAssertEqual(replay.status, 201, context)
            XCTAssertEqual(replay.headers.first { $0.0 == "Idempotent-Replayed" }?.1, "true", context)
            let other = api.handle(request("POST", customer(ids.b) + "/grants", body: grantBody(ids.entitlement1), key: Array(key1.utf8)))
            XCTAssertEqual(other.status, 422, "b got a's answer: \(context)")
            XCTAssertNil(answeredId(other), context)
            // The same customer by its alias is the same request.
            let byAlias = api.handle(request("POST", customer(ids.alias1) + "/grants", body: grantBody(ids.entitlement1), key: Array(key1.utf8)))
            XCTAssertEqual(byAlias.headers.first { $0.0 == "Idempotent-Replayed" }?.1, "true", context)
            // Another entitlement in the body (canonically equal) is another request.
            let otherBody = api.handle(request("POST", customer(ids.a) + "/grants", body: grantBody(ids.entitlement2), key: Array(key1.utf8)))
            XCTAssertEqual(otherBody.status, 422, context)
            // A key canonically equal to the first is another key: the grant runs again.
            let second = api.handle(request("POST", customer(ids.a) + "/grants", body: grantBody(ids.entitlement1), key: Array(key2.utf8)))
            XCTAssertEqual(second.status, 201, context)
            XCTAssertNil(second.headers.first { $0.0 == "Idempotent-Replayed" }, context)
            let a = try XCTUnwrap(try LocalStore(path: path).read([ids.a]).records.first ?? nil)
            XCTAssertEqual(a.grants.count, 2, context)
            let b = try XCTUnwrap(try LocalStore(path: path).read([ids.b]).records.first ?? nil)
            XCTAssertEqual(b.grants.count, 2, "b's own two grants only: \(context)")
        }
    }

    /// POSTs for both ids sent at once, as clients do: each is its own customer, whichever
    /// batch of the group commit carried them.
    func testConcurrentPostsForBothIdsMakeTwoCustomers() throws {
        for seed in seeds(6, base: 29_400) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let path = dir.write("store.json", ids.json)
            let api = SubsAPI(store: LocalStore(path: path), token: nil, clock: FixedClock(now))
            let targets = [ids.new1, ids.new2]
            // On two threads at once (the group commit's first request waits for others to join it).
            let answers = targets.concurrentMap(minimumCount: 1) { id in
                api.handle(self.request("POST", self.customer(id) + "/grants", body: self.grantBody(ids.entitlement1, create: true)))
            }
            XCTAssertEqual(answers.map(\.status), [201, 201], context)
            XCTAssertEqual(answers.map { $0.headers.first { $0.0 == StoredRecord.createdHeader }?.1 }, ["true", "true"], context)
            XCTAssertEqual(answers.map(answeredId), targets.map { Array($0.utf8) }, context)
            let records = try LocalStore(path: path).lookup(targets).records
            XCTAssertEqual(records.map { $0?.id }, targets, context)
            XCTAssertEqual(records.map { $0?.grants.count }, [1, 1], context)
        }
    }
}
