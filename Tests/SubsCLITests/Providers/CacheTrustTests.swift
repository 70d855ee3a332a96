// The answer cache trusts only itself: a directory or entry that another user owns or may write
// is not used (one warning, no reads, no writes), entries are bound to their request, and an
// entry that is a link, a FIFO or a huge file never hangs or fills memory. The tests that give
// files to another user run as root (CI does); elsewhere they skip, under CI=true they fail.

import Foundation
import SubsJSON
@testable import SubsModel
@testable import SubsRemote
@testable import SubsCLI
import TestSupport
import XCTest

final class CacheTrustTests: XCTestCase {
    static let nobody: uid_t = 65534
    let dir = TempDir()
    let clock = FixedClock(Instant(seconds: 1_795_000_000))

    final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var said: [String] = []
        var lines: [String] { lock.lock(); defer { lock.unlock() }; return said }
        func add(_ line: String) { lock.lock(); said.append(line); lock.unlock() }
    }

    func cache(_ path: String, _ heard: Heard) -> ResponseCache {
        ResponseCache(directory: path, clock: clock, onDistrust: { heard.add($0) })
    }

    let key = ResponseCache.Key(provider: "subs", url: "https://h.example/v1/customers/alice", apiKey: APIKey("k-123456"), customer: "alice")
    let answer = RemoteResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"premium":true}"#.utf8))

    func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    func entries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    // MARK: the directory

    func testCreatedPrivateWithPrivateFiles() throws {
        let heard = Heard()
        let path = dir.path + "/new/cache/subs"
        let old = umask(0)
        defer { umask(old) }
        try cache(path, heard).store(answer, for: key)
        XCTAssertEqual(mode(path), 0o700)
        XCTAssertEqual(mode(dir.path + "/new"), 0o700, "missing parents are created 0700 too")
        XCTAssertEqual(entries(path).count, 1)
        XCTAssertEqual(mode(path + "/" + entries(path)[0]), 0o600)
        XCTAssertEqual(cache(path, heard).any(for: key)?.response.body, answer.body)
        XCTAssertEqual(heard.lines, [])
    }

    func testDirectoryWritableByOthersIsNotUsedAndSaysSoOnce() throws {
        for loose: mode_t in [0o777, 0o775, 0o757, 0o1777] {
            let heard = Heard()
            let path = dir.path + "/loose-\(String(loose, radix: 8))/subs"
            try cache(path, heard).store(answer, for: key)
            XCTAssertEqual(chmod(path, loose), 0)
            let shared = cache(path, heard)
            XCTAssertNil(shared.any(for: key), "no reads")
            XCTAssertNil(shared.fresh(for: key, maxAge: 3600))
            try shared.store(answer, for: ResponseCache.Key(provider: "subs", url: "https://h.example/v1/customers/bob", apiKey: nil, customer: "bob"))
            XCTAssertEqual(entries(path).count, 1, "no writes")
            XCTAssertEqual(heard.lines.count, 1, "one warning: \(heard.lines)")
            XCTAssertEqual(heard.lines.first, "\(path): cache not used: writable by group or others (mode \(String(loose, radix: 8))); chmod go-w it")
            XCTAssertEqual(mode(path), loose, "left as it is: the user decides")
        }
    }

    func testDirectoryOwnedByAnotherUserIsNotUsed() throws {
        try Prerequisite.root("to give the cache directory to another user")
        for loose: mode_t in [0o777, 0o700, 0o755] {
            let heard = Heard()
            let path = dir.path + "/theirs-\(String(loose, radix: 8))/subs"
            try cache(path, heard).store(answer, for: key)
            let entry = cache(path, heard).path(for: key)
            XCTAssertEqual(chown(entry, Self.nobody, Self.nobody), 0)
            XCTAssertEqual(chown(path, Self.nobody, Self.nobody), 0)
            XCTAssertEqual(chmod(path, loose), 0)
            let theirs = cache(path, heard)
            XCTAssertNil(theirs.any(for: key))
            try theirs.store(answer, for: ResponseCache.Key(provider: "subs", url: "https://h.example/x", apiKey: nil))
            XCTAssertEqual(entries(path).count, 1)
            XCTAssertEqual(heard.lines, ["\(path): cache not used: owned by another user (uid \(Self.nobody))"])
        }
    }

    func testDirectoryThatIsALinkIsNotFollowed() throws {
        let heard = Heard()
        let real = dir.path + "/real"
        try cache(real, heard).store(answer, for: key)
        let link = dir.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        XCTAssertNil(cache(link, heard).any(for: key))
        XCTAssertEqual(heard.lines, ["\(link): cache not used: a symbolic link"])
    }

    // MARK: entries

    func testEntryWritableByOthersOrOwnedByAnotherUserIsNotUsed() throws {
        let heard = Heard()
        let path = dir.path + "/c"
        try cache(path, heard).store(answer, for: key)
        let entry = cache(path, heard).path(for: key)
        XCTAssertEqual(chmod(entry, 0o666), 0)
        XCTAssertNil(cache(path, heard).any(for: key))
        XCTAssertEqual(heard.lines, ["\(entry): cache entry not used: writable by group or others (mode 666); chmod go-w it"])
        // Storing again replaces it with a private file of ours.
        try cache(path, heard).store(answer, for: key)
        XCTAssertEqual(mode(entry), 0o600)
        XCTAssertEqual(cache(path, heard).any(for: key)?.response.body, answer.body)

        try Prerequisite.root("to give a cache entry to another user")
        XCTAssertEqual(chown(entry, Self.nobody, Self.nobody), 0)
        let other = Heard()
        XCTAssertNil(cache(path, other).any(for: key))
        XCTAssertEqual(other.lines, ["\(entry): cache entry not used: owned by another user (uid \(Self.nobody))"])
    }

    func testEntryThatIsALinkAFIFOADirectoryOrHugeNeverHangs() throws {
        let path = dir.path + "/c"
        let heard = Heard()
        let shared = cache(path, heard)
        try shared.store(answer, for: key)
        let entry = shared.path(for: key)
        let good = try Data(contentsOf: URL(fileURLWithPath: entry))
        let elsewhere = dir.write("elsewhere", String(decoding: good, as: UTF8.self))

        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createSymbolicLink(atPath: entry, withDestinationPath: elsewhere)
        XCTAssertNil(shared.any(for: key), "a link is not followed")

        try FileManager.default.removeItem(atPath: entry)
        XCTAssertEqual(mkfifo(entry, 0o600), 0)
        let start = Date()
        XCTAssertNil(shared.any(for: key), "a FIFO is not waited on")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)

        try FileManager.default.removeItem(atPath: entry)
        try FileManager.default.createDirectory(atPath: entry, withIntermediateDirectories: false)
        XCTAssertNil(shared.any(for: key))

        // 4 GiB, sparse: refused by its size, never read.
        try FileManager.default.removeItem(atPath: entry)
        let fd = open(entry, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(pwrite(fd, good.withUnsafeBytes { $0.baseAddress }, good.count, 0), good.count)
        XCTAssertEqual(ftruncate(fd, 4 << 30), 0)
        close(fd)
        XCTAssertNil(shared.any(for: key))

        // A header line that never ends within its bound.
        try FileManager.default.removeItem(atPath: entry)
        XCTAssertTrue(FileManager.default.createFile(atPath: entry, contents: Data(repeating: 0x20, count: 200_000),
                                                    attributes: [.posixPermissions: 0o600]))
        XCTAssertNil(shared.any(for: key))

        XCTAssertEqual(heard.lines, ["\(entry): cache entry not used: a symbolic link"], "one warning, the first")
    }

    // MARK: binding

    func testEntryIsBoundToProviderURLKeyAndCustomer() throws {
        let heard = Heard()
        let path = dir.path + "/c"
        let shared = cache(path, heard)
        try shared.store(answer, for: key)
        let stored = try Data(contentsOf: URL(fileURLWithPath: shared.path(for: key)))
        let header = try JSON.parse(String(decoding: stored.prefix { $0 != 0x0A }, as: UTF8.self))
        XCTAssertEqual(header["provider"], .string("subs"))
        XCTAssertEqual(header["url"], .string(key.url))
        XCTAssertEqual(header["customer"], .string("alice"))
        XCTAssertEqual(header["keyDigest"]?.stringValue?.count, 64)
        XCTAssertNil(stored.range(of: Data("k-123456".utf8)), "never the key")

        let others = [
            ResponseCache.Key(provider: "revenuecat", url: key.url, apiKey: APIKey("k-123456"), customer: "alice"),
            ResponseCache.Key(provider: "subs", url: "https://h.example/v1/customers/bob", apiKey: APIKey("k-123456"), customer: "alice"),
            ResponseCache.Key(provider: "subs", url: key.url, apiKey: APIKey("another-key"), customer: "alice"),
            ResponseCache.Key(provider: "subs", url: key.url, apiKey: nil, customer: "alice"),
            ResponseCache.Key(provider: "subs", url: key.url, apiKey: APIKey("k-123456"), customer: "bob"),
            ResponseCache.Key(provider: "subs", url: key.url, apiKey: APIKey("k-123456"), customer: nil),
        ]
        for other in others {
            XCTAssertNotEqual(shared.path(for: other), shared.path(for: key))
            // The entry of `key` copied (or renamed) under the name of another request is a miss.
            try stored.write(to: URL(fileURLWithPath: shared.path(for: other)))
            XCTAssertEqual(chmod(shared.path(for: other), 0o600), 0)
            XCTAssertNil(shared.any(for: other), "\(other.provider) \(other.url) \(other.customer ?? "-")")
        }
        XCTAssertEqual(shared.any(for: key)?.response.body, answer.body)
        XCTAssertEqual(heard.lines, [])
    }
}

