// IAPHUB's purchase listing in the loopback fake (IAPHUBTests.swift): `GET /v1/app/{appId}/purchases`
// with `userId`, `environment`, `page`, `limit`, `order=asc`, answered from
// Tests/Fixtures/iaphub/purchases/USER.json (a JSON array of purchases, oldest first) in pages of
// at most `pageSize` (smaller than subs asks, so that several pages are read), or from a script.

import Foundation
import SubsJSON
import SubsHTTP

package enum IAPHUBListing {
    /// Users whose listing is scripted (their user answer is the active-renewing fixture).
    package static let scripted: Set<String> = ["endless", "empty-next", "list-not-array", "page-404", "no-purchases"]
    /// The fake's page size, whatever `limit` asks.
    package static let pageSize = 2
}

extension IAPHUBTestServer {
    package func purchases(_ query: String) -> HTTPResponse {
        func json(_ text: String, _ status: Int = 200) -> HTTPResponse {
            HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
        }
        var params: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { note("query part \(pair)"); continue }
            if params[parts[0]] != nil { note("query \(parts[0]) twice") }
            params[parts[0]] = parts[1].removingPercentEncoding
        }
        let environment = expectedQuery.split(separator: "&").first { $0.hasPrefix("environment=") }
            .map { String($0.dropFirst("environment=".count)).removingPercentEncoding ?? "" }
        if params["environment"] != environment { note("purchases environment \(params["environment"] ?? "none")") }
        if params["order"] != "asc" { note("purchases order \(params["order"] ?? "none")") }
        if params["limit"] != "100" { note("purchases limit \(params["limit"] ?? "none")") }
        if Set(params.keys) != ["userId", "environment", "page", "limit", "order"] { note("purchases query \(query)") }
        guard let user = params["userId"], let page = params["page"].flatMap(Int.init), page >= 1 else {
            note("purchases without userId or page: \(query)")
            return json(#"{"code":"invalid_param"}"#, 400)
        }
        switch user {
        case "endless":
            return json(#"{"hasNextPage":true,"list":[{"id":"p\#(page)","purchaseDate":"2026-01-01T00:00:00.000Z","productType":"consumable","productSku":"coins"}]}"#)
        case "empty-next": return json(#"{"hasNextPage":true,"list":[]}"#)
        case "list-not-array": return json(#"{"hasNextPage":false,"list":{"id":"x"}}"#)
        case "page-404": return json(#"{"code":"not_found"}"#, 404)
        case "no-purchases": return json(#"{"hasNextPage":false,"list":[]}"#)
        default: break
        }
        // IAPHUB filters by a user id it does not know with an empty list.
        guard let text = IAPHUBFixture.textIfAny("purchases-" + user), let all = (try? JSON.parse(Array(text.utf8)))?.arrayValue else {
            return json(#"{"hasNextPage":false,"list":[]}"#)
        }
        // Sliced as parsed values and written back: number literals (prices) stay as written.
        let start = (page - 1) * IAPHUBListing.pageSize
        let slice = start < all.count ? Array(all[start..<min(all.count, start + IAPHUBListing.pageSize)]) : []
        let more = start + IAPHUBListing.pageSize < all.count
        return json(#"{"hasNextPage":\#(more),"list":\#(JSONWriter.compact(.array(slice)))}"#)
    }
}
