// SPEC section 7, "Ids are bytes", against the built binary over real sockets: `subs serve` on a
// store whose ids come in canonically equivalent pairs answers each id for itself (the index),
// writes two POSTs sent together for the two ids to two customers (the group commit), keeps an
// Idempotency-Key to its customer, and `subs --remote … check` prints what `subs check` prints on
// the file. A failure names its seed; `SUBS_PROPERTY_SEED=N` replays one.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import SubsModel
import SubsStore
import SubsRemote
import TestSupport
import XCTest

final class IdsAreBytesEndToEndTests: XCTestCase {
    private let token = "t0ken-e2e"

    private func seeds(_ count: Int, base: UInt64) -> [UInt64] {
        if let text = ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"], let seed = UInt64(text) { return [seed] }
        return (0..<UInt64(count)).map { base &+ $0 }
    }

    /// `subs serve` on `store`, on a free loopback port; stopped when the test ends.
    private func serve(_ store: String, in dir: TempDir) throws -> Int {
        let log = dir.path + "/serve.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil), "cannot create a test file")
        let process = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0"], env: ["SUBS_SERVER_TOKEN": token],
                                       stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        let giveUp = Date().addingTimeInterval(20)
        while Date() < giveUp {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                return port
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        XCTFail("subs serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        throw POSIXError(.ECHILD)
    }

    private func path(_ id: ID) -> String { "/v1/customers/" + RemoteURL.segment(id.string) }

    /// The bytes of one request: `key` is sent as raw bytes (it may not be ASCII).
    private func request(_ method: String, _ target: String, body: String = "", key: ID? = nil) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n"
        if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        var bytes = Array(head.utf8)
        if let key { bytes += Array("Idempotency-Key: ".utf8) + Array(key.utf8) + [13, 10] }
        return bytes + [13, 10] + Array(body.utf8)
    }

    private func exchange(_ port: Int, _ bytes: [UInt8]) throws -> RawResponse? {
        let client = try RawClient(port: port)
        client.send(bytes)
        return client.readResponse()
    }

    private func grantBody(_ entitlement: ID, create: Bool = false) -> String {
        #"{"entitlement": \#(JSON.quote(entitlement.string)), "expirationDate": null\#(create ? #", "create": true"# : "")}"#
    }

    private func customerId(_ response: RawResponse?) -> [UInt8]? {
        response?.json?["customer"]?["id"]?.stringValue.map { Array($0.utf8) }
    }

    func testServeKeepsEquivalentIdsApartInItsIndexGroupCommitAndIdempotencyTable() throws {
        for seed in seeds(3, base: 29_500) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let (key1, key2) = EquivalentIds.pair(using: &g)
            let context = "seed \(seed): \(ids.description) keys \(key1.debugDescription) \(key2.debugDescription)"
            let dir = TempDir()
            let store = dir.write("store.json", ids.json)
            let port = try serve(store, in: dir)

            // The index: each id and alias answers its own record.
            for (asked, owner) in [(ids.a, ids.a), (ids.b, ids.b), (ids.alias1, ids.a), (ids.alias2, ids.b)] {
                let answer = try exchange(port, request("GET", path(asked)))
                XCTAssertEqual(answer?.status, 200, context)
                XCTAssertEqual(customerId(answer), Array(owner.utf8), "GET \(asked.debugDescription): \(context)")
            }
            XCTAssertEqual(try exchange(port, request("GET", path(ids.new1)))?.status, 404, context)

            // Two POSTs for the two new ids, sent at once on two connections (the group commit
            // gathers requests that arrive together): two customers, each answered 201 and created.
            let clients = [try RawClient(port: port), try RawClient(port: port)]
            for (client, id) in zip(clients, [ids.new1, ids.new2]) {
                client.send(request("POST", path(id) + "/grants", body: grantBody(ids.entitlement1, create: true)))
            }
            let answers = clients.map { $0.readResponse() }
            XCTAssertEqual(answers.map { $0?.status }, [201, 201], context)
            XCTAssertEqual(answers.map { $0?.headers["subs-customer-created"] }, ["true", "true"], context)
            XCTAssertEqual(answers.map(customerId), [Array(ids.new1.utf8), Array(ids.new2.utf8)], context)
            // (In the order the two requests arrived.)
            XCTAssertEqual(Set(try LocalStore(path: store).customerIds()), [ids.a, ids.b, ids.new1, ids.new2], context)
            XCTAssertEqual(try LocalStore(path: store).customerIds().count, 4, context)
            for id in [ids.new1, ids.new2] {
                let answer = try exchange(port, request("GET", path(id)))
                XCTAssertEqual(customerId(answer), Array(id.utf8), context)
                XCTAssertEqual(answer?.json?["customer"]?["grants"]?.arrayValue?.count, 1, context)
            }

            // An Idempotency-Key is bound to its customer, and to its own bytes.
            let first = try exchange(port, request("POST", path(ids.a) + "/grants", body: grantBody(ids.entitlement2), key: key1))
            XCTAssertEqual(first?.status, 201, context)
            let forB = try exchange(port, request("POST", path(ids.b) + "/grants", body: grantBody(ids.entitlement2), key: key1))
            XCTAssertEqual(forB?.status, 422, "b was answered with a's grant: \(context)")
            XCTAssertEqual(forB?.errorCode, "idempotency_key_reused", context)
            let replay = try exchange(port, request("POST", path(ids.a) + "/grants", body: grantBody(ids.entitlement2), key: key1))
            XCTAssertEqual(replay?.headers["idempotent-replayed"], "true", context)
            let otherKey = try exchange(port, request("POST", path(ids.a) + "/grants", body: grantBody(ids.entitlement2), key: key2))
            XCTAssertEqual(otherKey?.status, 201, context)
            XCTAssertNil(otherKey?.headers["idempotent-replayed"], "a key canonically equal to another replayed its answer: \(context)")
            let a = try XCTUnwrap(try LocalStore(path: store).lookup([ids.a]).records.first ?? nil, context)
            XCTAssertEqual(a.grants.map(\.entitlement), [ids.entitlement2, ids.entitlement2], context)

            // Revoke and search by bytes.
            let revoked = try exchange(port, request("POST", path(ids.b) + "/entitlements/" + RemoteURL.segment(ids.entitlement1.string) + "/revoke"))
            XCTAssertEqual(revoked?.status, 404, "b holds entitlement2, not entitlement1: \(context)")
            let search = try exchange(port, request("GET", "/v1/customers?search=" + RemoteURL.segment(ids.new2.string)))
            XCTAssertEqual(search?.json?["matches"]?.arrayValue?.map { $0["customerId"]?.stringValue.map { Array($0.utf8) } },
                           [Array(ids.new2.utf8)], context)

            // `--remote` check and a local check agree on the same file, id by id.
            let every = [ids.a, ids.b, ids.alias1, ids.alias2, ids.new1, ids.new2].map(\.string)
            let local = try Binary.run(["--store", store, "check"] + every + ["--json"])
            let remote = try Binary.run(["--remote", "http://127.0.0.1:\(port)", "check"] + every + ["--json"],
                                        env: ["SUBS_API_KEY": token, "XDG_CACHE_HOME": dir.path + "/cache"])
            XCTAssertEqual(local.status, .success, "\(local.stderr) \(context)")
            XCTAssertEqual(remote.status, local.status, "\(remote.stderr) \(context)")
            XCTAssertEqual(Array(remote.stdout.utf8), Array(local.stdout.utf8), context)
            let documents = try XCTUnwrap(try JSON.parse(local.stdout).arrayValue, context)
            XCTAssertEqual(documents.map { $0["customerId"]?.stringValue.map { Array($0.utf8) } },
                           [ids.a, ids.b, ids.a, ids.b, ids.new1, ids.new2].map { Array($0.utf8) }, context)
        }
    }

