// SPEC section 7, "Ids are bytes", command by command: for random pairs of canonically
// equivalent ids (EquivalentIdStore: customers, aliases, products, entitlements, chains,
// transaction and grant ids), check, grant (with `grant - ENT --create` reading both ids on
// stdin), revoke, history, renew-count, find and store validate each treat them as two, and
// `--remote` through subs serve answers what the local store answers.
// A failure names its seed; `SUBS_PROPERTY_SEED=N` replays one.

import XCTest
import SubsJSON
@testable import SubsModel
@testable import SubsStore
@testable import SubsCLI
import TestSupport

final class IdsAreBytesCLITests: XCTestCase {
    private func seeds(_ count: Int, base: UInt64) -> [UInt64] {
        if let text = ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"], let seed = UInt64(text) { return [seed] }
        return (0..<UInt64(count)).map { base &+ $0 }
    }

    private func bytes(_ value: JSONValue?) -> [UInt8]? { value?.stringValue.map { Array($0.utf8) } }
    private func bytes(_ id: ID) -> [UInt8] { Array(id.utf8) }

    private func json(_ result: CLIResult, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        do { return try JSON.parse(result.stdout) } catch {
            XCTFail("not JSON (\(result.status)): \(result.stdout) \(result.stderr) — \(context)", file: file, line: line)
            throw error
        }
    }