/// The attack of issue 21 against the built binary: a cache directory in a shared place, made by
/// someone else (or left writable by others), holding a well-formed answer that says alice has
/// premium while the server says she has not. It must never pass `--require`.
final class SharedCacheAttackTests: XCTestCase {
    let dir = TempDir()
    var server: LoopbackSubsServer!
    var store = ""
    var base = ""

    override func setUpWithError() throws {
        store = dir.write("store.json", TestStore.json)
        server = try LoopbackSubsServer(store: store, token: "t0ken")
        base = server.base
    }

    override func tearDown() {
        server.stop()
    }

    func subs(_ arguments: [String], cache: String) throws -> CLIResult {
        try Binary.run(["--remote", base] + arguments, env: ["SUBS_API_KEY": "t0ken", "XDG_CACHE_HOME": cache])
    }

    /// A planted cache: the answers of a server on which alice has premium, in `shared/subs`,
    /// then the server's truth changed to alice without it.
    func plant() throws -> String {
        let own = dir.path + "/own-cache"
        XCTAssertEqual(try subs(["check", "alice", "--require", "premium", "-q"], cache: own).status, .success)
        let shared = dir.path + "/shared"
        try FileManager.default.createDirectory(atPath: shared + "/subs", withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: own + "/subs") {
            try FileManager.default.copyItem(atPath: own + "/subs/" + name, toPath: shared + "/subs/" + name)
        }
        try #"{"schemaVersion": 1, "products": {"lifetime": {"type": "nonConsumable", "entitlements": ["premium"]}}, "customers": {"alice": {}}}"#.write(toFile: store, atomically: true, encoding: .utf8)
        XCTAssertEqual(try subs(["check", "alice", "--require", "premium", "-q"], cache: own).status, .requirementMissing)
        return shared
    }