    /// The command line's own writer, as a process: `grant - ENT --create` with both ids on
    /// standard input creates both and says both, exit 0.
    func testGrantFromStandardInputCreatesBothEquivalentIds() throws {
        for seed in seeds(3, base: 29_600) {
            var g = SeededRandom(seed: seed)
            let ids = EquivalentIdStore(using: &g)
            let context = "seed \(seed): \(ids.description)"
            let dir = TempDir()
            let store = dir.write("store.json", ids.json)
            let result = try Binary.run(["--store", store, "grant", "-", ids.entitlement2.string, "--create", "--lifetime", "--format", "tsv"],
                                        stdin: "\(ids.new1.string)\n\(ids.new2.string)\n\(ids.a.string)\n\(ids.b.string)\n")
            XCTAssertEqual(result.status, .success, "\(result.stderr) \(context)")
            let rows = result.stdout.split(separator: "\n").dropFirst().map { Array($0.split(separator: "\t")[0].utf8) }
            XCTAssertEqual(rows, [ids.new1, ids.new2, ids.a, ids.b].map { Array($0.utf8) }, context)
            XCTAssertEqual(try LocalStore(path: store).customerIds(), [ids.a, ids.b, ids.new1, ids.new2], context)
            XCTAssertEqual(try Binary.run(["--store", store, "store", "validate", "-q"]).status, .success, context)
        }
    }
}
