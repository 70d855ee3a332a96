// A loopback stand-in for IAPHUB's server API (the subs HTTP server engine with a handler of our
// own) that checks every request and answers the fixtures of Tests/Fixtures/iaphub.

import XCTest
import Foundation
import SubsJSON
import SubsHTTP
import SubsCLI

/// A stand-in for IAPHUB's server API: `GET /v1/app/app_123/user/{id}`. The id names a fixture
/// (Tests/Fixtures/iaphub/ID.json) or a scripted fault; anything off in a request is recorded.
package final class IAPHUBTestServer: @unchecked Sendable {
    package static let appId = "app_123"
    package static let key = "sk_live_T3st"
    package let server: HTTPServer
    package var base: String { "http://127.0.0.1:\(server.port)/v1/app/\(IAPHUBTestServer.appId)" }
    /// The query every request must carry.
    package var expectedQuery = "environment=production&platform=ios"
    /// Beyond this many requests within one second, 429 (nil: no limit).
    package var limitPerSecond: Int?

    private let lock = NSLock()
    private var _problems: [String] = []
    private var _paths: [String] = []
    private var _arrivals: [Double] = []
    private var _refused = 0
    private var _flaky: Set<String> = []
    private var _listings: [String] = []
    /// The purchase listing's requests, path and query, in order.
    package var listings: [String] { lock.lock(); defer { lock.unlock() }; return _listings }
    package func recordListing(_ request: String) { lock.lock(); _listings.append(request); lock.unlock() }

    package var problems: [String] { lock.lock(); defer { lock.unlock() }; return _problems }
    /// The raw (still encoded) paths asked, in order.
    package var paths: [String] { lock.lock(); defer { lock.unlock() }; return _paths }
    /// 429s sent by the rate limit.
    package var refused: Int { lock.lock(); defer { lock.unlock() }; return _refused }

    package init() throws {
        final class Target: @unchecked Sendable { weak var server: IAPHUBTestServer? }
        let target = Target()
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { request in
            target.server?.answer(request) ?? HTTPResponse(status: 500)
        }
        target.server = self
        try server.start()
    }

    package func stop() {
        server.stop()
        server.wait()
    }

    package func forgetProblems() { lock.lock(); _problems = []; lock.unlock() }

    package func note(_ problem: String) { lock.lock(); _problems.append(problem); lock.unlock() }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        lock.lock()
        _paths.append(request.path)
        _arrivals.append(now)
        let recent = _arrivals.filter { $0 > now - 1 }.count
        let limited = limitPerSecond.map { recent > $0 } ?? false
        if limited { _refused += 1 }
        lock.unlock()

        if request.method != "GET" { note("method \(request.method)") }
        let authorization = request.headers["Authorization"]
        let wrongKey = authorization != "ApiKey \(IAPHUBTestServer.key)"
        // Another key in the right scheme is a test's doing; anything else is subs's mistake.
        if wrongKey && authorization?.hasPrefix("ApiKey ") != true { note("Authorization \(authorization == nil ? "missing" : "in another scheme")") }
        if request.headers["User-Agent"] != "subs/\(CLI.version)" { note("User-Agent \(request.headers["User-Agent"] ?? "none")") }
        if !request.body.isEmpty { note("a body on a GET") }
        if let segments = request.pathSegments, segments == ["v1", "app", IAPHUBTestServer.appId, "purchases"] {
            if wrongKey { return HTTPResponse(status: 401, body: Array(#"{"code":"api_key_invalid"}"#.utf8)) }
            if limited { return HTTPResponse(status: 429, headers: [("Retry-After", "1")], body: Array("{\"code\":\"rate_limit\"}".utf8)) }
            recordListing(request.path + "?" + (request.query ?? ""))
            return purchases(request.query ?? "")
        }
        if request.query != expectedQuery { note("query \(request.query ?? "none")") }
        let prefix = ["v1", "app", IAPHUBTestServer.appId, "user"]
        guard let segments = request.pathSegments, segments.count == 5, Array(segments.prefix(4)) == prefix else {
            note("path \(request.path)")
            return HTTPResponse(status: 404)
        }
        if wrongKey { return HTTPResponse(status: 401, body: Array(#"{"code":"api_key_invalid"}"#.utf8)) }
        if limited { return HTTPResponse(status: 429, headers: [("Retry-After", "1")], body: Array("{\"code\":\"rate_limit\"}".utf8)) }
        return answer(user: segments[4], platform: request.query?.split(separator: "&").first { $0.hasPrefix("platform=") }
            .map { String($0.dropFirst("platform=".count)) })
    }

    private func answer(user: String, platform: String?) -> HTTPResponse {
        func json(_ text: String, _ status: Int = 200) -> HTTPResponse {
            HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
        }
        switch user {
        case "status-401": return json(#"{"code":"api_key_invalid"}"#, 401)
        case "status-403": return json(#"{"code":"forbidden"}"#, 403)
        case "status-500": return json(#"{"code":"internal"}"#, 500)
        case "status-400": return json(#"{"code":"invalid_param"}"#, 400)
        case "status-429": return HTTPResponse(status: 429, headers: [("Retry-After", "0")])
        case "redirect": return HTTPResponse(status: 302, headers: [("Location", "https://example.com/")])
        case "flaky-429":
            lock.lock()
            let first = _flaky.insert(user).inserted
            lock.unlock()
            if first { return HTTPResponse(status: 429, headers: [("Retry-After", "0")]) }
            return json(IAPHUBFixture.text("active-renewing"))
        case "no-active-products": return json(#"{"id":"x","productsForSale":[]}"#)
        case "active-products-null": return json(#"{"activeProducts":null}"#)
        case "not-json": return json("<html>Bad gateway</html>")
        case "truncated": return json(#"{"activeProducts":[{"sku":"pro","#)
        case "array-body": return json("[]")
        case "bad-date": return json(#"{"activeProducts":[{"sku":"pro","type":"renewable_subscription","expirationDate":"next week"}]}"#)
        case "wrong-type": return json(#"{"activeProducts":[{"sku":"pro","type":"renewable_subscription","isFamilyShare":"yes"}]}"#)
        case "no-sku": return json(#"{"activeProducts":[{"type":"non_consumable"}]}"#)
        case "product-not-object": return json(#"{"activeProducts":[42]}"#)
        case "cross-platform":
            // IAPHUB answers the sku of the platform asked for; a product with none there comes without.
            let sku = platform == "android" ? #""sku":"pro_monthly","# : platform == "ios" ? "" : #""sku":"?","#
            return json(#"{"activeProducts":[{"id":"5e51","type":"renewable_subscription",\#(sku)"platform":"android","#
                        + #""expirationDate":"2026-12-20T10:00:00.000Z","subscriptionState":"active","isSubscriptionRenewable":true}]}"#)
        default:
            if user.hasPrefix("pace-") || IAPHUBListing.scripted.contains(user) || ["alice/ü x", "..", "a?b#c%d+e&f=g"].contains(user) { return json(IAPHUBFixture.text("active-renewing")) }
            guard let text = IAPHUBFixture.textIfAny(user) else {
                return json(#"{"code":"user_not_found","message":"user not found"}"#, 404)
            }
            return json(text)
        }
    }
}

package enum IAPHUBFixture {
    package static func textIfAny(_ name: String) -> String? {
        guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
        return try? String(contentsOfFile: Repo.path("Tests/Fixtures/iaphub/\(name).json"), encoding: .utf8)
    }
    package static func text(_ name: String) -> String { textIfAny(name)! }
}
