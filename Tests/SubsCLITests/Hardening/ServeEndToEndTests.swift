// `subs serve` as the built binary under abuse over real sockets: clients that ask and never
// read, a FIFO in place of the store. Each test runs its own server process on a free port.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import XCTest

final class ServeEndToEndTests: XCTestCase {
    /// A running `subs serve` on a copy of the example store, stopped when the test ends.
    private struct Server {
        let process: Process
        let port: Int
        let store: String
        let log: String

        /// Waits until the server has stopped answering (its log holds still for a moment):
        /// the clients that do not read are at their bound.
        func waitUntilIdle(limit: Double = 30) {
            let giveUp = Date().addingTimeInterval(limit)
            var size = -1
            var stillSince = Date()
            while Date() < giveUp {
                usleep(50_000)
                let now = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
                if now != size {
                    size = now
                    stillSince = Date()
                } else if Date().timeIntervalSince(stillSince) > 0.5 {
                    return
                }
            }
        }
    }

    /// `bigCustomer`: alice carries a 100 KB note, so that few answers fill a client's buffers.
    private func startServer(in dir: TempDir, bigCustomer: Bool = false) throws -> Server {
        let store = dir.path + "/store.json"
        // A copy of the file (the example is a link to the demo store resource).
        var text = try String(contentsOfFile: Repo.exampleStore, encoding: .utf8)
        if bigCustomer {
            text = text.replacingOccurrences(of: #""alice": {"#, with: #""alice": {"notes": ""# + String(repeating: "n", count: 100_000) + #"","#)
        }
        try text.write(toFile: store, atomically: false, encoding: .utf8)
        let log = dir.path + "/serve.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil), "cannot create a test file")
        // A file, not a pipe: one log line per request must never wait for a reader.
        let process = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0"],
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
                return Server(process: process, port: port, store: store, log: log)
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        XCTFail("subs serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        throw POSIXError(.ECHILD)
    }

    func testSixtyFourClientsThatNeverReadLeaveHealthAnsweringWithinATenthOfASecond() throws {
        let dir = TempDir()
        let server = try startServer(in: dir, bigCustomer: true)
        XCTAssertTrue(try get(server.port, "/v1/customers/alice").hasPrefix("HTTP/1.1 200"))
        let baseline = try XCTUnwrap(peakResidentKB(server.process.processIdentifier))
        // Each asks for alice (a 100 KB answer) 200 times, pipelined, and never reads an answer.
        let requests = 200
        let pipelined = Array(String(repeating: "GET /v1/customers/alice HTTP/1.1\r\nHost: t\r\n\r\n", count: requests).utf8)
        var readers: [RawClient] = []
        for _ in 0..<64 {
            let reader = try RawClient(port: server.port, receiveBuffer: 4096)
            readers.append(reader)
            _ = reader.sendWithoutWaiting(pipelined)
        }
        // The server answers them until each is at its bound, then holds still.
        server.waitUntilIdle()
        let answered = try String(contentsOfFile: server.log, encoding: .utf8).components(separatedBy: "GET /v1/customers/alice 200").count - 1
        XCTAssertLessThan(answered, 64 * requests, "requests were read past the bound")
        var latencies: [Double] = []
        for _ in 0..<3 {
            let start = Date()
            let answer = try get(server.port, "/v1/health")
            latencies.append(Date().timeIntervalSince(start))
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        }
        XCTAssertLessThan(latencies.min()!, 0.1, "health waited behind clients that do not read: \(latencies)")
        XCTAssertLessThan(latencies.max()!, 1, "\(latencies)")
        // Their unsent answers are bounded (256 KiB a connection, one answer past it): 64
        // clients × 200 answers of 100 KB would be 1.3 GB if the server kept them all.
        let peak = try XCTUnwrap(peakResidentKB(server.process.processIdentifier))
        XCTAssertLessThan(peak - baseline, 96 * 1024, "the server's peak memory grew by \(peak - baseline) KB")
        XCTAssertTrue(server.process.isRunning)
    }

    func testAFIFOInPlaceOfTheStoreIsAnErrorAnswerAndServingComesBack() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        XCTAssertTrue(try get(server.port, "/v1/customers/alice").hasPrefix("HTTP/1.1 200"))
        let saved = dir.path + "/saved.json"
        XCTAssertEqual(rename(server.store, saved), 0)
        XCTAssertEqual(mkfifo(server.store, 0o600), 0)
        for path in ["/v1/customers/alice", "/v1/customers/bob"] {
            let answer = try get(server.port, path, timeout: 3)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 500"), "a GET on a FIFO store: \(answer)")
            XCTAssertTrue(answer.contains(#""code":"store_unreadable""#), answer)
        }
        unlink(server.store)
        XCTAssertEqual(rename(saved, server.store), 0)
        XCTAssertTrue(try get(server.port, "/v1/customers/alice").hasPrefix("HTTP/1.1 200"))
    }

    /// A store another writer keeps locked: through serve, with every timeout at its default,
    /// the client hears 503 busy (exit 75, as on the local store) before its own --timeout
    /// (10 s) would make it exit 69 as if the server were unreachable.
    func testABusyStoreThroughServeIsExit75WithTheDefaultTimeouts() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        let lock = open(server.store + ".lock", O_RDWR | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(lock, 0)
        defer { close(lock) }
        XCTAssertEqual(flock(lock, LOCK_EX), 0)
        let started = Date()
        let result = try Binary.run(["--remote", "http://127.0.0.1:\(server.port)", "grant", "alice", "premium", "--duration", "P7D"],
                                    removing: ["SUBS_LOCK_TIMEOUT", "SUBS_TIMEOUT"])
        let waited = Date().timeIntervalSince(started)
        flock(lock, LOCK_UN)
        XCTAssertEqual(result.status.rawValue, 75, result.stderr)
        XCTAssertTrue(result.stderr.contains("busy") || result.stderr.contains("lock"), result.stderr)
        XCTAssertLessThan(waited, 9.5, "the answer came after \(waited) s")
        // Once the lock is free the same grant lands.
        let again = try Binary.run(["--remote", "http://127.0.0.1:\(server.port)", "grant", "alice", "premium", "--duration", "P7D"])
        XCTAssertEqual(again.status, .success, again.stderr)
    }

    func testServeOnAFIFOStoreSaysSoAtOnce() throws {
        let dir = TempDir()
        let fifo = dir.path + "/store.json"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let err = Pipe()
        let process = try Binary.start(["--store", fifo, "serve", "--listen", "127.0.0.1:0"], stderr: err)
        let giveUp = Date().addingTimeInterval(5)
        while process.isRunning && Date() < giveUp { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            let unblock = open(fifo, O_WRONLY | O_NONBLOCK)
            if unblock >= 0 { close(unblock) }
            process.waitUntilExit()
            return XCTFail("subs serve waited on a FIFO store")
        }
        XCTAssertEqual(process.terminationStatus, 66)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(message.contains("named pipe (FIFO), not a regular file"), message)
    }

    /// The request log goes to standard error; a pipe there that nobody reads fills up after a
    /// few thousand lines. Requests must go on being answered: the log never holds a worker.
    func testAStandardErrorNobodyReadsHoldsNoRequest() throws {
        let dir = TempDir()
        let store = dir.path + "/store.json"
        try String(contentsOfFile: Repo.exampleStore, encoding: .utf8).write(toFile: store, atomically: false, encoding: .utf8)
        let stderr = Pipe()
        let process = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0"], stderr: stderr)
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        // Read only the line that names the port; from then on the pipe is never read.
        var first: [UInt8] = []
        while !first.contains(0x0A), let byte = try stderr.fileHandleForReading.read(upToCount: 1)?.first { first.append(byte) }
        let line = String(decoding: first, as: UTF8.self)
        let port = try XCTUnwrap(line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, line)
        // 3 000 log lines of ~40 bytes are twice a pipe's 64 KiB.
        let started = Date()
        for _ in 0..<3000 {
            XCTAssertTrue(try get(port, "/v1/health", timeout: 5).hasPrefix("HTTP/1.1 200"))
            if Date().timeIntervalSince(started) > 60 { break }
        }
        let start = Date()
        XCTAssertTrue(try get(port, "/v1/customers/alice").hasPrefix("HTTP/1.1 200"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 1, "a GET waited behind the log")
        XCTAssertTrue(process.isRunning)
    }
}

// MARK: - sockets

/// One GET with `Connection: close`: the whole answer as text ("" when none came in time).
private func get(_ port: Int, _ path: String, timeout: Double = 10) throws -> String {
    try RawClient.get(port, path, timeout: timeout)
}

/// The process's peak resident size (VmHWM), in KB.
private func peakResidentKB(_ pid: Int32) throws -> Int? {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
}
