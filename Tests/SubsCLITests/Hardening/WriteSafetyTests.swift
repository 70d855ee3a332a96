// Writes under stress, with the built binary: concurrent writers, SIGKILL at every step,
// unwritable stores, a busy lock. The store must always be valid and equal to a version
// that was written in full.

import Foundation
import SubsJSON
import XCTest

final class WriteSafetyTests: XCTestCase {
    var dir: TempDir!
    var store: String!

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    /// The store as readers see it (its journal folded in).
    func bytes(_ path: String) -> Data { Data(StoreView.folded(path)) }

    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.contains(".tmp-") }
    }

    func grantProcess(_ user: String, env: [String: String] = [:], store: String? = nil) throws -> Process {
        try Binary.start(["--store", store ?? self.store, "grant", user, "premium", "--duration", "P1M", "-q"], env: env)
    }

    func testTwentyParallelGrantsAllLand() throws {
        let users = ["alice", "bob", "carol", "dave", "frank"]
        var processes: [Process] = []
        for i in 0..<20 {
            // half to one customer, half spread over the others
            processes.append(try grantProcess(i % 2 == 0 ? "alice" : users[i / 2 % users.count],
                                              env: ["SUBS_LOCK_TIMEOUT": "60"]))
        }
        for p in processes { p.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), Array(repeating: 0, count: 20))
        let doc = try JSON.parse(Array(bytes(store)))
        let total = ["alice", "bob", "carol", "dave", "frank"].reduce(0) { sum, id in
            sum + (doc["customers"]?[id]?["grants"]?.arrayValue?.filter { $0["grantedAt"] == .string(testNow) }.count ?? 0)
        }
        XCTAssertEqual(total, 20)
        XCTAssertEqual(try Binary.run(["--store", store, "store", "validate"]).status.rawValue, 0)
        XCTAssertEqual(temporaries(), [])
    }

    /// The store as it is after the same grant ran to completion on a copy.
    func expectedAfterGrant(of user: String, from old: Data) throws -> Data {
        let copy = dir.write("expected-\(UUID().uuidString).json", bytes: Array(old))
        let p = try grantProcess(user, store: copy)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        return bytes(copy)
    }

    func testKilledAtEachStepLeavesTheOldOrTheNewStore() throws {
        // A change is one append to the journal: before it (the last look at the store) nothing
        // is written; after its fdatasync the change is there.
        for (step, expectNew) in [("appending", false), ("appended", true)] {
            let old = bytes(store)
            let new = try expectedAfterGrant(of: "carol", from: old)
            let p = try grantProcess("carol", env: ["SUBS_TEST_PAUSE_AT": step])
            // The pause lasts 30 s; the small write reaches it long before this wait ends.
            Thread.sleep(forTimeInterval: 0.4)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .uncaughtSignal, step)
            XCTAssertEqual(bytes(store), expectNew ? new : old, "killed at \(step)")
            XCTAssertEqual(try Binary.run(["--store", store, "store", "validate"]).status.rawValue, 0, step)
        }
        // The next writer clears what a killed one left behind: a fold of the journal killed
        // while syncing the new store leaves its temporary file.
        let killed = try Binary.start(["--store", store, "store", "compact"], env: ["SUBS_TEST_PAUSE_AT": "syncing"])
        Thread.sleep(forTimeInterval: 0.4)
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        XCTAssertEqual(temporaries().count, 1, "a fold killed while syncing leaves its temporary file")
        let p = try grantProcess("bob")
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual(temporaries(), [])
    }

    func testKilledAtRandomMomentsManyTimes() throws {
        // A bigger store so that a write takes long enough to be interrupted anywhere.
        var customers: [String] = []
        for i in 0..<3000 {
            customers.append("\"user\(i)\": {\"attributes\": {\"n\": \(i)}, \"transactions\": [{\"transactionId\": \"t\(i)\", \"originalTransactionId\": \"t\(i)\", \"productId\": \"pro_monthly\", \"type\": \"subscriptionStarted\", \"transactionDate\": \"2026-10-01T00:00:00Z\", \"expirationDate\": \"2026-11-01T00:00:00Z\"}]}")
        }
        store = dir.write("big.json", "{\"schemaVersion\": 1, \"products\": {\"pro_monthly\": {\"type\": \"subscription\", \"entitlements\": [\"premium\"]}},\n\"customers\": {\n" + customers.joined(separator: ",\n") + "\n}}\n")
        var generator = SystemRandomNumberGenerator()
        var sawOld = 0, sawNew = 0
        for round in 0..<25 {
            let user = "user\(round * 97 % 3000)"
            let old = bytes(store)
            let new = try expectedAfterGrant(of: user, from: old)
            let p = try grantProcess(user)
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            let now = bytes(store)
            XCTAssertTrue(now == old || now == new, "round \(round): the store is neither the old nor the new version")
            if now == old { sawOld += 1 } else { sawNew += 1 }
            XCTAssertNoThrow(try JSON.parse(Array(now)), "round \(round)")
        }
        XCTAssertEqual(sawOld + sawNew, 25)
    }

    func testLockHeldByAnotherProcessWaitsThenExit75() throws {
        let fd = open(store + ".lock", O_RDWR | O_CREAT, 0o600)
        XCTAssertEqual(flock(fd, LOCK_EX), 0)
        let before = bytes(store)
        let start = Date()
        let result = try Binary.run(["--store", store, "grant", "alice", "premium", "--lifetime"], env: ["SUBS_LOCK_TIMEOUT": "0.5"])
        let waited = Date().timeIntervalSince(start)
        XCTAssertEqual(result.status.rawValue, 75, result.stderr)
        XCTAssertTrue(result.stderr.contains("locked by another writer"), result.stderr)
        XCTAssertGreaterThanOrEqual(waited, 0.5)
        XCTAssertEqual(bytes(store), before)
        // Released while a writer waits: the writer goes ahead.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { flock(fd, LOCK_UN); close(fd) }
        XCTAssertEqual(try Binary.run(["--store", store, "grant", "alice", "premium", "--lifetime"]).status.rawValue, 0)
    }

    func testUnwritableDirectoryLeavesTheStoreUnchanged() throws {
        chmod(store, 0o644)
        _ = open(store + ".lock", O_RDWR | O_CREAT, 0o666)
        chmod(store + ".lock", 0o666)
        chmod(dir.path, 0o755)
        let before = bytes(store)
        // As root, permissions do not apply: run the writer as nobody.
        let asOtherUser = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        if geteuid() != 0 { chmod(dir.path, 0o555) }
        defer { chmod(dir.path, 0o755) }
        let result = try shell("\(asOtherUser)'\(Binary.url.path)' --store '\(store!)' grant alice premium --lifetime")
        XCTAssertTrue([73, 77].contains(result.status), "status \(result.status): \(result.stderr)")
        XCTAssertTrue(result.stderr.hasPrefix("subs: error: "), result.stderr)
        XCTAssertTrue(result.stderr.contains("store left unchanged"), result.stderr)
        XCTAssertEqual(bytes(store), before)
        XCTAssertEqual(temporaries(), [])
    }

    func testWriteFailureMidwayIsExit73AndLeavesNoTemporaryFile() throws {
        // A journal already past 1 KiB (two changes), then a file-size limit of 1 KiB: the next
        // change cannot be appended (EFBIG, as a full disk gives ENOSPC) and is cut back.
        for user in ["bob", "carol"] {
            XCTAssertEqual(try grantProcess(user).waitedStatus(), 0)
        }
        let before = bytes(store)
        let journal = try Data(contentsOf: URL(fileURLWithPath: store + ".journal"))
        XCTAssertGreaterThan(journal.count, 1024)
        let result = try shell("ulimit -f 1; exec '\(Binary.url.path)' --store '\(store!)' grant alice premium --lifetime")
        XCTAssertEqual(result.status, 73, result.stderr)
        XCTAssertTrue(result.stderr.contains("cannot write store"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store + ".journal")), journal, "the journal is cut back")
        XCTAssertEqual(bytes(store), before)
        // The fold of the journal under the same limit: the temporary copy of the ~3 KiB store
        // cannot be written; store and journal stay as they were.
        let fold = try shell("ulimit -f 1; exec '\(Binary.url.path)' --store '\(store!)' store compact")
        XCTAssertEqual(fold.status, 73, fold.stderr)
        XCTAssertTrue(fold.stderr.contains("cannot write store"), fold.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store + ".journal")), journal)
        XCTAssertEqual(bytes(store), before)
        XCTAssertEqual(temporaries(), [])
    }
}

private extension Process {
    func waitedStatus() -> Int32 {
        waitUntilExit()
        return terminationStatus
    }
}

extension WriteSafetyTests {
    func testInterruptedWriteExits130AndLeavesNoTemporaryFile() throws {
        let before = bytes(store)
        let err = Pipe()
        let process = try Binary.start(["--store", store, "grant", "alice", "premium", "--lifetime"],
                                       env: ["SUBS_TEST_PAUSE_AT": "appending"], stderr: err)
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertFalse(((try? String(contentsOfFile: store + ".journal", encoding: .utf8)) ?? "").contains(#""seq""#),
                       "paused before its change is appended")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                       "subs: error: interrupted\n")
        XCTAssertEqual(bytes(store), before)
        XCTAssertEqual(temporaries(), [])
    }
}
