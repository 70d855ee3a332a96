// A loopback stand-in for RevenueCat's REST API v2 (Developer API 2.0.0) as far as subs uses it:
// GET /v2/projects/{p}/customers/{id}, …/customers/{id}/active_entitlements, …/subscriptions,
// …/purchases, /subscriptions/{id}/transactions and /customers?search=. Lists are cut into pages
// of `pageSize` items whatever `limit` asks (the real API clamps too), with `next_page` URLs as
// RevenueCat writes them. Every request is checked: path, Authorization, no X-Platform, `limit`.

import Foundation
import SubsJSON
import SubsHTTP
import SubsModel
import SubsRemote
import SubsCLI

package final class FakeRevenueCatV2: @unchecked Sendable {
    package static let key = "sk_V2TESTSECRETxyz789"
    package static let project = "proj1ab2c3d4"
    package static let date = "Tue, 01 Dec 2026 12:00:00 GMT"

    package struct Customer {
        package var body: JSONValue
        package var subscriptions: [JSONValue] = []
        package var purchases: [JSONValue] = []
        /// What else `search` finds it by (other app user ids, store transaction and order ids).
        package var searchable: [String] = []

        package init(body: JSONValue, subscriptions: [JSONValue] = [], purchases: [JSONValue] = [], searchable: [String] = []) {
            self.body = body
            self.subscriptions = subscriptions
            self.purchases = purchases
            self.searchable = searchable
        }
    }

    private let lock = NSLock()
    package var customers: [String: Customer] = [:]
    package var transactions: [String: [JSONValue]] = [:]
    /// Items per page, whatever `limit` asks.
    package var pageSize = 2
    package private(set) var requests: [HTTPRequest] = []
    package private(set) var problems: [String] = []
    /// Answers before the built-in routes when it returns non-nil.
    package var script: (@Sendable (Int, HTTPRequest) -> HTTPResponse?)?
    private var server: HTTPServer!
    package var base = ""

    package init() throws {
        server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0)) { [unowned self] in self.handle($0) }
        try server.start()
        base = "http://127.0.0.1:\(server.port)/v2/projects/\(Self.project)"
    }

    package func stop() {
        server.stop()
        server.wait()
    }

    package var paths: [String] { lock.lock(); defer { lock.unlock() }; return requests.map(\.target) }

    package static func ms(_ iso: String) -> JSONValue { .number(String(ISODate.parse(iso)!.seconds * 1000)) }

    package static func error(_ status: Int, _ type: String, _ message: String, param: String? = nil) -> HTTPResponse {
        .json(.object(JSONObject([
            ("object", .string("error")), ("type", .string(type)), ("param", param.map { .string($0) } ?? .null),
            ("doc_url", .string("https://errors.rev.cat/\(type)")), ("message", .string(message)),
            ("retryable", .bool(status == 429)),
        ])), status: status, headers: [("Date", date)])
    }

    private func handle(_ r: HTTPRequest) -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        requests.append(r)
        func expect(_ ok: Bool, _ what: String) { if !ok { problems.append("\(r.method) \(r.target): \(what)") } }
        expect(r.method == "GET", "not a GET")
        expect(r.headers["Authorization"] == "Bearer \(Self.key)", "Authorization is \(r.headers["Authorization"] ?? "absent")")
        expect(r.headers["X-Platform"] == nil, "X-Platform sent")
        expect(r.body.isEmpty, "a body")
        if let scripted = script?(requests.count, r) { return scripted }
        guard let segments = r.pathSegments, segments.count >= 3, segments[0] == "v2", segments[1] == "projects",
              segments[2] == Self.project else {
            return .json(.object(JSONObject([("object", .string("error")), ("type", .string("resource_missing")),
                                             ("param", .string("project_id")), ("message", .string("Project not found")),
                                             ("retryable", .bool(false))])), status: 404)
        }
        let query = Self.query(r.query)
        let rest = Array(segments.dropFirst(3))
        switch rest.count {
        case 1 where rest[0] == "customers":
            // RevenueCat's search: the exact `$email` value, an app user id, a store id. The items
            // are customers without their attributes (the list takes no `expand`).
            guard let term = query["search"], !term.isEmpty else {
                problems.append("a customer list without search")
                return Self.error(400, "parameter_error", "search is required")
            }
            let items = customers.keys.sorted().compactMap { id -> JSONValue? in
                let c = customers[id]!
                let email = c.body["attributes"]?["items"]?.arrayValue?.first { $0["name"]?.stringValue == "$email" }?["value"]?.stringValue
                guard email == term || id == term || c.searchable.contains(term), var object = c.body.objectValue else { return nil }
                object["attributes"] = nil
                return .object(object)
            }
            return page(items, path: r.path, query: query, expect: expect)
        case 2 where rest[0] == "customers":
            expect(query["expand"] == "attributes", "customer asked without expand=attributes")
            guard let c = customers[rest[1]] else { return Self.error(404, "resource_missing", "Resource not found") }
            return .json(c.body, headers: [("Date", Self.date)])
        case 3 where rest[0] == "customers":
            guard let c = customers[rest[1]] else { return Self.error(404, "resource_missing", "Resource not found") }
            let items: [JSONValue]
            switch rest[2] {
            case "subscriptions": items = c.subscriptions
            case "purchases": items = c.purchases
            case "active_entitlements": items = c.body["active_entitlements"]?["items"]?.arrayValue ?? []
            default: return Self.error(404, "resource_missing", "Resource not found")
            }
            return page(items, path: r.path, query: query, expect: expect)
        case 3 where rest[0] == "subscriptions" && rest[2] == "transactions":
            guard let list = transactions[rest[1]] else { return Self.error(404, "resource_missing", "Resource not found") }
            return page(list, path: r.path, query: query, expect: expect)
        default:
            problems.append("unexpected request \(r.method) \(r.target)")
            return Self.error(404, "resource_missing", "Resource not found")
        }
    }

    /// The items after `starting_after` (an item id, or for active entitlements an entitlement id).
    private func page(_ all: [JSONValue], path: String, query: [String: String], expect: (Bool, String) -> Void) -> HTTPResponse {
        expect(query["limit"] == "100", "limit is \(query["limit"] ?? "absent")")
        let idOf = { (v: JSONValue) in v["id"]?.stringValue ?? v["entitlement_id"]?.stringValue ?? "" }
        var start = 0
        if let after = query["starting_after"] {
            guard let i = all.firstIndex(where: { idOf($0) == after }) else {
                return Self.error(400, "parameter_error", "starting_after not found")
            }
            start = i + 1
        }
        let items = Array(all[start..<min(all.count, start + pageSize)])
        let more = start + pageSize < all.count
        let next: JSONValue = more ? .string(path + "?starting_after=" + RemoteURL.segment(idOf(items.last!))) : .null
        return .json(.object(JSONObject([("object", .string("list")), ("items", .array(items)), ("next_page", next),
                                         ("url", .string(path))])), headers: [("Date", Self.date)])
    }

    package static func query(_ text: String?) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (text ?? "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            out[String(kv[0])] = kv.count > 1 ? String(kv[1]).removingPercentEncoding : ""
        }
        return out
    }

    // MARK: building answers

    package static func list(_ items: [JSONValue], next: String? = nil) -> JSONValue {
        .object(JSONObject([("object", .string("list")), ("items", .array(items)), ("next_page", next.map { .string($0) } ?? .null),
                            ("url", .string("/v2/projects/\(project)/x"))]))
    }

    package static func customer(_ id: String, firstSeen: String = "2025-06-01T08:00:00Z", active: [(String, String?)],
                         attributes: [(String, String)] = []) -> JSONValue {
        .object(JSONObject([
            ("object", .string("customer")), ("id", .string(id)), ("project_id", .string(project)),
            ("first_seen_at", ms(firstSeen)), ("last_seen_at", ms("2026-11-30T10:00:00Z")),
            ("last_seen_app_version", .string("1.0.0")), ("last_seen_country", .string("US")),
            ("last_seen_platform", .string("iOS")), ("last_seen_platform_version", .string("18.1")),
            ("active_entitlements", list(active.map { e in
                .object(JSONObject([("object", .string("customer.active_entitlement")), ("entitlement_id", .string(e.0)),
                                    ("expires_at", e.1.map(ms) ?? .null)]))
            })),
            ("experiment", .null),
            ("attributes", list(attributes.map { a in
                .object(JSONObject([("object", .string("customer.attribute")), ("name", .string(a.0)), ("value", .string(a.1)),
                                    ("updated_at", ms("2026-01-01T00:00:00Z"))]))
            })),
        ]))
    }

    package static func entitlements(_ refs: [(String, String)]) -> JSONValue {
        list(refs.map { r in
            .object(JSONObject([("object", .string("entitlement")), ("project_id", .string(project)), ("id", .string(r.0)),
                                ("lookup_key", .string(r.1)), ("display_name", .string(r.1.capitalized)),
                                ("created_at", ms("2024-01-01T00:00:00Z"))]))
        })
    }

    package static func money(_ currency: String, _ gross: String) -> JSONValue {
        .object(JSONObject([("currency", .string(currency)), ("gross", .number(gross)), ("commission", .number("0")),
                            ("tax", .number("0")), ("proceeds", .number(gross))]))
    }

    package static func subscription(_ id: String, customer: String, product: String?, store: String, starts: String, periodStarts: String,
                             periodEnds: String?, givesAccess: Bool, renewal: String, status: String,
                             entitlements refs: [(String, String)], storeId: String, environment: String = "production",
                             ownership: String = "purchased", pending: String? = nil) -> JSONValue {
        .object(JSONObject([
            ("object", .string("subscription")), ("id", .string(id)), ("customer_id", .string(customer)),
            ("original_customer_id", .string(customer)), ("product_id", product.map { .string($0) } ?? .null),
            ("starts_at", ms(starts)), ("current_period_starts_at", ms(periodStarts)),
            ("current_period_ends_at", periodEnds.map(ms) ?? .null), ("ends_at", periodEnds.map(ms) ?? .null),
            ("gives_access", .bool(givesAccess)), ("pending_payment", .bool(false)), ("auto_renewal_status", .string(renewal)),
            ("status", .string(status)), ("total_revenue_in_usd", money("USD", "29.97")), ("presented_offering_id", .null),
            ("entitlements", entitlements(refs)), ("environment", .string(environment)), ("store", .string(store)),
            ("store_subscription_identifier", .string(storeId)), ("ownership", .string(ownership)),
            ("pending_changes", pending.map { p in
                .object(JSONObject([("product", .object(JSONObject([("object", .string("product")), ("id", .string("prod_next")),
                                                                     ("store_identifier", .string(p))])))]))
            } ?? .null),
            ("country", .string("US")), ("management_url", .null),
        ]))
    }

    package static func purchase(_ id: String, customer: String, product: String, at: String, status: String = "owned",
                         entitlements refs: [(String, String)], store: String = "app_store", storeId: String,
                         revenue: JSONValue) -> JSONValue {
        .object(JSONObject([
            ("object", .string("purchase")), ("id", .string(id)), ("customer_id", .string(customer)),
            ("original_customer_id", .string(customer)), ("product_id", .string(product)), ("purchased_at", ms(at)),
            ("revenue_in_usd", revenue), ("quantity", .number("1")), ("status", .string(status)),
            ("presented_offering_id", .null), ("entitlements", entitlements(refs)), ("environment", .string("production")),
            ("store", .string(store)), ("store_purchase_identifier", .string(storeId)), ("ownership", .string("purchased")),
            ("country", .string("US")),
        ]))
    }

    package static func transaction(_ id: String, at: String, product: String, expires: String, effective: String? = nil,
                            local: JSONValue? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("object", .string("subscription_transaction")), ("id", .string(id)), ("purchased_at", ms(at)),
            ("product_store_identifier", .string(product)), ("expiration_date", ms(expires)),
            ("effective_expiration_date", ms(effective ?? expires)),
        ]
        if let local { members.append(("revenue_in_local_currency", local)) }
        return .object(JSONObject(members))
    }
}
