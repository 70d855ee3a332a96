// The signal handlers of the built binary (SubsSystem's C half): Ctrl-C at any moment of a write
// ends in exactly one of two documented outcomes, and `subs serve` stops cleanly on SIGINT and
// SIGTERM.

import Foundation
import XCTest

final class SignalTests: XCTestCase {
    var dir: TempDir!

    override func setUp() {
        dir = TempDir()
    }

    /// The store as readers see it (its journal folded in).
    func bytes(_ path: String) -> Data { Data(StoreView.folded(path)) }

    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.contains(".tmp-") }
    }

    func start(_ arguments: [String]) throws -> (Process, out: String, err: String) {
        try Binary.startWithOutputFiles(arguments, in: dir.path)
    }

    func text(_ path: String) -> String { String(decoding: bytes(path), as: UTF8.self) }

    /// SIGINT at random moments of a grant on a store big enough to take a while: either exit
    /// 130 with one line and the store untouched, or (once the store is committed) exit 0 with
    /// the write done and its output printed — or, before the handler exists, death by SIGINT
    /// with the store untouched. Never another status, a mix, or a temporary file left behind.
    func testInterruptAtRandomMomentsIsAWriteOrNothing() throws {
        var customers: [String] = []
        for i in 0..<3000 {
            customers.append("\"user\(i)\": {\"attributes\": {\"n\": \(i)}, \"transactions\": [{\"transactionId\": \"t\(i)\", \"originalTransactionId\": \"t\(i)\", \"productId\": \"pro_monthly\", \"type\": \"subscriptionStarted\", \"transactionDate\": \"2026-10-01T00:00:00Z\", \"expirationDate\": \"2026-11-01T00:00:00Z\"}]}")
        }
        let store = dir.write("big.json", "{\"schemaVersion\": 1, \"products\": {\"pro_monthly\": {\"type\": \"subscription\", \"entitlements\": [\"premium\"]}},\n\"customers\": {\n" + customers.joined(separator: ",\n") + "\n}}\n")
        var generator = SystemRandomNumberGenerator()
        var outcomes: [String: Int] = [:]
        for round in 0..<30 {
            let before = bytes(store)
            let (p, out, err) = try start(["--store", store, "grant", "user\(round * 97 % 3000)", "premium", "--lifetime"])
            usleep(UInt32.random(in: 0...30_000, using: &generator))
            kill(p.processIdentifier, SIGINT)
            p.waitUntilExit()
            let after = bytes(store)
            switch (p.terminationReason, p.terminationStatus) {
            case (.exit, 130):
                XCTAssertEqual(text(err), "subs: error: interrupted\n", "round \(round)")
                XCTAssertEqual(text(out), "", "round \(round)")
                XCTAssertEqual(after, before, "round \(round): interrupted, yet the store changed")
                outcomes["130", default: 0] += 1
            case (.exit, 0):
                XCTAssertEqual(text(err), "", "round \(round)")
                XCTAssertTrue(text(out).contains("user\(round * 97 % 3000)"), "round \(round): \(text(out))")
                XCTAssertNotEqual(after, before, "round \(round): finished, yet the store is unchanged")
                outcomes["0", default: 0] += 1
            case (.uncaughtSignal, SIGINT):
                XCTAssertEqual(after, before, "round \(round)")
                outcomes["SIGINT", default: 0] += 1
            default:
                XCTFail("round \(round): \(p.terminationReason == .exit ? "exit" : "signal") \(p.terminationStatus): \(text(err))")
            }
            XCTAssertEqual(temporaries(), [], "round \(round)")
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), 30, "\(outcomes)")
    }

    /// `subs serve` replaces the Ctrl-C handler with its stop handler: SIGINT or SIGTERM ends it
    /// with exit 0 after it stopped listening.
    func testServeStopsOnSIGINTAndSIGTERM() throws {
        let store = dir.write("store.json", TestStore.json)
        for signal in [SIGINT, SIGTERM] {
            let (p, _, err) = try start(["--store", store, "serve", "--listen", "127.0.0.1:0"])
            let deadline = Date().addingTimeInterval(20)
            while !text(err).contains("subs: serving") && p.isRunning && Date() < deadline { usleep(20_000) }
            XCTAssertTrue(text(err).contains("subs: serving"), text(err))
            kill(p.processIdentifier, signal)
            while p.isRunning && Date() < deadline { usleep(20_000) }
            if p.isRunning { p.terminate() }
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .exit, "signal \(signal)")
            XCTAssertEqual(p.terminationStatus, 0, "signal \(signal): \(text(err))")
        }
    }
}
