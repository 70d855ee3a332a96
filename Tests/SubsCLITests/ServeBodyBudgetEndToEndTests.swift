// `subs serve` as the built binary against many clients that each send a request body of just
// under 1 MiB and never its last byte (SPEC section 7 rev. 4: serve's memory stays under a quarter
// of the store plus 256 MiB whatever clients send). Each body alone is within the 1 MiB limit; it
// is their total that must be bounded: the bodies held across connections stay under
// `maxRequestBodyBytes` (32 MiB) — a body past it waits, unread, for room — while the server goes
// on answering, and a request whose turn comes is answered. Before the bound, 250 such clients
// took serve to 252 MiB of resident memory.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

final class ServeBodyBudgetEndToEndTests: XCTestCase {
    private var process: Process?

    override func tearDown() {
        if let process, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        super.tearDown()
    }

    private func startServer(in dir: TempDir) throws -> (port: Int, pid: Int32) {
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let log = dir.write("serve.log", "")
        let process = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0"],
                                       stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        self.process = process
        let giveUp = Date().addingTimeInterval(20)
        while Date() < giveUp, process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                return (port, process.processIdentifier)
            }
            usleep(20_000)
        }
        XCTFail("subs serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        throw POSIXError(.ECHILD)
    }

    private func residentKB(_ pid: Int32, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        return try XCTUnwrap(Int(line.split(separator: " ").dropFirst().first ?? ""))
    }

    func testTheBodiesOfManyUnfinishedRequestsAreBoundedInTotal() throws {
        let dir = TempDir()
        let server = try startServer(in: dir)
        XCTAssertTrue(try RawClient.get(server.port, "/v1/health").hasPrefix("HTTP/1.1 200"))
        let baseline = try residentKB(server.pid, "VmHWM")

        // 250 connections (serve takes 256), each announcing 1 MiB - 1 of body and sending all but
        // its last byte, as fast as serve reads.
        let length = (1 << 20) - 1
        let head = Array("POST /v1/customers/alice/grants HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n".utf8)
        let body = [UInt8](repeating: 0x20, count: length - 1)
        var clients = try (0..<250).map { _ in try RawClient(port: server.port, receiveBuffer: 4096) }
        var sent = Array(repeating: 0, count: clients.count)
        let total = head.count + body.count
        let giveUp = Date().addingTimeInterval(6)
        while Date() < giveUp && sent.contains(where: { $0 < total }) {
            var progressed = false
            for (i, client) in clients.enumerated() where sent[i] < total {
                let piece = sent[i] < head.count ? Array(head[sent[i]...]) : Array(body[(sent[i] - head.count)..<min(body.count, sent[i] - head.count + 65536)])
                let n = client.sendWithoutWaiting(piece)
                if n > 0 { sent[i] += n; progressed = true }
            }
            if !progressed { usleep(20_000) }
        }
        // Every body is sent (but its last byte): some are in serve, waiting for that byte; the
        // others wait their turn, unread — what they sent lies in the kernel's buffers, not in serve.
        XCTAssertEqual(sent.filter { $0 == total }.count, 250)
        usleep(500_000)

        // The server answers meanwhile.
        XCTAssertTrue(try RawClient.get(server.port, "/v1/health").hasPrefix("HTTP/1.1 200"))
        let peak = try residentKB(server.pid, "VmHWM")
        XCTAssertLessThan(peak - baseline, 48 * 1024, "serve's peak memory grew from \(baseline) KB to \(peak) KB")

        // Once the senders go, their bodies are given back: a request with a body is answered at once.
        clients.removeAll()
        usleep(200_000)
        let post = try RawClient(port: server.port)
        XCTAssertTrue(post.send("POST /v1/customers/alice/grants HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"))
        let answer = post.readResponse(timeout: 5)
        XCTAssertNotNil(answer, "a small POST was not answered once the bodies were given back")
        XCTAssertNotEqual(answer?.status, 408)
    }
}
