// The store's files under adversity (SPEC section 7): symbolic links, a store changed under a
// reader or writer, Ctrl-C after the commit, endless streams, ownership, line endings, planted
// lock links, and commands that must leave nothing behind.

import Foundation
import SubsJSON
import TestSupport
import XCTest

final class StoreHardeningTests: XCTestCase {
    var dir: TempDir!

    override func setUp() {
        dir = TempDir()
    }

    /// The store as readers see it (its journal folded in).
    func bytes(_ path: String) -> Data { Data(StoreView.folded(path)) }

    func entries(_ directory: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory ?? dir.path)) ?? []).sorted()
    }

    func temporaries(in directory: String) -> [String] { entries(directory).filter { $0.contains(".tmp-") } }

    func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    func fileStat(_ path: String) -> stat {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info
    }

    func grants(_ path: String, _ customer: String) throws -> Int {
        let doc = try JSON.parse(Array(bytes(path)))
        return doc["customers"]?[customer]?["grants"]?.arrayValue?.count ?? 0
    }

    func mkdir(_ name: String) -> String {
        let path = dir.path + "/" + name
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Starts the built binary with the test's clock; output captured to files (read after exit).
    func start(_ arguments: [String], env: [String: String] = [:]) throws -> (Process, out: String, err: String) {
        try Binary.startWithOutputFiles(arguments, env: env, in: dir.path)
    }

    func text(_ path: String) -> String { String(decoding: bytes(path), as: UTF8.self) }

    /// Replaces the contents of `path` in place (same inode, like `cp new store.json`).
    func overwriteInPlace(_ path: String, with data: Data) {
        let fd = open(path, O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        data.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}

// MARK: - 2. A symlinked store: writes go to the target, the lock too; the link stays a link

extension StoreHardeningTests {
    func testGrantThroughRelativeLinkWritesTheTargetAndKeepsTheLink() throws {
        let data = mkdir("data"), etc = mkdir("etc")
        let target = dir.write("data/store.json", TestStore.json)
        let link = etc + "/store.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../data/store.json")
        let result = runCLI(["--store", link, "grant", "alice", "premium", "--lifetime", "-q"])
        XCTAssertEqual(result.status.rawValue, 0, result.stderr)
        XCTAssertTrue(isSymlink(link), "the link stays a link")
        XCTAssertEqual(try grants(target, "alice"), 1, "the real store has the grant")
        XCTAssertEqual(entries(etc), ["store.json"], "no lock, journal, audit log or temporary file beside the link")
        XCTAssertEqual(entries(data), ["store.json", "store.json.audit.jsonl", "store.json.index", "store.json.journal", "store.json.lock"])
        // Read back through the link and the target alike.
        XCTAssertEqual(runCLI(["--store", link, "check", "alice", "--json"]).stdout,
                       runCLI(["--store", target, "check", "alice", "--json"]).stdout)
    }

    func testChainsOfAbsoluteAndRelativeLinksReachTheStore() throws {
        _ = mkdir("a/b")
        _ = mkdir("c")
        let target = dir.write("a/b/store.json", TestStore.json)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/c/one", withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/two", withDestinationPath: "c/one")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/c/three", withDestinationPath: "../two")
        for (i, link) in ["/c/one", "/two", "/c/three"].enumerated() {
            let result = runCLI(["--store", dir.path + link, "grant", "bob", "premium", "--lifetime", "-q"])
            XCTAssertEqual(result.status.rawValue, 0, result.stderr)
            XCTAssertTrue(isSymlink(dir.path + link))
            XCTAssertEqual(try grants(target, "bob"), i + 1, link)
        }
        XCTAssertEqual(entries(dir.path + "/c"), ["one", "three"])
        XCTAssertEqual(entries(dir.path + "/a/b"), ["store.json", "store.json.audit.jsonl", "store.json.index", "store.json.journal", "store.json.lock"])
    }

    func testWritersThroughTheLinkAndTheTargetShareOneLock() throws {
        _ = mkdir("data")
        let target = dir.write("data/store.json", TestStore.json)
        let link = dir.path + "/store.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "data/store.json")
        let fd = open(target + ".lock", O_RDWR | O_CREAT, 0o600)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX), 0)
        let before = bytes(target)
        let result = runCLI(["--store", link, "grant", "alice", "premium", "--lifetime"], env: ["SUBS_LOCK_TIMEOUT": "0.2"])
        XCTAssertEqual(result.status.rawValue, 75, "the writer through the link waits for the target's lock: \(result.stderr)")
        XCTAssertEqual(bytes(target), before)
        flock(fd, LOCK_UN)
    }

    func testTwentyWritersThroughTwoPathsAllLand() throws {
        _ = mkdir("data")
        let target = dir.write("data/store.json", TestStore.json)
        let link = dir.path + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        var processes: [Process] = []
        for i in 0..<20 {
            processes.append(try start(["--store", i % 2 == 0 ? link : target, "grant", "carol", "premium", "--duration", "P1D", "-q"],
                                       env: ["SUBS_LOCK_TIMEOUT": "60"]).0)
        }
        for p in processes { p.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), Array(repeating: 0, count: 20))
        XCTAssertEqual(try grants(target, "carol"), 20)
        XCTAssertTrue(isSymlink(link))
    }

    func testTemporaryFileIsWrittenBesideTheTarget() throws {
        let data = mkdir("data")
        let target = dir.write("data/store.json", TestStore.json)
        let link = dir.path + "/store.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "data/store.json")
        // A change goes to the journal; the fold of the journal writes the new store.
        XCTAssertEqual(runCLI(["--store", link, "grant", "alice", "premium", "--lifetime", "-q"]).status.rawValue, 0)
        let (p, _, _) = try start(["--store", link, "store", "compact"], env: ["SUBS_TEST_PAUSE_AT": "syncing"])
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertEqual(temporaries(in: data).count, 1, "the temporary file is in the target's directory")
        XCTAssertEqual(temporaries(in: dir.path), [])
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        _ = target
    }

    func testStoreInitThroughADanglingLinkCreatesTheTarget() throws {
        _ = mkdir("etc")
        let link = dir.path + "/etc/store.json"
        // The target's directory does not exist yet either: created like the default store's.
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../data/store.json")
        let result = runCLI(["--store", link, "store", "init"])
        XCTAssertEqual(result.status.rawValue, 0, result.stderr)
        XCTAssertTrue(isSymlink(link))
        let target = dir.path + "/data/store.json"
        XCTAssertEqual(text(target), "{\n  \"schemaVersion\": 1,\n  \"products\": {},\n  \"customers\": {}\n}\n")
        XCTAssertEqual(fileStat(target).st_mode & 0o777, 0o600)
        // Now a store is there: a second init says so, and changes nothing.
        let again = runCLI(["--store", link, "store", "init"])
        XCTAssertEqual(again.status.rawValue, 73)
        XCTAssertTrue(again.stderr.contains("a store already exists"), again.stderr)
    }

    func testLinkLoopIsAnErrorNotAHang() throws {
        let a = dir.path + "/a.json", b = dir.path + "/b.json"
        try FileManager.default.createSymbolicLink(atPath: a, withDestinationPath: "b.json")
        try FileManager.default.createSymbolicLink(atPath: b, withDestinationPath: "a.json")
        for command in [["grant", "alice", "premium", "--lifetime"], ["store", "init"], ["check", "alice"]] {
            let result = runCLI(["--store", a] + command)
            XCTAssertTrue([66, 73].contains(result.status.rawValue), "\(command): \(result.status) \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("symbolic links"), result.stderr)
        }
        XCTAssertEqual(entries(), ["a.json", "b.json"])
    }
}

