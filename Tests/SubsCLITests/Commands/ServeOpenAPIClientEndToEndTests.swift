// An OpenAPI-driven, property-based client that is not ours (schemathesis, from PyPI: CI installs
// it, a developer's machine without it skips) against the built `subs serve` with the description
// it serves: a fixed seed and number of examples per operation, its checks — no 5xx, every
// answer's status, content type, headers and body as described, what the description forbids
// refused with 4xx, routes that need a token refusing without one, 405 with Allow for methods
// not described — and the server still answering afterwards.
// One check is left out, with its reason: `positive_data_acceptance` (a request the schema allows
// must not be 400) — the API refuses, by rules JSON Schema cannot say, a `since` after `until`,
// a grant that ends in the past and a cursor this server did not give.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

final class ServeOpenAPIClientEndToEndTests: XCTestCase {
    func testAPropertyBasedClientFindsNothingAgainstTheDescription() throws {
        let st = try Prerequisite.tool("st")
        let dir = TempDir()
        let store = dir.write("store.json", try String(contentsOfFile: Repo.exampleStore, encoding: .utf8))
        let tokens = dir.write("tokens", "boss read,write,admin a-token\nreader read r-token\n")
        chmod(tokens, 0o600)
        let log = dir.path + "/serve.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        let server = try Binary.start(["--store", store, "serve", "--listen", "127.0.0.1:0", "--token-file", tokens],
                                      env: ["SUBS_NOW": "2026-12-01T12:00:00Z"],
                                      stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        addTeardownBlock {
            server.terminate()
            server.waitUntilExit()
        }
        var port = 0
        let giveUp = Date().addingTimeInterval(20)
        while Date() < giveUp, port == 0, server.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"on http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last ?? "") ?? 0
            }
            usleep(20_000)
        }
        XCTAssertNotEqual(port, 0, "subs serve did not start")
        let run = try runProcess(st, ["run", "http://127.0.0.1:\(port)/v1/openapi.json", "--header", "Authorization: Bearer a-token",
                                      "--checks", "all", "--exclude-checks", "positive_data_acceptance",
                                      "--max-examples", "25", "--seed", "33", "--workers", "1",
                                      "--phases", "examples,coverage,fuzzing", "--no-color"],
                                 environment: ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 },
                                 // Its caches (.schemathesis, .hypothesis) go in the test's folder, never the repository.
                                 currentDirectory: dir.path)
        let summary = run.stdout.split(separator: "\n").suffix(40).joined(separator: "\n")
        XCTAssertEqual(run.status, 0, "schemathesis found something:\n\(summary)\n\(run.stderr.suffix(2000))")
        XCTAssertTrue(run.stdout.contains("generated"), summary)
        XCTAssertFalse(run.stdout.contains("Server error"), summary)
        // Still answering.
        XCTAssertTrue(server.isRunning)
        XCTAssertTrue(try RawClient.get(port, "/v1/health").hasPrefix("HTTP/1.1 200"))
    }
}
