// A grant or revoke's preconditions are checked once, before any source is asked
// (CustomerSource.checkWrite): what the provider cannot do (a dry run, a batch), then an end that
// is not in the future — each a usage error (64) with the provider's sentence, nothing sent.

import XCTest
@testable import SubsCLI

final class WritePreconditionTests: XCTestCase {
    private func run(_ provider: String, _ args: [String], remote: String? = nil) -> (CLIResult, [String]) {
        let dir = TempDir()
        let transport = RecordingTransport()
        let result = runCLI((remote.map { ["--remote", $0] } ?? []) + ["--provider", provider] + args,
                            env: ["SUBS_API_KEY": "sk_k", "XDG_CACHE_HOME": dir.path + "/cache"], http: transport)
        return (result, transport.urls)
    }

    func testAGrantEndingInThePastIsRefusedBeforeAnyRequestOnEveryPlatformThatGrants() {
        for (provider, remote) in [("revenuecat", nil), ("qonversion", nil), ("qonversion", "https://api.qonversion.io/v4")]
            as [(String, String?)] {
            let (result, sent) = run(provider, ["grant", "u1", "premium", "--until", "2020-01-01T00:00:00Z"], remote: remote)
            XCTAssertEqual(result.status, .usage, "\(provider) \(remote ?? ""): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("2020-01-01T00:00:00Z"), result.stderr)
            XCTAssertEqual(sent, [], "\(provider): nothing sent")
        }
    }

    func testADryRunOrABatchIsRefusedWithTheProvidersSentenceBeforeAnyRequest() {
        let cases: [(String, String?, [String], String)] = [
            ("revenuecat", nil, ["grant", "u1", "premium", "--duration", "P1D", "--dry-run"], "RevenueCat's API v1 has no dry run"),
            ("revenuecat", nil, ["revoke", "u1", "u2", "premium"], "RevenueCat's API v1 changes one customer per request"),
            ("qonversion", nil, ["grant", "u1", "premium", "--duration", "P1D", "--dry-run"], "Qonversion's API v3 has no dry run"),
            ("qonversion", nil, ["revoke", "u1", "u2", "premium"], "Qonversion's API v3 changes one user per request"),
            ("qonversion", "https://api.qonversion.io/v4", ["revoke", "u1", "u2", "premium"], "Qonversion's API v4 changes one user per request"),
            // The dry run is named before the batch, and both before a past end.
            ("qonversion", nil, ["grant", "u1", "u2", "premium", "--until", "2020-01-01T00:00:00Z", "--dry-run"],
             "Qonversion's API v3 has no dry run"),
            ("iaphub", "https://api.iaphub.com/v1/app/a1", ["grant", "u1", "premium", "--duration", "P1D", "--dry-run"],
             "IAPHUB offers no endpoint to grant or revoke"),
        ]
        for (provider, remote, args, sentence) in cases {
            let (result, sent) = run(provider, args, remote: remote)
            XCTAssertEqual(result.status, .usage, "\(args): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(sentence), "\(args): \(result.stderr)")
            XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
            XCTAssertEqual(sent, [], "\(args): nothing sent")
        }
    }

    func testTheSameUserNamedTwiceIsNoBatch() {
        // One user named twice is one write: refused here only because the fake knows no user.
        let (result, sent) = run("qonversion", ["revoke", "u1", "u1", "premium"])
        XCTAssertEqual(result.status, .notFound, result.stderr)
        XCTAssertFalse(sent.isEmpty)
    }
}