// MARK: - 3. A store changed while it is read or written: an error, never a signal

extension StoreHardeningTests {
    /// A store of `customers` customers, several MB, so that reading it takes a while.
    func bigStore(customers: Int) -> String {
        var parts: [String] = []
        parts.reserveCapacity(customers)
        for i in 0..<customers {
            parts.append("\"user\(i)\": {\"attributes\": {\"n\": \(i), \"note\": \"\(String(repeating: "x", count: 120))\"}, \"transactions\": [{\"transactionId\": \"t\(i)\", \"originalTransactionId\": \"t\(i)\", \"productId\": \"pro_monthly\", \"type\": \"subscriptionStarted\", \"transactionDate\": \"2026-10-01T00:00:00Z\", \"expirationDate\": \"2026-11-01T00:00:00Z\"}]}")
        }
        return "{\"schemaVersion\": 1, \"products\": {\"pro_monthly\": {\"type\": \"subscription\", \"entitlements\": [\"premium\"]}},\n\"customers\": {\n"
            + parts.joined(separator: ",\n") + "\n}}\n"
    }

    func testStoreTruncatedOrRewrittenUnderReadersAndWritersNeverKills() throws {
        let original = Data(bigStore(customers: 40_000).utf8)
        let store = dir.write("store.json", bytes: Array(original))
        // Someone keeps cutting the store short and copying it back in place.
        let stop = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var round = 0
            while stop.wait(timeout: .now()) == .timedOut {
                let fd = open(store, O_WRONLY)
                switch round % 3 {
                case 0: ftruncate(fd, 100)
                case 1: ftruncate(fd, off_t(original.count / 2))
                default: ftruncate(fd, 0)
                }
                usleep(2_000)
                close(fd)
                self.overwriteInPlace(store, with: original)
                usleep(5_000)
                round += 1
            }
            stopped.signal()
        }
        var statuses: [String: Set<Int32>] = [:]
        let commands: [[String]] = [
            ["check", "user39999"], ["history", "user20000"], ["store", "validate"],
            ["grant", "user30000", "premium", "--lifetime", "-q"],
            ["check"] + (0..<70).map { "user\($0 * 500)" },   // many: decoded during the scan
        ]
        for round in 0..<8 {
            for command in commands {
                let result = try start(["--store", store] + command)
                result.0.waitUntilExit()
                let name = command.prefix(2).joined(separator: " ")
                XCTAssertEqual(result.0.terminationReason, .exit,
                               "\(name) round \(round) died of signal \(result.0.terminationStatus)")
                statuses[name, default: []].insert(result.0.terminationStatus)
                XCTAssertTrue([0, 64, 65, 66].contains(result.0.terminationStatus),
                              "\(name): status \(result.0.terminationStatus): \(text(result.err))")
                let err = text(result.err)
                XCTAssertFalse(err.contains("internal error"), err)
                XCTAssertEqual(temporaries(in: dir.path), [], "\(name) round \(round)")
            }
        }
        stop.signal()
        stopped.wait()
        overwriteInPlace(store, with: original)
        XCTAssertEqual(try Binary.run(["--store", store, "store", "validate", "-q"]).status.rawValue, 0)
        // The disturbance was real: some commands saw it.
        XCTAssertTrue(statuses.values.contains { $0.contains(65) || $0.contains(66) }, "\(statuses)")
    }

    /// The writer's last look before the rename: a store changed meanwhile (same size, bigger,
    /// smaller, replaced by another file) is not overwritten with a version made from the old one.
    func testWriterRefusesAStoreChangedBeforeItsCommit() throws {
        let original = Data(TestStore.json.utf8)
        var other = TestStore.json.replacingOccurrences(of: "alice@example.com", with: "alice@example.org")
        let sameSize = Data(other.utf8)
        other += "\n\n"
        let bigger = Data(other.utf8)
        let smaller = Data(TestStore.json.replacingOccurrences(of: "alice@example.com", with: "a@b.c").utf8)
        let changes: [(String, (String) -> Data)] = [
            ("same size in place", { self.overwriteInPlace($0, with: sameSize); return sameSize }),
            ("bigger in place", { self.overwriteInPlace($0, with: bigger); return bigger }),
            ("smaller in place", { self.overwriteInPlace($0, with: smaller); return smaller }),
            ("replaced by rename", { path in
                let other = self.dir.write("other.json", bytes: Array(sameSize))
                rename(other, path)
                return sameSize
            }),
        ]
        for step in ["appending"] {
            for (name, change) in changes {
                let store = dir.write("store.json", bytes: Array(original))
                let (p, _, err) = try start(["--store", store, "grant", "alice", "premium", "--lifetime"],
                                            env: ["SUBS_TEST_PAUSE_AT": step, "SUBS_TEST_PAUSE_FOR": "1"])
                Thread.sleep(forTimeInterval: 0.3)
                let expected = change(store)
                p.waitUntilExit()
                XCTAssertEqual(p.terminationReason, .exit, name)
                XCTAssertEqual(p.terminationStatus, 66, "\(step), \(name): \(text(err))")
                XCTAssertTrue(text(err).hasPrefix("subs: error: "), text(err))
                XCTAssertTrue(text(err).contains("changed while it was being read"), text(err))
                XCTAssertEqual(bytes(store), expected, "\(step), \(name): the other change stands")
                XCTAssertEqual(temporaries(in: dir.path), [], "\(step), \(name)")
            }
        }
    }
}

