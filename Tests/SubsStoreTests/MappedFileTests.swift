// The store file in memory: a mapping that loses pages to a truncation reads zeros and says so
// (no SIGBUS); a stream that never ends is not read without end.

import Foundation
@testable import SubsSystem
@testable import SubsStore
import XCTest

final class MappedFileTests: XCTestCase {
    func temporaryFile(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "subs-mapped-" + UUID().uuidString
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot create a test file")
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testReadingPagesATruncationTookAwayGivesZerosAndIsNoticed() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        for cut in [0, 100, page, 3 * page + 5] {
            let path = temporaryFile(Array(repeating: UInt8(ascii: "7"), count: 8 * page))
            let file = try MappedFile(path: path)
            XCTAssertTrue(file.isUnchanged)
            XCTAssertEqual(truncate(path, off_t(cut)), 0)
            // Every page past the new end: zeros instead of a fatal SIGBUS.
            var sum = 0
            for offset in stride(from: 0, to: file.bytes.count, by: page) { sum += Int(file.bytes[offset]) }
            XCTAssertEqual(file.bytes[8 * page - 1], 0, "cut at \(cut)")
            XCTAssertLessThan(sum, 8 * 55)
            XCTAssertFalse(file.isUnchanged, "cut at \(cut)")
            XCTAssertThrowsError(try file.verifyUnchanged()) { error in
                XCTAssertTrue("\(error)".contains("changed while it was being read"), "\(error)")
            }
            XCTAssertThrowsError(try file.reading { 42 })
        }
    }

    func testARewriteInPlaceWithoutTruncationIsNoticedToo() throws {
        let path = temporaryFile(Array("{\"a\": 1}".utf8))
        let file = try MappedFile(path: path)
        usleep(10_000)   // a later modification time, even on coarse clocks
        let fd = open(path, O_WRONLY)
        _ = "{\"a\": 2}".withCString { write(fd, $0, 8) }
        close(fd)
        XCTAssertFalse(file.isUnchanged)
        // An untouched file and a file renamed over (a new version by a writer) are not a change.
        let other = temporaryFile(Array("{}".utf8))
        let untouched = try MappedFile(path: other)
        XCTAssertTrue(untouched.isUnchanged)
        let replacement = temporaryFile(Array("{\"b\": 2}".utf8))
        XCTAssertEqual(rename(replacement, other), 0)
        XCTAssertTrue(untouched.isUnchanged)
        XCTAssertFalse(untouched.isStill(at: other))
    }

    func testSeveralMappingsAreGuardedAtOnce() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let paths = (0..<5).map { _ in temporaryFile(Array(repeating: 1, count: 2 * page)) }
        let files = try paths.map { try MappedFile(path: $0) }
        truncate(paths[3], 0)
        for file in files { _ = file.bytes[2 * page - 1] }
        XCTAssertEqual(files.map(\.isUnchanged), [true, true, true, false, true])
    }

    /// A pipe that keeps giving bytes that could be JSON (spaces): stopped at the limit.
    func testStreamsStopAtTheLimitOrAtTheFirstImpossibleByte() throws {
        for (chunk, expectLimit) in [(Array(repeating: UInt8(ascii: " "), count: 4096), true),
                                     (Array(repeating: UInt8(ascii: "["), count: 4096), true),
                                     (Array("{\"a\": \"x\u{1}y\"}".utf8), false),
                                     ([UInt8(ascii: " "), 0xFF, 0x20], false)] {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            let writer = fds[1]
            let feeding = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                // Endless, or until the reader closes its end.
                signal(SIGPIPE, SIG_IGN)
                while chunk.withUnsafeBytes({ write(writer, $0.baseAddress, $0.count) }) > 0 {}
                close(writer)
                feeding.signal()
            }
            defer { close(fds[0]); feeding.wait() }
            do {
                let bytes = try MappedFile.readStream(fd: fds[0], path: "pipe", limit: 1 << 20)
                defer { bytes.deallocate() }
                XCTAssertFalse(expectLimit, "read \(bytes.count) bytes")
                // Up to and including the first byte that cannot be JSON.
                let last = bytes[bytes.count - 1]
                XCTAssertTrue(last < 0x20 || last >= 0xF5, "\(last)")
                XCTAssertLessThan(bytes.count, chunk.count + 1)
            } catch {
                XCTAssertTrue(expectLimit, "\(error)")
                XCTAssertTrue("\(error)".contains("longer than 1 MiB"), "\(error)")
            }
        }
    }
}
