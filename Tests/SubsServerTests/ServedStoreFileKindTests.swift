// A store path that is, for a while, not a regular file (a FIFO, a directory, a device): the
// server answers `store_unreadable` at once, for reads and writes, holds no lock while it does,
// and serves again once the real file is back.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
@testable import SubsHTTP
@testable import SubsModel
@testable import SubsStore
@testable import SubsServer
import XCTest

final class ServedStoreFileKindTests: XCTestCase {
    private var dir = ""
    private var path = ""
    private let now = ISODate.parse("2026-12-01T12:00:00Z")!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "subs-kind-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        path = dir + "/store.json"
        try DemoStore.json.write(toFile: path, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    private func request(_ method: String, _ target: String, body: String = "") -> HTTPRequest {
        HTTPRequest(method: method, target: target, body: Array(body.utf8))
    }

    /// Runs `work` on its own thread; nil when it has not returned within `seconds` (a hang).
    /// A FIFO left waiting for a writer is opened for writing then, so the thread ends.
    private func promptly<T>(_ seconds: Double = 3, _ work: @escaping @Sendable () -> T) -> T? {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.value = work()
            done.signal()
        }.start()
        if done.wait(timeout: .now() + seconds) == .success { return box.value }
        let unblock = open(path, O_WRONLY | O_NONBLOCK)
        if unblock >= 0 { close(unblock) }
        _ = done.wait(timeout: .now() + 5)
        return nil
    }

    private func code(_ answer: HTTPResponse?) -> String? {
        answer.flatMap { try? JSON.parse($0.body)["error"]?["code"]?.stringValue } ?? nil
    }

    /// Puts something else at the store path for the time of `body`, then the real file back.
    private func withStoreReplaced(by make: (String) throws -> Void, _ body: () throws -> Void) throws {
        let saved = dir + "/saved.json"
        XCTAssertEqual(rename(path, saved), 0)
        try make(path)
        defer {
            _ = try? FileManager.default.removeItem(atPath: path)
            rename(saved, path)
        }
        try body()
    }

    func testAFIFOAtTheStorePathIsRefusedAtOnceAndServingComesBack() throws {
        let api = SubsAPI(store: LocalStore(path: path, lockTimeout: 2), token: nil, clock: FixedClock(now))
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/alice")).status, 200)
        try withStoreReplaced(by: { XCTAssertEqual(mkfifo($0, 0o600), 0) }) {
            // Several GETs at once: none waits behind another's open.
            let answers = promptly { () -> [HTTPResponse] in
                let group = DispatchGroup()
                let all = ResultBox<[HTTPResponse]>()
                all.value = []
                for _ in 0..<4 {
                    group.enter()
                    Thread {
                        let answer = api.handle(self.request("GET", "/v1/customers/alice"))
                        all.lock.withLock { all.value?.append(answer) }
                        group.leave()
                    }.start()
                }
                group.wait()
                return all.value ?? []
            }
            XCTAssertEqual(answers?.map(\.status), [500, 500, 500, 500], "a GET hung on the FIFO")
            XCTAssertEqual(Set(answers?.map(code) ?? []), ["store_unreadable"])
            let message = try XCTUnwrap(answers?.first.flatMap { try? JSON.parse($0.body)["error"]?["message"]?.stringValue })
            XCTAssertTrue(message.contains("named pipe (FIFO)"), message)
            // A write too: refused under the lock, which it lets go.
            let post = promptly {
                api.handle(self.request("POST", "/v1/customers/alice/grants",
                                        body: #"{"entitlement": "premium", "expirationDate": null}"#))
            }
            XCTAssertEqual(post?.status, 500, "a POST hung on the FIFO")
            XCTAssertEqual(code(post), "store_unreadable")
        }
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/alice")).status, 200)
        let grant = api.handle(request("POST", "/v1/customers/alice/grants", body: #"{"entitlement": "premium", "expirationDate": null}"#))
        XCTAssertEqual(grant.status, 201, "the lock was left held")
    }

    func testADirectoryOrADeviceAtTheStorePathIsStoreUnreadable() throws {
        let api = SubsAPI(store: LocalStore(path: path, lockTimeout: 2), token: nil, clock: FixedClock(now))
        XCTAssertEqual(api.handle(request("GET", "/v1/customers/alice")).status, 200)
        // Some containers have regular files where the devices should be: only real ones are used.
        let devices = ["/dev/zero", "/dev/urandom"].filter { device in
            var info = stat()
            return stat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR
        }
        let kinds: [(String, (String) throws -> Void)] = [
            ("directory", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }),
        ] + devices.map { device in
            // Through a symbolic link: the device is what would be read.
            ("character device", { XCTAssertEqual(symlink(device, $0), 0) })
        }
        for (kind, make) in kinds {
            try withStoreReplaced(by: make) {
                for req in [request("GET", "/v1/customers/alice"),
                            request("POST", "/v1/customers/alice/grants", body: #"{"entitlement": "premium", "expirationDate": null}"#)] {
                    let answer = promptly { api.handle(req) }
                    XCTAssertEqual(answer?.status, 500, "\(kind) \(req.method)")
                    XCTAssertEqual(code(answer), "store_unreadable", "\(kind) \(req.method)")
                    let message = answer.flatMap { try? JSON.parse($0.body)["error"]?["message"]?.stringValue } ?? ""
                    XCTAssertTrue(message.contains(kind), "\(kind): \(message)")
                }
            }
            XCTAssertEqual(api.handle(request("GET", "/v1/customers/alice")).status, 200, kind)
        }
    }

    func testAWriterRefusesAFIFOUnderItsLockInsteadOfWaitingForAWriter() throws {
        try withStoreReplaced(by: { XCTAssertEqual(mkfifo($0, 0o600), 0) }) {
            let failure = promptly { () -> String? in
                do {
                    _ = try LocalStore(path: self.path).apply(.grant(entitlement: "premium", expirationDate: nil, reason: nil, actor: nil,
                                                                     createMissing: false), to: ["alice"], now: self.now, dryRun: false)
                    return nil
                } catch {
                    return "\(error)"
                }
            }
            let message = try XCTUnwrap(failure ?? nil, "the write hung on the FIFO or went through")
            XCTAssertTrue(message.contains("named pipe (FIFO), not a regular file"), message)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".lock"), "the lock file it created was left")
        }
    }

    func testAFIFOStoreIsRefusedBeforeServingStarts() throws {
        try withStoreReplaced(by: { XCTAssertEqual(mkfifo($0, 0o600), 0) }) {
            let api = SubsAPI(store: LocalStore(path: path), token: nil, clock: FixedClock(now))
            let failure = promptly { () -> String? in
                do { try api.prepare(); return nil } catch { return "\(error)" }
            }
            let message = try XCTUnwrap(failure ?? nil, "prepare() hung or accepted a FIFO")
            XCTAssertTrue(message.contains("not a regular file"), message)
        }
    }
}

private final class ResultBox<T>: @unchecked Sendable {
    let lock = NSLock()
    var value: T?
}
