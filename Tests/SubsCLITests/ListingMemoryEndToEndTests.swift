// Issue 29 item 4 (SPEC section 7 rev. 4, "Budgets"): what `history` and `renew-count` hold of a
// paging provider's listing is bounded in bytes, whatever the shape of its pages — many tiny
// items, a few huge ones — and in every output format. The built binary reads a loopback fake of
// each paging listing (Qonversion API v4 purchases, RevenueCat API v2 transactions and
// subscriptions, IAPHUB purchases) under a lowered bound (SUBS_TEST_ANSWER_BYTES); its peak
// resident size is read from /proc while it runs and must stay near what the same command takes
// for a listing of one item, plus the bound: before the bound counted what the items take, a
// listing of tiny items held ten times its bound.

import Foundation
import XCTest
import SubsJSON
@testable import SubsHTTP

/// A loopback listing: `pages` pages of items made by `item(page, index)`, served by provider's paths.
final class PagedListingFake: @unchecked Sendable {
    enum Provider { case qonversion, revenueCatTransactions, revenueCatSubscriptions, iaphub }

    let provider: Provider
    private var pages: [[UInt8]] = []
    private var server: HTTPServer!
    var base = ""

    /// `perPage` items a page, each `item(page, index)` (JSON text).
    init(_ provider: Provider, pages count: Int, perPage: Int, item: (Int, Int) -> String) throws {
        self.provider = provider
        for p in 0..<count {
            let items = (0..<perPage).map { item(p, $0) }.joined(separator: ",")
            let more = p + 1 < count
            let text: String
            switch provider {
            case .qonversion:
                text = #"{"object":"list","has_more":\#(more),"next_cursor":\#(more ? "\"c\(p + 1)\"" : "null"),"data":[\#(items)]}"#
            case .revenueCatTransactions, .revenueCatSubscriptions:
                text = #"{"object":"list","items":[\#(items)],"next_page":\#(more ? "\"/v2/projects/p1/x?starting_after=c\(p + 1)\"" : "null"),"url":"/x"}"#
            case .iaphub:
                text = #"{"hasNextPage":\#(more),"list":[\#(items)]}"#
            }
            pages.append(Array(text.utf8))
        }
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { [unowned self] in self.handle($0) }
        try server.start()
        switch provider {
        case .qonversion: base = "http://127.0.0.1:\(server.port)/v4"
        case .revenueCatTransactions, .revenueCatSubscriptions: base = "http://127.0.0.1:\(server.port)/v2/projects/p1"
        case .iaphub: base = "http://127.0.0.1:\(server.port)/v1/app/app1"
        }
    }

    func stop() {
        server.stop()
        server.wait()
    }

    private static func json(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
    }

