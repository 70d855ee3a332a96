// The journal under abuse, with the built binary (SPEC sections 5 and 7 rev. 4): a torn last line,
// a damaged line, a store edited under its journal, a fold killed at each of its steps, writers
// killed at random moments compared with a model of what was acknowledged, and a writer appending
// while readers check and folds run.

import Foundation
import SubsJSON
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class JournalCrashTests: XCTestCase {
    var dir: TempDir!
    var store: String!
    var journal: String { store + ".journal" }

    override func setUp() {
        dir = TempDir()
        store = dir.write("store.json", TestStore.json)
    }

    func subs(_ arguments: [String], env: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try Binary.run(["--store", store] + arguments, env: env)
        return (result.status.rawValue, result.stdout, result.stderr)
    }

    func journalBytes() -> [UInt8] { Array((try? Data(contentsOf: URL(fileURLWithPath: journal))) ?? Data()) }

    /// The reasons of a customer's grants, as readers see the store.
    func reasons(_ customer: String) throws -> [String] {
        let doc = try JSON.parse(StoreView.folded(store))
        return doc["customers"]?[customer]?["grants"]?.arrayValue?.compactMap { $0["reason"]?.stringValue } ?? []
    }

    func grant(_ customer: String, reason: String, env: [String: String] = [:]) throws -> Process {
        try Binary.start(["--store", store, "grant", customer, "premium", "--duration", "P1M", "--reason", reason, "--create", "-q"], env: env)
    }

    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.contains(".tmp-") }
    }

    func testAChangeAppendsToTheJournalAndLeavesTheStoreFileAlone() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        XCTAssertEqual(try subs(["grant", "alice", "premium", "--lifetime", "--reason", "one", "-q"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "the store file is not rewritten")
        XCTAssertEqual(try reasons("alice"), ["one"])
        // Every reader sees it.
        XCTAssertTrue(try subs(["check", "alice", "--json"]).stdout.contains(#""grantReason" : "one""#)
                      || (try subs(["check", "alice", "--json"]).stdout.contains("one")))
        XCTAssertTrue(try subs(["history", "alice", "--format", "tsv"]).stdout.contains("grant-1"))
        XCTAssertEqual(try subs(["store", "validate", "-q"]).status, 0)
        // The journal takes the store's mode without execute bits.
        chmod(store, 0o640)
        try FileManager.default.removeItem(atPath: journal)
        let fresh = dir.write("fresh.json", TestStore.json)
        chmod(fresh, 0o751)
        XCTAssertEqual(try Binary.run(["--store", fresh, "grant", "bob", "premium", "--lifetime", "-q"]).status.rawValue, 0)
        var info = stat()
        XCTAssertEqual(stat(fresh + ".journal", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o640)
        XCTAssertEqual(stat(fresh + ".lock", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }

    func testATornLastLineIsDroppedNotedAndCutByTheNextWriter() throws {
        XCTAssertEqual(try subs(["grant", "alice", "premium", "--lifetime", "--reason", "kept", "-q"]).status, 0)
        let good = journalBytes()
        XCTAssertEqual(try subs(["grant", "bob", "premium", "--lifetime", "--reason", "torn", "-q"]).status, 0)
        let whole = journalBytes()
        // The second change cut short, as a crash during its append leaves it.
        let cut = good.count + (whole.count - good.count) / 2
        _ = FileManager.default.createFile(atPath: journal, contents: Data(whole.prefix(cut)))
        XCTAssertEqual(try reasons("alice"), ["kept"])
        XCTAssertEqual(try reasons("bob"), [])
        let validate = try subs(["store", "validate"])
        XCTAssertEqual(validate.status, 0, validate.stderr)
        XCTAssertTrue(validate.stderr.contains("line 3") && validate.stderr.contains("dropped"), validate.stderr)
        XCTAssertEqual(try subs(["check", "bob", "--json"]).status, 0)
        // The next writer cuts the torn bytes off before it appends: its line joins no torn bytes.
        XCTAssertEqual(try subs(["grant", "carol", "premium", "--lifetime", "--reason", "after", "-q"]).status, 0)
        XCTAssertEqual(Array(journalBytes().prefix(good.count)), good)
        XCTAssertEqual(try reasons("carol"), ["after"])
        let clean = try subs(["store", "validate"])
        XCTAssertEqual(clean.stderr, "")
    }

    func testADamagedLineBeforeTheLastIsExit65WithItsLineNumber() throws {
        for customer in ["alice", "bob"] {
            XCTAssertEqual(try subs(["grant", customer, "premium", "--lifetime", "-q"]).status, 0)
        }
        var bytes = journalBytes()
        let secondLine = bytes.firstIndex(of: 0x0A)! + 1
        bytes[secondLine + 10] ^= 0x04
        _ = FileManager.default.createFile(atPath: journal, contents: Data(bytes))
        for command in [["check", "alice"], ["history", "bob"], ["find", "alice"], ["store", "validate"],
                        ["grant", "carol", "premium", "--lifetime"], ["store", "compact"]] {
            let result = try subs(command)
            XCTAssertEqual(result.status, 65, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("store.json.journal") && result.stderr.contains("line 2"), "\(command): \(result.stderr)")
        }
        XCTAssertEqual(journalBytes(), bytes, "nothing written")
    }

    func testAStoreEditedUnderItsJournalIsRefusedWithWhatToDo() throws {
        XCTAssertEqual(try subs(["grant", "alice", "premium", "--lifetime", "-q"]).status, 0)
        let edited = TestStore.json.replacingOccurrences(of: "alice@example.com", with: "alice@example.org")
        XCTAssertNotEqual(edited, TestStore.json)
        try edited.write(toFile: store, atomically: true, encoding: .utf8)
        for command in [["check", "alice"], ["store", "validate"], ["grant", "bob", "premium", "--lifetime"], ["store", "compact"]] {
            let result = try subs(command)
            XCTAssertEqual(result.status, 65, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("another version of the store") && result.stderr.contains("subs store compact"),
                          "\(command): \(result.stderr)")
        }
        // Folded first, then edited: fine.
        try TestStore.json.write(toFile: store, atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: journal)
        XCTAssertEqual(try subs(["grant", "alice", "premium", "--lifetime", "--reason", "r", "-q"]).status, 0)
        XCTAssertEqual(try subs(["store", "compact", "-q"]).status, 0)
        let text = try String(contentsOfFile: store, encoding: .utf8)
        XCTAssertTrue(text.contains(#""reason": "r""#), "folded into the store file")
        try text.replacingOccurrences(of: "alice@example.com", with: "alice@example.org").write(toFile: store, atomically: true, encoding: .utf8)
        XCTAssertEqual(try subs(["check", "alice", "-q"]).status, 0)
        XCTAssertEqual(try subs(["grant", "bob", "premium", "--lifetime", "-q"]).status, 0)
        XCTAssertEqual(try subs(["store", "validate", "-q"]).status, 0)
    }

    func testStoreInitRefusesToStartANewStoreBesideAnEarlierStoresJournal() throws {
        XCTAssertEqual(try subs(["grant", "alice", "premium", "--lifetime", "-q"]).status, 0)
        let journalBefore = journalBytes()
        try FileManager.default.removeItem(atPath: store)
        let result = try subs(["store", "init"])
        XCTAssertEqual(result.status, 73, result.stderr)
        XCTAssertTrue(result.stderr.contains("journal of an earlier store"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "no store created")
        XCTAssertEqual(journalBytes(), journalBefore, "the journal is the user's to keep")
        try FileManager.default.removeItem(atPath: journal)
        XCTAssertEqual(try subs(["store", "init", "-q"]).status, 0)
    }

    /// STORE.index finds the customers of a write without a scan, and is never the truth: an
    /// index damaged in any way, of another version, or pointing at the wrong record is passed
    /// over (the store is scanned and indexed again), and every grant lands on its customer.
    func testTheIndexIsRebuiltWhenStaleAndNeverTheTruth() throws {
        let index = store + ".index"
        XCTAssertEqual(try subs(["grant", "alice", "premium", "--lifetime", "--reason", "a1", "-q"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: index), "the first write indexes the store")
        var info = stat(), storeInfo = stat()
        XCTAssertEqual(stat(index, &info), 0)
        XCTAssertEqual(stat(store, &storeInfo), 0)
        XCTAssertEqual(info.st_mode & 0o777, storeInfo.st_mode & 0o666, "the store's mode without execute bits")
        let good = try Data(contentsOf: URL(fileURLWithPath: index))
        // By alias, through the index.
        XCTAssertEqual(try subs(["grant", "alice-android", "premium", "--lifetime", "--reason", "a2", "-q"]).status, 0)
        XCTAssertEqual(try reasons("alice"), ["a1", "a2"])
        var generator = SeededRandom(seed: 7)
        for round in 0..<12 {
            var damaged = [UInt8](good)
            switch round % 4 {
            case 0: damaged = Array(damaged.prefix(Int(generator.next() % UInt64(damaged.count))))   // cut short
            case 1: for _ in 0..<8 { damaged[Int(generator.next() % UInt64(damaged.count))] ^= UInt8(1 + generator.next() % 255) }
            case 2: damaged = (0..<damaged.count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            default:
                // Entries of the table pointing at each other's records: a valid-looking index that lies.
                let entriesAt = 128 + Int(damaged[104]) * 4
                if damaged.count > entriesAt + 80 { for k in 24..<36 { damaged.swapAt(entriesAt + k, entriesAt + 40 + k) } }
            }
            _ = FileManager.default.createFile(atPath: index, contents: Data(damaged))
            let customer = ["bob", "carol", "dave"][round % 3]
            let before = try reasons(customer)
            let result = try subs(["grant", customer, "premium", "--lifetime", "--reason", "r\(round)", "-q"])
            XCTAssertEqual(result.status, 0, "round \(round): \(result.stderr)")
            XCTAssertEqual(try reasons(customer), before + ["r\(round)"], "round \(round)")
        }
        XCTAssertEqual(try reasons("alice"), ["a1", "a2"], "no grant landed on another customer")
        XCTAssertEqual(try subs(["store", "validate", "-q"]).status, 0)
        // A fold makes a new store version: the index is stale, and the next write indexes it again.
        XCTAssertEqual(try subs(["store", "compact", "-q"]).status, 0)
        XCTAssertEqual(try subs(["grant", "frank", "premium", "--lifetime", "--reason", "f", "-q"]).status, 0)
        XCTAssertEqual(try reasons("frank"), ["f"])
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: index)), good)
    }

    /// A fold killed at each of its steps: the store as readers see it is the same whatever the
    /// step (nothing lost, nothing applied twice), valid, and the next writer and fold go on.
    func testAFoldKilledAtEachStepLeavesTheSameStore() throws {
        for step in ["writing", "syncing", "renaming", "folded", "renamed", "compacted"] {
            store = dir.write("store.json", TestStore.json)
            for (i, customer) in ["alice", "bob", "newcomer"].enumerated() {
                XCTAssertEqual(try grant(customer, reason: "r\(i)").waitedStatus(), 0)
            }
            let expected = StoreView.folded(store)
            let p = try Binary.start(["--store", store, "store", "compact"], env: ["SUBS_TEST_PAUSE_AT": step])
            Thread.sleep(forTimeInterval: 0.4)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .uncaughtSignal, step)
            XCTAssertEqual(StoreView.folded(store), expected, "killed at \(step)")
            XCTAssertEqual(try reasons("bob"), ["r1"], step)
            let valid = try subs(["store", "validate", "-q"])
            XCTAssertEqual(valid.status, 0, "\(step): \(valid.stderr)")
            XCTAssertEqual(try subs(["check", "newcomer", "-q"]).status, 0, step)
            // The next writer clears what the fold left (its temporary file, a stale marker, a
            // journal folded already) and its change lands once.
            let next = try subs(["grant", "bob", "premium", "--duration", "P1M", "--reason", "next", "-q"])
            XCTAssertEqual(next.status, 0, "\(step): \(next.stderr)")
            XCTAssertEqual(try reasons("bob"), ["r1", "next"], step)
            XCTAssertEqual(temporaries(), [], step)
            XCTAssertEqual(try subs(["store", "compact", "-q"]).status, 0, step)
            XCTAssertEqual(try reasons("bob"), ["r1", "next"], step)
            XCTAssertEqual(try reasons("alice"), ["r0"], step)
        }
    }

    /// Writers killed at random moments (appending, folding, waiting for the lock), on a store
    /// whose journal passes its bound: every change a writer acknowledged (exit 0) is there once;
    /// one whose writer was killed is there at most once; the store always validates.
    func testWritersKilledAtRandomKeepWhatWasAcknowledged() throws {
        var generator = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["SUBS_PROPERTY_SEED"] ?? "") ?? 32)
        let customers = ["alice", "bob", "carol", "dave", "c1", "c2"]
        var acknowledged: [String: [String]] = [:]   // customer → reasons, in order
        for customer in customers { acknowledged[customer] = try reasons(customer) }
        var killed: Set<String> = []
        for round in 0..<40 {
            let customer = customers[Int(generator.next() % UInt64(customers.count))]
            let reason = "round-\(round)"
            let p = try grant(customer, reason: reason)
            let wait = Double(generator.next() % 40) / 1000
            if generator.next() % 3 == 0 {
                usleep(useconds_t(wait * 1_000_000))
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
                if p.terminationReason == .exit, p.terminationStatus == 0 { acknowledged[customer, default: []].append(reason) } else { killed.insert(reason) }
            } else {
                XCTAssertEqual(p.waitedStatus(), 0, reason)
                acknowledged[customer, default: []].append(reason)
            }
        }
        XCTAssertEqual(try subs(["store", "validate", "-q"]).status, 0)
        for customer in customers {
            let found = try reasons(customer)
            XCTAssertEqual(found.filter { !killed.contains($0) }, acknowledged[customer] ?? [], customer)
            XCTAssertEqual(Set(found).count, found.count, "\(customer): a change applied twice")
        }
        XCTAssertGreaterThan(killed.count, 0, "no writer was killed: the test proved nothing")
    }

    /// One writer appends (its journal passing the bound, so folds run) while ten readers check
    /// and `store compact` runs beside them: every read succeeds and sees a whole version.
    func testAWriterAppendsWhileTenReadersCheckAndFoldsRun() throws {
        let shared = SharedReads()
        let writer = Thread {
            for i in 0..<30 { _ = try? self.grant("alice", reason: "w\(i)").waitedStatus() }
            shared.lock.withLock { shared.writing = false }
        }
        writer.start()
        let stop = Date().addingTimeInterval(90)
        let group = DispatchGroup()
        let store = self.store!
        for _ in 0..<10 {
            group.enter()
            Thread {
                defer { group.leave() }
                while shared.lock.withLock({ shared.writing }), Date() < stop {
                    guard let result = try? Binary.run(["--store", store, "check", "alice", "--json"]) else { continue }
                    shared.lock.withLock {
                        shared.reads += 1
                        if result.status.rawValue != 0 { shared.failures.append(result.stderr) }
                    }
                }
            }.start()
        }
        let folder = Thread {
            for _ in 0..<5 { _ = try? Binary.run(["--store", self.store, "store", "compact", "-q"]); usleep(50_000) }
        }
        folder.start()
        group.wait()
        XCTAssertEqual(shared.failures, [])
        XCTAssertGreaterThan(shared.reads, 10)
        XCTAssertEqual(try reasons("alice"), (0..<30).map { "w\($0)" })
        XCTAssertEqual(try subs(["store", "validate", "-q"]).status, 0)
    }
}

/// What the readers of the concurrency test share (under `lock`).
private final class SharedReads: @unchecked Sendable {
    let lock = NSLock()
    var writing = true
    var reads = 0
    var failures: [String] = []
}

private extension Process {
    func waitedStatus() -> Int32 {
        waitUntilExit()
        return terminationStatus
    }
}