    func testEveryCommandTreatsEquivalentIdsAsTwo() throws {
        for seed in seeds(10, base: 2_900) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let store = dir.write("store.json", ids.json)
            func run(_ args: [String], stdin: String? = nil) -> CLIResult { runCLI(["--store", store] + args, stdin: stdin) }
            let (a, b) = (ids.a.string, ids.b.string)

            // store validate: no duplicate alias, transaction or grant id, no alias that is a customer id.
            let validated = run(["store", "validate", "--json"])
            XCTAssertEqual(validated.status, .success, "\(validated.stdout) \(context)")
            XCTAssertEqual(try json(validated, context)["valid"], .bool(true), context)

            // check: each id, each alias, answers its own customer, with its own entitlements.
            let checked = run(["check", a, b, ids.alias1.string, ids.alias2.string, "--json"])
            XCTAssertEqual(checked.status, .success, "\(checked.stderr) \(context)")
            let documents = try XCTUnwrap(try json(checked, context).arrayValue, context)
            XCTAssertEqual(documents.map { bytes($0["customerId"]) }, [bytes(ids.a), bytes(ids.b), bytes(ids.a), bytes(ids.b)], context)
            XCTAssertEqual(documents.map { bytes($0["requestedId"]) },
                           [bytes(ids.a), bytes(ids.b), bytes(ids.alias1), bytes(ids.alias2)], context)
            XCTAssertEqual(documents[0]["activeEntitlements"], .array([.string(ids.entitlement1.string)]), context)
            XCTAssertEqual(documents[1]["activeEntitlements"], .array([.string(ids.entitlement2.string)]), context)
            XCTAssertEqual(documents[0]["entitlements"]?.objectValue?.keys.map { Array($0.utf8) }, [bytes(ids.entitlement1)], context)
            XCTAssertEqual(documents[0]["entitlements"]?[ids.entitlement1.string]?["renewsCount"], .number("0"),
                           "chain1 and chain2 taken for one chain: \(context)")
            // --require is an entitlement's bytes.
            XCTAssertEqual(run(["check", b, "--require", ids.entitlement2.string, "-q"]).status, .success, context)
            XCTAssertEqual(run(["check", b, "--require", ids.entitlement1.string, "-q"]).status, .requirementMissing, context)
            XCTAssertEqual(run(["check", ids.new1.string, "-q"]).status, .notFound, context)

            // history: a's transactions, two chains; b's grants.
            let history = try json(run(["history", a, "--json"]), context)
            XCTAssertEqual(bytes(history["customerId"]), bytes(ids.a), context)
            XCTAssertEqual(history["entries"]?.arrayValue?.map { bytes($0["originalTransactionId"]) },
                           [bytes(ids.chain2), bytes(ids.chain2), bytes(ids.chain1)], context)
            let bHistory = try json(run(["history", b, "--json"]), context)
            XCTAssertEqual(bHistory["entries"]?.arrayValue?.map { bytes($0["grantId"]) }.compactMap { $0 }.sorted { $0.lexicographicallyPrecedes($1) },
                           [bytes(ids.grant1), bytes(ids.grant2)].sorted { $0.lexicographicallyPrecedes($1) }, context)
            XCTAssertEqual(run(["history", b, "--entitlement", ids.entitlement1.string, "--json"]).status, .success, context)
            XCTAssertEqual(try json(run(["history", b, "--entitlement", ids.entitlement1.string, "--json"]), context)["entries"],
                           .array([]), "b's grants are of entitlement2: \(context)")

            // renew-count: chain1 never renewed (merged with chain2 it would count 2).
            let count = try json(run(["renew-count", a, ids.entitlement1.string, "--json"]), context)
            XCTAssertEqual(count["renewsCount"], .number("0"), context)
            XCTAssertEqual(run(["renew-count", a, ids.entitlement2.string]).status, .notFound, context)
            XCTAssertEqual(run(["renew-count", b, ids.entitlement2.string]).stdout, "0\n", context)

            // find: the id and the transaction id name a only; b's alias names b only.
            let found = try json(run(["find", a, ids.alias2.string, ids.transaction2.string, "--json"]), context)
            let results = try XCTUnwrap(found.arrayValue, context)
            XCTAssertEqual(results.map { $0["matches"]?.arrayValue?.map { bytes($0["customerId"]) } },
                           [[bytes(ids.a)], [bytes(ids.b)], [bytes(ids.a)]], context)
            XCTAssertEqual(results.map { $0["matches"]?.arrayValue?.first?["matchedBy"] },
                           [.string("customerId"), .string("alias"), .string("transactionId")], context)

            // grant to a: b is not touched; revoke of b's entitlement leaves a's grant.
            XCTAssertEqual(run(["grant", a, ids.entitlement2.string, "--lifetime", "-q"]).status, .success, context)
            XCTAssertEqual(run(["check", a, "--require", ids.entitlement2.string, "-q"]).status, .success, context)
            let revoke = run(["revoke", b, ids.entitlement2.string, "--json"])
            XCTAssertEqual(revoke.status, .success, "\(revoke.stderr) \(context)")
            XCTAssertEqual(bytes(try json(revoke, context)["customerId"]), bytes(ids.b), context)
            XCTAssertEqual(run(["check", a, "--require", ids.entitlement2.string, "-q"]).status, .success,
                           "revoking b revoked a: \(context)")
            XCTAssertEqual(run(["revoke", b, ids.entitlement1.string]).status, .notFound, context)

            // grant - ENT --create, both ids on stdin: two new customers, both said.
            let created = run(["grant", "-", ids.entitlement1.string, "--create", "--lifetime", "--json"],
                              stdin: ids.new1.string + "\n" + ids.new2.string + "\n")
            XCTAssertEqual(created.status, .success, "\(created.stderr) \(context)")
            let createdDocs = try XCTUnwrap(try json(created, context).arrayValue, context)
            XCTAssertEqual(createdDocs.map { bytes($0["customerId"]) }, [bytes(ids.new1), bytes(ids.new2)], context)
            XCTAssertEqual(try LocalStore(path: store).customerIds(), [ids.a, ids.b, ids.new1, ids.new2], context)
            XCTAssertEqual(run(["check", ids.new2.string, "--require", ids.entitlement1.string, "-q"]).status, .success, context)
            XCTAssertEqual(run(["store", "validate", "-q"]).status, .success, context)
            // The completion of customer ids lists all four, as written.
            let completed = run(["__complete", "customers", ""]).stdout.split(separator: "\n").map { Array($0.utf8) }
            XCTAssertEqual(completed, [ids.a, ids.b, ids.new1, ids.new2].map { bytes($0) }, context)
        }
    }

    /// An entitlement typed in another Unicode form than the catalog's is not in the catalog
    /// (exit 3); the suggestion is the catalog's spelling, said to be another form of the same
    /// letters, since the two look alike on the screen.
    func testAnEntitlementInAnotherUnicodeFormIsNotInTheCatalogAndTheHintSaysSo() throws {
        let dir = TempDir()
        let store = dir.write("store.json", """
            {"schemaVersion": 1, "products": {"p": {"type": "subscription", "entitlements": ["caf\u{E9}"]}},
             "customers": {"alice": {}}}
            """)
        for command in [["check", "alice", "--require", "cafe\u{301}"], ["grant", "alice", "cafe\u{301}", "--lifetime"],
                        ["history", "alice", "--entitlement", "cafe\u{301}"]] {
            let result = runCLI(["--store", store] + command)
            XCTAssertEqual(result.status, .notFound, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("no product unlocks entitlement"), result.stderr)
            XCTAssertTrue(result.stderr.contains("(did you mean 'caf\u{E9}'? — the same letters in another Unicode form; ids are compared by their bytes)"),
                          "\(command): \(result.stderr)")
        }
        // A real typo keeps the plain hint.
        let typo = runCLI(["--store", store, "check", "alice", "--require", "cafx"])
        XCTAssertEqual(typo.status, .notFound)
        XCTAssertTrue(typo.stderr.hasSuffix("(did you mean 'caf\u{E9}'?)\n"), typo.stderr)
    }

    /// `check --remote` through subs serve answers exactly what the local check answers, for
    /// every id and alias of the pair store (the server's index is by bytes as the file is).
    func testRemoteCheckAndLocalCheckAgreeOnEquivalentIds() throws {
        for seed in seeds(4, base: 2_950) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let store = dir.write("store.json", ids.json)
            let server = try LoopbackSubsServer(store: store, token: "t0ken")
            defer { server.stop() }
            for id in [ids.a, ids.b, ids.alias1, ids.alias2] {
                for command in [["check", id.string, "--json"], ["history", id.string, "--json"], ["renew-count", id.string, "--json"]] {
                    let here = runCLI(["--store", store] + command)
                    let there = runCLI(["--remote", server.base] + command,
                                       env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"])
                    XCTAssertEqual(there.status, here.status, "\(command): \(there.stderr) \(context)")
                    let expected = command[0] == "history"
                        ? here.stdout.replacingOccurrences(of: "\"provider\": \"store\"", with: "\"provider\": \"subs\"") : here.stdout
                    XCTAssertEqual(Array(there.stdout.utf8), Array(expected.utf8), "\(command) \(context)")
                }
            }
            // A grant through the server to b lands on b in the file, not on a.
            let granted = runCLI(["--remote", server.base, "grant", ids.b.string, ids.entitlement1.string, "--lifetime", "-q"],
                                 env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": dir.path + "/cache"])
            XCTAssertEqual(granted.status, .success, "\(granted.stderr) \(context)")
            XCTAssertEqual(runCLI(["--store", store, "check", ids.b.string, "--require", ids.entitlement1.string, "-q"]).status,
                           .success, context)
            XCTAssertEqual(try LocalStore(path: store).lookup([ids.a]).records.first??.grants.count, 0, context)
        }
    }
}