// MARK: - 4. Ctrl-C after the commit finishes the command

extension StoreHardeningTests {
    func testInterruptAfterTheRenameFinishesNormally() throws {
        for format in ["table", "json"] {
            let store = dir.write("store.json", TestStore.json)
            let (p, out, err) = try start(["--store", store, "grant", "alice", "premium", "--lifetime", "--format", format],
                                          env: ["SUBS_TEST_PAUSE_AT": "appended"])
            Thread.sleep(forTimeInterval: 0.4)
            kill(p.processIdentifier, SIGINT)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .exit)
            XCTAssertEqual(p.terminationStatus, 0, text(err))
            XCTAssertEqual(text(err), "")
            XCTAssertTrue(text(out).contains("alice"), "the output is printed: \(text(out))")
            XCTAssertEqual(try grants(store, "alice"), 1)
            // Interrupted again and again: still finishes.
            let (q, _, _) = try start(["--store", store, "revoke", "alice", "premium"], env: ["SUBS_TEST_PAUSE_AT": "appended"])
            Thread.sleep(forTimeInterval: 0.4)
            for _ in 0..<3 { kill(q.processIdentifier, SIGINT); usleep(20_000) }
            q.waitUntilExit()
            XCTAssertEqual(q.terminationStatus, 0)
            XCTAssertEqual(temporaries(in: dir.path), [])
        }
    }

    func testInterruptBeforeTheRenameIs130AndChangesNothing() throws {
        let store = dir.write("store.json", TestStore.json)
        let before = bytes(store)
        let (p, out, err) = try start(["--store", store, "grant", "alice", "premium", "--lifetime"],
                                      env: ["SUBS_TEST_PAUSE_AT": "appending"])
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertFalse(((try? String(contentsOfFile: store + ".journal", encoding: .utf8)) ?? "").contains(#""seq""#),
                       "paused before its change is appended")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        XCTAssertEqual(text(err), "subs: error: interrupted\n")
        XCTAssertEqual(text(out), "")
        XCTAssertEqual(bytes(store), before)
        XCTAssertEqual(temporaries(in: dir.path), [])
    }

    func testInterruptAfterStoreInitCreatedTheStoreFinishesNormally() throws {
        let store = dir.path + "/new.json"
        let (p, out, err) = try start(["--store", store, "store", "init"], env: ["SUBS_TEST_PAUSE_AT": "renamed"])
        Thread.sleep(forTimeInterval: 0.4)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text(err))
        XCTAssertTrue(text(out).contains("created empty store"), text(out))
        XCTAssertEqual(temporaries(in: dir.path), [])
        XCTAssertEqual(try Binary.run(["--store", store, "store", "validate", "-q"]).status.rawValue, 0)
    }

    func testInterruptBeforeStoreInitCreatesNothing() throws {
        let store = dir.path + "/new.json"
        let (p, _, _) = try start(["--store", store, "store", "init"], env: ["SUBS_TEST_PAUSE_AT": "renaming"])
        Thread.sleep(forTimeInterval: 0.4)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
        XCTAssertEqual(temporaries(in: dir.path), [])
    }
}

