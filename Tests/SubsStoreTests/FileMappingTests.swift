// SubsSystem's guarded mappings: many at once, on many threads, each told apart; more than the
// guard can hold are read instead of mapped (never left unguarded); and a SIGBUS that is not a
// store's still kills, through the disposition that was there before.

import Foundation
import SubsSystem
@testable import SubsStore
import XCTest

final class FileMappingTests: XCTestCase {
    let page = FileMapping.pageSize

    func temporaryFile(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "subs-mapping-" + UUID().uuidString
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func map(_ path: String) throws -> FileMapping {
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var info = stat()
        XCTAssertEqual(fstat(fd, &info), 0)
        return try XCTUnwrap(try FileMapping.map(fd: fd, count: Int(info.st_size)))
    }

    /// Threads that map, cut, read and unmap at the same time: each mapping's flag says whether
    /// its own file was cut, never another's, and an uncut file reads whole.
    func testConcurrentMappingsEachKnowTheirOwnLostPages() throws {
        let threads = 4, rounds = 150
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                let path = NSTemporaryDirectory() + "subs-mapping-\(thread)-\(round)-" + UUID().uuidString
                let byte = UInt8(ascii: "a") + UInt8(thread)
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: byte, count: 4 * page)), "cannot create a test file")
                defer { unlink(path) }
                let fd = open(path, O_RDONLY)
                defer { close(fd) }
                guard let mapping = try? FileMapping.map(fd: fd, count: 4 * page) else {
                    failures.add("thread \(thread) round \(round): not mapped")
                    continue
                }
                let cut = (round + thread) % 2 == 0
                if cut { truncate(path, off_t(page)) }
                var sum = 0
                for offset in stride(from: 0, to: 4 * page, by: 997) { sum += Int(mapping.bytes[offset]) }
                let expected = cut ? Int(byte) * ((page - 1) / 997 + 1) : Int(byte) * ((4 * page - 1) / 997 + 1)
                if mapping.lostPages != cut || sum != expected {
                    failures.add("thread \(thread) round \(round): cut \(cut), lostPages \(mapping.lostPages), sum \(sum) for \(expected)")
                }
            }
        }
        XCTAssertEqual(failures.all, [])
    }

    /// With every guard in use, a store is read into memory instead: a truncation then takes
    /// nothing away (no SIGBUS), and is still noticed. Once guards are free, stores are mapped again.
    func testMoreStoresThanGuardsAreReadNotMappedUnguarded() throws {
        var held: [FileMapping] = []
        let filler = temporaryFile(Array(repeating: 1, count: page))
        let fd = open(filler, O_RDONLY)
        defer { close(fd) }
        while held.count <= FileMapping.capacity, let mapping = try FileMapping.map(fd: fd, count: page) {
            held.append(mapping)
        }
        XCTAssertLessThanOrEqual(held.count, FileMapping.capacity)
        XCTAssertNil(try FileMapping.map(fd: fd, count: page), "every guard is taken")

        let content = Array(repeating: UInt8(ascii: "7"), count: 3 * page)
        let path = temporaryFile(content)
        let file = try MappedFile(path: path)
        XCTAssertEqual(truncate(path, 0), 0)
        XCTAssertEqual(Array(file.bytes), content, "read before the cut, whole")
        XCTAssertFalse(file.isUnchanged)

        held.removeAll()
        let again = temporaryFile(content)
        let guarded = try MappedFile(path: again)
        XCTAssertEqual(truncate(again, 0), 0)
        XCTAssertEqual(guarded.bytes[3 * page - 1], 0, "mapped: the lost page reads as zeros")
        XCTAssertFalse(guarded.isUnchanged)
    }

    /// In a fresh process (the test bundle run again for this one test, without Swift's crash
    /// reporter): a guarded mapping that loses a page reads zeros, then a read of a page lost by
    /// a mapping that is not guarded dies of SIGBUS — the handler hands it to the disposition
    /// that was there before it (here the default), it does not swallow it.
    func testASigbusOutsideEveryStoreMappingStillKills() throws {
        if ProcessInfo.processInfo.environment["SUBS_TEST_SIGBUS_CHILD"] == "1" {
            return try faultOutsideTheGuard()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["\(String(reflecting: Self.self))/testASigbusOutsideEveryStoreMappingStillKills"]
        var environment = ProcessInfo.processInfo.environment
        environment["SUBS_TEST_SIGBUS_CHILD"] = "1"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("guarded read: zeros, lost pages noticed\n"), printed)
        XCTAssertFalse(printed.contains("unguarded read returned"), printed)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGBUS)
    }

    private func faultOutsideTheGuard() throws {
        var previous = sigaction()
        sigaction(SIGBUS, nil, &previous)
        XCTAssertEqual(unsafeBitCast(previous.__sigaction_handler.sa_handler, to: Int.self), 0, "SIG_DFL before the guard")
        // Files removed at once (this process dies): only the open descriptors keep them.
        func openedAndRemoved() -> Int32 {
            let path = temporaryFile(Array(repeating: 9, count: 2 * page))
            let fd = open(path, O_RDWR)
            unlink(path)
            return fd
        }
        let guardedFile = openedAndRemoved()
        let guarded = try XCTUnwrap(try FileMapping.map(fd: guardedFile, count: 2 * page))
        ftruncate(guardedFile, 0)
        guard guarded.bytes[page] == 0, guarded.lostPages else { return XCTFail("the guard did not work") }
        let line = "guarded read: zeros, lost pages noticed\n"
        _ = line.withCString { write(1, $0, strlen($0)) }

        let file = openedAndRemoved()
        let base = try XCTUnwrap(mmap(nil, 2 * page, PROT_READ, MAP_PRIVATE, file, 0))
        XCTAssertNotEqual(base, MAP_FAILED)
        ftruncate(file, 0)
        let value = base.load(fromByteOffset: page, as: UInt8.self)   // SIGBUS: the process ends here
        let after = "unguarded read returned \(value)\n"
        _ = after.withCString { write(1, $0, strlen($0)) }
    }
}

/// Failures collected from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ failure: String) { lock.lock(); list.append(failure); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
}