    private func page(_ query: String?, key: String) -> HTTPResponse {
        var index = 0
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix(key + "=") {
            let value = pair.dropFirst(key.count + 1)
            switch provider {
            // Qonversion's cursor is the last purchase's id, `p{page}_{index}`: the next page follows it.
            case .qonversion: index = (Int(value.dropFirst().prefix { $0.isNumber }) ?? -2) + 1
            case .iaphub: index = (Int(value) ?? 0) - 1
            default: index = Int(value.drop { !$0.isNumber }) ?? -1
            }
        }
        guard index >= 0 && index < pages.count else { return Self.json(#"{"error":"no such page"}"#, status: 400) }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: pages[index])
    }

    private func handle(_ r: HTTPRequest) -> HTTPResponse {
        let path = r.path
        switch provider {
        case .qonversion:
            if path.hasSuffix("/entitlements") {
                return Self.json(#"{"object":"list","has_more":false,"next_cursor":null,"data":[{"object":"user_entitlement","id":"premium","is_active":true,"source":"appstore","started_at":"2025-01-01T00:00:00Z","expires_at":"2027-01-01T00:00:00Z","product":{"product_id":"pro_monthly","subscription":{"renew_state":"will_renew","current_period_type":"normal"}}}]}"#)
            }
            if path.hasSuffix("/purchases") { return page(r.query, key: "starting_after") }
            return Self.json("{}", status: 404)
        case .revenueCatTransactions, .revenueCatSubscriptions:
            let list = #"{"object":"list","items":[],"next_page":null,"url":"/x"}"#
            if path.hasSuffix("/customers/c1") {
                return Self.json(#"{"object":"customer","id":"c1","first_seen_at":1700000000000,"active_entitlements":\#(list),"attributes":\#(list)}"#)
            }
            if path.hasSuffix("/subscriptions") {
                if provider == .revenueCatSubscriptions { return page(r.query, key: "starting_after") }
                return Self.json(#"{"object":"list","items":[{"object":"subscription","id":"sub_1","product_id":"prod_1","starts_at":1735689600000,"current_period_starts_at":1735689600000,"current_period_ends_at":1767225600000,"gives_access":true,"auto_renewal_status":"will_renew","status":"active","entitlements":{"object":"list","items":[{"object":"entitlement","id":"entl_premium","lookup_key":"premium"}],"next_page":null},"environment":"production","store":"app_store","store_subscription_identifier":"t","ownership":"purchased"}],"next_page":null,"url":"/x"}"#)
            }
            if path.hasSuffix("/transactions") && provider == .revenueCatTransactions { return page(r.query, key: "starting_after") }
            if path.hasSuffix("/purchases") || path.hasSuffix("/transactions") { return Self.json(list) }
            return Self.json(#"{"object":"error","type":"resource_missing","message":"no"}"#, status: 404)
        case .iaphub:
            if path.contains("/user/") {
                let text = (try? String(contentsOfFile: Repo.path("Tests/Fixtures/iaphub/active-renewing.json"), encoding: .utf8)) ?? "{}"
                return Self.json(text)
            }
            if path.hasSuffix("/purchases") { return page(r.query, key: "page") }
            return Self.json(#"{"code":"not_found"}"#, status: 404)
        }
    }
}

final class ListingMemoryEndToEndTests: XCTestCase {
    /// The bound the runs get (SUBS_TEST_ANSWER_BYTES).
    static let bound = 24 << 20

    /// Runs the built binary, its stdout and stderr to files, and samples its peak resident size
    /// (VmHWM, a high-water mark) until it exits: (status, stdout, stderr, peak in bytes).
    private func peakRun(_ arguments: [String], env: [String: String]) throws -> (Int32, String, String, Int) {
        let dir = TempDir()
        let (process, out, err) = try Binary.startWithOutputFiles(arguments, env: env, in: dir.path)
        var peak = 0
        while process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                peak = max(peak, kib << 10)
            }
            usleep(1000)
        }
        process.waitUntilExit()
        let stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        return (process.terminationStatus, stdout, stderr, peak)
    }

    private func arguments(_ fake: PagedListingFake, _ command: [String]) -> (args: [String], env: [String: String]) {
        let dir = TempDir()
        defer { withExtendedLifetime(dir) {} }
        let provider: String, key: String, user: String
        switch fake.provider {
        case .qonversion: (provider, key, user) = ("qonversion", "sk_test_memory", "QON_x")
        case .revenueCatTransactions, .revenueCatSubscriptions: (provider, key, user) = ("revenuecat", "sk_test_memory", "c1")
        case .iaphub: (provider, key, user) = ("iaphub", "iaphub_key", "u1")
        }
        return (["--provider", provider, "--remote", fake.base, "--timeout", "60"] + command.map { $0 == "USER" ? user : $0 },
                ["SUBS_API_KEY": key, "XDG_CACHE_HOME": NSTemporaryDirectory() + "subs-memory-\(UUID().uuidString)"])
    }

    /// Every format of `history` and `renew-count` over `fake` holds at most the bound beyond what
    /// a one-item listing takes (with room for the page being read), and says it stopped there.
    private func assertBounded(_ provider: PagedListingFake.Provider, pages: Int, perPage: Int, allFormats: Bool = true,
                               item: @escaping (Int, Int) -> String, file: StaticString = #filePath, line: UInt = #line) throws {
        let small = try PagedListingFake(provider, pages: 1, perPage: 1, item: item)
        defer { small.stop() }
        let (smallArgs, smallEnv) = arguments(small, ["history", "USER", "--json"])
        let (smallStatus, _, smallErr, baseline) = try peakRun(smallArgs, env: smallEnv)
        XCTAssertEqual(smallStatus, 0, smallErr, file: file, line: line)

        let fake = try PagedListingFake(provider, pages: pages, perPage: perPage, item: item)
        defer { fake.stop() }
        let runs: [[String]] = allFormats
            ? [["history", "USER", "--json"], ["history", "USER", "--format", "jsonl"], ["history", "USER", "--format", "tsv"],
               ["history", "USER"], ["history", "USER", "--wide"], ["-q", "history", "USER"], ["renew-count", "USER", "--json"]]
            : [["history", "USER", "--json"], ["history", "USER"], ["renew-count", "USER", "--json"]]
        for command in runs {
            let (args, env) = arguments(fake, command)
            let (status, stdout, stderr, peak) = try peakRun(args, env: env.merging(["SUBS_TEST_ANSWER_BYTES": "24M"]) { $1 })
            let label = command.joined(separator: " ")
            XCTAssertEqual(status, 0, "\(label): \(stderr)", file: file, line: line)
            XCTAssertTrue(stderr.contains("the command's remote answers reached the 24 MiB subs holds of them"), "\(label): \(stderr)",
                          file: file, line: line)
            // The bound, the page being read (at most 16 MiB, here 4) and the allocator's slack.
            XCTAssertLessThan(peak - baseline, Self.bound + (16 << 20), "\(label): peak \(peak >> 20) MiB, \(baseline >> 20) MiB for one item",
                              file: file, line: line)
            if command.last == "--json", command.first == "history" {
                let doc = try JSON.parse(stdout)
                XCTAssertEqual(doc["complete"], .bool(false), label, file: file, line: line)
                XCTAssertGreaterThan(doc["entries"]?.arrayValue?.count ?? 0, 0, label, file: file, line: line)
            }
        }
    }

    /// About 4 MiB a page.
    private static func perPage(_ item: String) -> Int { (4 << 20) / (item.utf8.count + 1) }

    func testQonversionV4TinyAndHugePurchases() throws {
        let tiny = { (p: Int, i: Int) in
            #"{"id":"p\#(p)_\#(i)","product_id":"pro_monthly","purchased_at":"2025-01-01T00:00:00Z","expires_at":"2025-02-01T00:00:00Z"}"#
        }
        try assertBounded(.qonversion, pages: 12, perPage: Self.perPage(tiny(0, 0)), item: tiny)
        // A few purchases whose store ids are 256 KiB each.
        let big = String(repeating: "x", count: 256 << 10)
        let huge = { (p: Int, i: Int) in
            #"{"id":"p\#(p)_\#(i)","product_id":"pro_monthly","purchased_at":"2025-01-01T00:00:00Z","expires_at":"2025-02-01T00:00:00Z","store_data":{"transaction_id":"t\#(p)_\#(i)\#(big)","original_transaction_id":"o1"}}"#
        }
        try assertBounded(.qonversion, pages: 12, perPage: 16, allFormats: false, item: huge)
    }

    func testRevenueCatV2TransactionsAndSubscriptions() throws {
        let transaction = { (p: Int, i: Int) in
            #"{"object":"subscription_transaction","id":"t\#(p)_\#(i)","purchased_at":\#(1735689600000 + i),"product_store_identifier":"pro"}"#
        }
        try assertBounded(.revenueCatTransactions, pages: 12, perPage: Self.perPage(transaction(0, 0)), item: transaction)
        let subscription = { (p: Int, i: Int) in
            #"{"object":"subscription","id":"s\#(p)_\#(i)","starts_at":1735689600000,"store":"stripe","status":"expired","entitlements":{"object":"list","items":[{"object":"entitlement","id":"entl_premium","lookup_key":"premium"}],"next_page":null}}"#
        }
        try assertBounded(.revenueCatSubscriptions, pages: 12, perPage: Self.perPage(subscription(0, 0)), item: subscription)
    }

    func testIAPHUBTinyAndHugePurchases() throws {
        let tiny = { (p: Int, i: Int) in
            #"{"id":"\#(p)_\#(i)","purchaseDate":"2025-01-01T00:00:00.000Z","productType":"renewable_subscription","productSku":"pro_monthly","originalPurchase":"0_0","expirationDate":"2025-02-01T00:00:00.000Z"}"#
        }
        try assertBounded(.iaphub, pages: 12, perPage: Self.perPage(tiny(0, 0)), item: tiny)
        let big = String(repeating: "x", count: 256 << 10)
        let huge = { (p: Int, i: Int) in
            #"{"id":"\#(p)_\#(i)","purchaseDate":"2025-01-01T00:00:00.000Z","productType":"renewable_subscription","productSku":"pro_monthly\#(big)","originalPurchase":"0_0","expirationDate":"2025-02-01T00:00:00.000Z"}"#
        }
        try assertBounded(.iaphub, pages: 12, perPage: 16, allFormats: false, item: huge)
    }
}