// MARK: - 7. Stores that never end

extension StoreHardeningTests {
    func testEndlessDevicesStopAtOnce() throws {
        for device in ["/dev/zero", "/dev/urandom"] {
            let start = Date()
            let result = try Binary.run(["--store", device, "check", "alice"])
            XCTAssertEqual(result.status.rawValue, 65, "\(device): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("subs: error: \(device):1:"), result.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(start), 5, device)
        }
        for command in [["store", "validate"], ["history", "alice"], ["grant", "alice", "premium", "--lifetime", "--dry-run"]] {
            let result = try Binary.run(["--store", "/dev/zero"] + command)
            XCTAssertEqual(result.status.rawValue, 65, "\(command): \(result.stderr)")
        }
    }

    func testAStoreFromAPipeReadsAsFromAFileAndFailsAtTheSamePlace() throws {
        let cases = [
            TestStore.json,
            TestStore.json.replacingOccurrences(of: "alice@example.com", with: "alice\u{1}@example.com"),
            TestStore.json.replacingOccurrences(of: "\"bob\"", with: "\"b\u{7f}\u{0}b\""),
            TestStore.json.replacingOccurrences(of: "carol", with: "car\u{0}ol"),
            String(TestStore.json.prefix(500)),
        ]
        for (i, json) in cases.enumerated() {
            let file = dir.write("case\(i).json", json)
            let fromFile = try Binary.run(["--store", file, "check", "alice", "--json"])
            let fromPipe = try shell("cat '\(file)' | '\(Binary.url.path)' --store /dev/stdin check alice --json")
            XCTAssertEqual(fromPipe.status, fromFile.status.rawValue, "case \(i): \(fromPipe.stderr)")
            XCTAssertEqual(fromPipe.stdout, fromFile.stdout, "case \(i)")
            XCTAssertEqual(fromPipe.stderr.replacingOccurrences(of: "/dev/stdin", with: file), fromFile.stderr, "case \(i)")
        }
    }
}

// MARK: - 8. Rewrites keep owner, group, mode, line endings; the lock is shared and not followed

extension StoreHardeningTests {
    func testRootRewriteKeepsTheStoresOwnerGroupAndMode() throws {
        try Prerequisite.root("to give the store to another user")
        for mode: mode_t in [0o640, 0o600, 0o664] {
            let store = dir.write("store-\(mode).json", TestStore.json)
            XCTAssertEqual(chown(store, 65534, 65534), 0)
            XCTAssertEqual(chmod(store, mode), 0)
            let result = runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "-q"])
            XCTAssertEqual(result.status.rawValue, 0, result.stderr)
            let after = fileStat(store)
            XCTAssertEqual(after.st_uid, 65534)
            XCTAssertEqual(after.st_gid, 65534)
            XCTAssertEqual(after.st_mode & 0o7777, mode)
            XCTAssertEqual(try grants(store, "alice"), 1)
            // The lock it created belongs to the store's owner too (who must be able to lock
            // it), and nobody else may open it.
            let lock = fileStat(store + ".lock")
            XCTAssertEqual(lock.st_uid, 65534)
            XCTAssertEqual(lock.st_mode & 0o777, 0o600)
        }
    }

    func testNewLockFileIs0600WhateverTheStoresModeAndTheUmask() throws {
        for (mode, mask) in [(0o600, 0o077), (0o660, 0o022), (0o644, 0o000), (0o666, 0o277)] as [(mode_t, mode_t)] {
            let store = dir.write("s\(mode).json", TestStore.json)
            chmod(store, mode)
            let old = umask(mask)
            let result = runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "-q"])
            umask(old)
            XCTAssertEqual(result.status.rawValue, 0, result.stderr)
            XCTAssertEqual(fileStat(store + ".lock").st_mode & 0o777, 0o600, "store mode \(String(mode, radix: 8))")
            XCTAssertEqual(fileStat(store).st_mode & 0o777, mode)
        }
    }

    func testAnExistingLockFileOthersMayOpenIsNarrowedAGroupSharedOneKept() throws {
        // Earlier versions gave a new lock file the store's read bits: whoever could read the
        // store could hold its lock. Such a lock file of ours is narrowed; one a group shares
        // (read and write for the group) keeps the group's bits, and loses the others'.
        for (before, after) in [(0o644, 0o600), (0o640, 0o600), (0o604, 0o600), (0o666, 0o660), (0o660, 0o660),
                                (0o600, 0o600)] as [(mode_t, mode_t)] {
            let store = dir.write("store-\(before).json", TestStore.json)
            let lock = dir.write("store-\(before).json.lock", "")
            chmod(lock, before)
            let result = runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "-q"])
            XCTAssertEqual(result.status.rawValue, 0, result.stderr)
            XCTAssertEqual(fileStat(lock).st_mode & 0o777, after, String(before, radix: 8))
        }
    }

    func testLockFileThatIsASymlinkIsRefused() throws {
        let store = dir.write("store.json", TestStore.json)
        let before = bytes(store)
        // Dangling (would be created through the link) and pointing at an existing file alike.
        let victim = dir.path + "/victim"
        for existing in [false, true] {
            if existing { _ = dir.write("victim", "precious") }
            try? FileManager.default.removeItem(atPath: store + ".lock")
            try FileManager.default.createSymbolicLink(atPath: store + ".lock", withDestinationPath: victim)
            for command in [["grant", "alice", "premium", "--lifetime"], ["revoke", "dave", "premium"]] {
                let result = runCLI(["--store", store] + command)
                XCTAssertEqual(result.status.rawValue, 73, "\(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("symbolic link"), result.stderr)
                XCTAssertEqual(bytes(store), before)
                XCTAssertTrue(isSymlink(store + ".lock"))
                if existing {
                    XCTAssertEqual(text(victim), "precious")
                } else {
                    XCTAssertFalse(FileManager.default.fileExists(atPath: victim))
                }
            }
        }
        // store init too, on a new store whose lock path holds a link.
        let fresh = dir.path + "/fresh.json"
        try FileManager.default.createSymbolicLink(atPath: fresh + ".lock", withDestinationPath: dir.path + "/elsewhere")
        XCTAssertEqual(runCLI(["--store", fresh, "store", "init"]).status.rawValue, 73)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/elsewhere"))
    }

    func testCRLFStoreKeepsItsLineEndings() throws {
        let crlf = TestStore.json.replacingOccurrences(of: "\n", with: "\r\n")
        let commands: [[String]] = [
            ["grant", "alice", "premium", "--lifetime"],           // pretty record rewritten
            ["revoke", "dave", "premium"],
            ["grant", "newcomer", "premium", "--lifetime", "--create"],   // a customer added
            ["grant", "frank", "carol", "premium", "--duration", "P1M"],  // several in one write
        ]
        for command in commands {
            let store = dir.write("crlf.json", crlf)
            let result = runCLI(["--store", store] + command + ["-q"])
            XCTAssertEqual(result.status.rawValue, 0, "\(command): \(result.stderr)")
            let after = Array(bytes(store))
            XCTAssertGreaterThan(after.count, crlf.utf8.count, "\(command)")
            for (i, byte) in after.enumerated() where byte == 0x0A {
                XCTAssertEqual(after[i - 1], 0x0D, "\(command): bare LF at \(i)")
            }
            XCTAssertEqual(runCLI(["--store", store, "store", "validate", "-q"]).status.rawValue, 0)
        }
        // An LF store stays LF.
        let store = dir.write("lf.json", TestStore.json)
        XCTAssertEqual(runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "-q"]).status.rawValue, 0)
        XCTAssertFalse(bytes(store).contains(0x0D))
    }
}