    func contents(_ path: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))
        }
        return out
    }

    func assertNeverPasses(_ shared: String, because reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try contents(shared + "/subs")
        XCTAssertFalse(before.isEmpty, file: file, line: line)
        let warning = "subs: warning: \(shared)/subs: cache not used: \(reason)\n"

        let offline = try subs(["--offline", "check", "alice", "--require", "premium"], cache: shared)
        XCTAssertEqual(offline.status, .unavailable, offline.stderr, file: file, line: line)
        XCTAssertTrue(offline.stderr.hasPrefix(warning), offline.stderr, file: file, line: line)
        XCTAssertEqual(offline.stderr.components(separatedBy: "subs: warning:").count, 2, "one warning: \(offline.stderr)", file: file, line: line)

        let online = try subs(["check", "alice", "--require", "premium", "-q"], cache: shared)
        XCTAssertEqual(online.status, .requirementMissing, online.stderr, file: file, line: line)
        // The gate names the customer it failed, after the one warning.
        XCTAssertEqual(online.stderr, warning + "subs: 'alice' lacks 'premium': never had it\n", file: file, line: line)
        XCTAssertEqual(try contents(shared + "/subs"), before, "nothing written there", file: file, line: line)

        server.stop()
        let down = try subs(["check", "alice", "--require", "premium", "-q"], cache: shared)
        XCTAssertEqual(down.status, .unavailable, down.stderr, file: file, line: line)
        XCTAssertTrue(down.stderr.hasPrefix(warning), down.stderr, file: file, line: line)
    }

    func testACacheDirectoryWritableByOthersNeverPassesTheGate() throws {
        let shared = try plant()
        XCTAssertEqual(chmod(shared + "/subs", 0o777), 0)
        try assertNeverPasses(shared, because: "writable by group or others (mode 777); chmod go-w it")
    }

    func testACacheDirectoryOfAnotherUserNeverPassesTheGate() throws {
        try Prerequisite.root("to give the cache directory to another user")
        let shared = try plant()
        for name in try FileManager.default.contentsOfDirectory(atPath: shared + "/subs") {
            XCTAssertEqual(chown(shared + "/subs/" + name, CacheTrustTests.nobody, CacheTrustTests.nobody), 0)
        }
        XCTAssertEqual(chown(shared + "/subs", CacheTrustTests.nobody, CacheTrustTests.nobody), 0)
        XCTAssertEqual(chmod(shared + "/subs", 0o777), 0)
        try assertNeverPasses(shared, because: "owned by another user (uid \(CacheTrustTests.nobody))")
    }

    func testEntriesOfAnotherUserInOurDirectoryAreNotUsed() throws {
        try Prerequisite.root("to give cache entries to another user")
        let shared = try plant()
        XCTAssertEqual(chmod(shared + "/subs", 0o700), 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: shared + "/subs") {
            XCTAssertEqual(chown(shared + "/subs/" + name, CacheTrustTests.nobody, CacheTrustTests.nobody), 0)
        }
        let offline = try subs(["--offline", "check", "alice", "--require", "premium"], cache: shared)
        XCTAssertEqual(offline.status, .unavailable, offline.stderr)
        XCTAssertTrue(offline.stderr.contains("cache entry not used: owned by another user (uid \(CacheTrustTests.nobody))"), offline.stderr)
        // A fresh answer replaces the foreign entry with one of ours.
        XCTAssertEqual(try subs(["check", "alice", "--require", "premium", "-q"], cache: shared).status, .requirementMissing)
        XCTAssertEqual(try subs(["--offline", "check", "alice", "--require", "premium", "-q"], cache: shared).status, .requirementMissing)
    }
}