// MARK: - 11. Dry runs touch nothing; failures leave nothing they created

extension StoreHardeningTests {
    func testDryRunTakesNoLockAndCreatesNothing() throws {
        let store = dir.write("store.json", TestStore.json)
        let before = bytes(store)
        for command in [["grant", "alice", "premium", "--lifetime", "--dry-run"], ["revoke", "dave", "premium", "--dry-run"],
                        ["grant", "nobody", "premium", "--lifetime", "--create", "--dry-run"]] {
            let result = runCLI(["--store", store] + command)
            XCTAssertEqual(result.status.rawValue, 0, "\(command): \(result.stderr)")
            XCTAssertEqual(entries(), ["store.json"], "\(command)")
            XCTAssertEqual(bytes(store), before)
        }
        // Another writer holds the lock: a dry run does not wait for it.
        let fd = open(store + ".lock", O_RDWR | O_CREAT, 0o600)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX), 0)
        let result = runCLI(["--store", store, "grant", "alice", "premium", "--lifetime", "--dry-run"], env: ["SUBS_LOCK_TIMEOUT": "0"])
        XCTAssertEqual(result.status.rawValue, 0, result.stderr)
    }

    func testDryRunOnAStoreItMayOnlyRead() throws {
        let ro = mkdir("ro")
        let store = dir.write("ro/store.json", TestStore.json)
        chmod(store, 0o644)
        chmod(ro, 0o555)
        defer { chmod(ro, 0o755) }
        let asOtherUser = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        let result = try shell("\(asOtherUser)'\(Binary.url.path)' --store '\(store)' grant alice premium --lifetime --dry-run")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("alice"), result.stdout)
        XCTAssertEqual(entries(ro), ["store.json"])
        // The real write is refused there, cleanly.
        let write = try shell("\(asOtherUser)'\(Binary.url.path)' --store '\(store)' grant alice premium --lifetime")
        XCTAssertTrue([73, 77].contains(write.status), write.stderr)
        XCTAssertEqual(entries(ro), ["store.json"])
    }

    func testFailedWritesLeaveNoLockFileTheyCreated() throws {
        let missing = dir.path + "/missing.json"
        for command in [["grant", "alice", "premium", "--lifetime"], ["revoke", "alice", "premium"],
                        ["grant", "alice", "premium", "--lifetime", "--create"]] {
            let result = runCLI(["--store", missing] + command)
            XCTAssertEqual(result.status.rawValue, 66, "\(command): \(result.stderr)")
            XCTAssertEqual(entries(), [], "\(command)")
        }
        // A store that exists, a write that fails (unknown customer, unknown entitlement, invalid store).
        let store = dir.write("store.json", TestStore.json)
        XCTAssertEqual(runCLI(["--store", store, "grant", "nobody", "premium", "--lifetime"]).status.rawValue, 3)
        XCTAssertEqual(runCLI(["--store", store, "grant", "alice", "premum", "--lifetime"]).status.rawValue, 3)
        XCTAssertEqual(entries(), ["store.json"])
        let broken = dir.write("broken.json", "{\"schemaVersion\": 2}")
        XCTAssertEqual(runCLI(["--store", broken, "grant", "alice", "premium", "--lifetime"]).status.rawValue, 65)
        XCTAssertEqual(entries(), ["broken.json", "store.json"])
        // A lock file that was there before is never removed.
        let lock = dir.write("store.json.lock", "")
        XCTAssertEqual(runCLI(["--store", store, "grant", "nobody", "premium", "--lifetime"]).status.rawValue, 3)
        XCTAssertTrue(FileManager.default.fileExists(atPath: lock))
    }

    func testStoreInitOnADirectorySaysSoAndLeavesNothing() throws {
        let directory = mkdir("store.json")
        let result = runCLI(["--store", directory, "store", "init"])
        XCTAssertEqual(result.status.rawValue, 73, result.stderr)
        XCTAssertTrue(result.stderr.contains("is a directory"), result.stderr)
        XCTAssertFalse(result.stderr.contains("already exists"), result.stderr)
        XCTAssertEqual(entries(), ["store.json"])
        XCTAssertEqual(entries(directory), [])
        // A link to a directory: the same truth.
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/link", withDestinationPath: "store.json")
        let viaLink = runCLI(["--store", dir.path + "/link", "store", "init"])
        XCTAssertEqual(viaLink.status.rawValue, 73)
        XCTAssertTrue(viaLink.stderr.contains("is a directory"), viaLink.stderr)
        XCTAssertEqual(entries(), ["link", "store.json"])
    }
}
