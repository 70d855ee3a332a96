// The route table of the subs REST API: what `SubsAPI` dispatches on and what the OpenAPI
// description (`OpenAPIDocument`, GET /v1/openapi.json, docs/openapi.json) is generated from —
// one table, so the description cannot drift from what the server answers. A route is a method,
// a path template, the scope its token needs (none: no token), the query parameters it takes,
// its body and every answer it may give.

import SubsJSON

/// What a token may do (SPEC section 6 rev. 4, "Tokens"): each scope is what it says and no more.
public enum TokenScope: String, CaseIterable, Sendable, Comparable {
    case read, write, admin

    public static func < (a: TokenScope, b: TokenScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The work a route names (the handler `SubsAPI.handle` runs).
enum RouteAction: Sendable {
    case index, health, openAPI, customer, entitlements, history, renewCount, search, grant, revoke, audit
}

/// A query parameter: its name, what its value is (a JSON Schema), and what it does.
struct QueryParameterSpec: Sendable {
    var name: String
    var schema: JSONValue
    var description: String
    var required = false
}

/// One answer a route may give: its status, what it means, the schema of its body (a
/// component's name) and, for a 200, the example made from the demo store.
struct RouteAnswer: Sendable {
    var status: Int
    var description: String
    var schema: String
    /// Error codes this status carries on this route (`{"error": {"code"}}`).
    var codes: [String] = []
}

struct APIRoute: Sendable {
    var method: String
    /// `/v1/customers/{id}/history`: literal segments and `{name}` parameters, one segment each.
    var path: String
    var action: RouteAction
    var operationId: String
    var summary: String
    var description: String
    /// The scope a token needs; nil: no token (health, the description, the route list).
    var scope: TokenScope?
    var query: [QueryParameterSpec] = []
    /// The body's component name (POST routes).
    var body: String?
    var answers: [RouteAnswer]

    var segments: [Substring] { path.split(separator: "/", omittingEmptySubsequences: true) }

    /// The path parameters of `segments` if this route's template matches them (nil: it does not).
    func match(_ segments: [String]) -> [String]? {
        let template = self.segments
        guard template.count == segments.count else { return nil }
        var parameters: [String] = []
        for (part, segment) in zip(template, segments) {
            if part.hasPrefix("{") {
                guard !segment.isEmpty else { return nil }
                parameters.append(segment)
            } else if part != segment {
                return nil
            }
        }
        return parameters
    }

    var queryNames: [String] { query.map(\.name) }
}

enum APIRoutes {
    // Parameters shared by routes: one meaning everywhere.
    /// The DATE forms of SPEC section 1 (`--at`), exactly: a valid calendar day (leap years
    /// too) of years 0001-9999, with a time of day and Z or an offset, or alone; or `now`.
    static let datePattern: String = {
        let year = "(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})"
        let leapYear = "([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)"
        let monthDay = "((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))"
        let day = "(\(year)-\(monthDay)|\(leapYear)-02-29)"
        let time = "([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?"
        let offset = "(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
        return "^(now|\(day)|\(day)[T ]\(time)\(offset))$"
    }()
    static let dateSchema: JSONValue = .object(JSONObject([("type", .string("string")), ("pattern", .string(datePattern)),
                                                           ("examples", .array([.string("2026-12-01T12:00:00Z")]))]))
    static let at = QueryParameterSpec(
        name: "at", schema: dateSchema,
        description: "The instant the answer is evaluated at, in the forms of --at: 2026-03-01T12:00:00Z (fractional seconds "
            + "and +hh:mm offsets too), 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 (midnight UTC) or now. "
            + "Default: the server's clock. A route that cannot use it refuses it (400).")
    static let environment = QueryParameterSpec(
        name: "environment",
        schema: .object(JSONObject([("type", .string("string")), ("enum", .array(["production", "sandbox", "any"].map { .string($0) }))])),
        description: "Which purchases count, as check --environment: production, sandbox or any (the default). Grants always count.")
    static let entitlement = QueryParameterSpec(
        name: "entitlement", schema: .object(JSONObject([("type", .string("string")), ("minLength", .number("1"))])),
        description: "Only what concerns this entitlement id (compared by its bytes).")
    static let since = QueryParameterSpec(
        name: "since", schema: at.schema, description: "Only entries from this date on (the forms of at).")
    static let until = QueryParameterSpec(
        name: "until", schema: at.schema, description: "Only entries up to this date (the forms of at; default: at, else now).")

    static let unauthorized = RouteAnswer(status: 401, description: "No bearer token, or not one of the server's", schema: "Error",
                                          codes: ["unauthorized"])
    static func forbidden(_ scope: TokenScope) -> RouteAnswer {
        RouteAnswer(status: 403, description: "The token lacks the \(scope.rawValue) scope", schema: "Error", codes: ["forbidden"])
    }
    static let invalid = RouteAnswer(status: 400, description: "A query parameter or body the route refuses (the message names it)",
                                     schema: "Error", codes: ["invalid_request"])
    static let storeFailure = RouteAnswer(status: 500, description: "The store cannot be served", schema: "Error",
                                          codes: ["invalid_store", "store_unreadable", "internal"])
    static let busy = RouteAnswer(status: 503, description: "Busy: try again (Retry-After)", schema: "Error", codes: ["busy"])
    static let customerNotFound = RouteAnswer(status: 404, description: "No customer has this id or alias", schema: "Error",
                                              codes: ["customer_not_found"])

    /// Every route, in the order the description lists them.
    static let all: [APIRoute] = [
        APIRoute(method: "GET", path: "/", action: .index, operationId: "listRoutesRoot",
                 summary: "The routes of this API",
                 description: "Every route: method, path, scope and summary (the same list as GET /v1).",
                 scope: nil, answers: [RouteAnswer(status: 200, description: "The routes", schema: "RouteList")]),
        APIRoute(method: "GET", path: "/v1", action: .index, operationId: "listRoutes",
                 summary: "The routes of this API",
                 description: "Every route: method, path, scope and summary.",
                 scope: nil, answers: [RouteAnswer(status: 200, description: "The routes", schema: "RouteList")]),
        APIRoute(method: "GET", path: "/v1/health", action: .health, operationId: "health",
                 summary: "Whether the server answers", description: "Needs no token.",
                 scope: nil, answers: [RouteAnswer(status: 200, description: "The server answers", schema: "Health")]),
        APIRoute(method: "GET", path: "/v1/openapi.json", action: .openAPI, operationId: "openAPI",
                 summary: "This description", description: "The OpenAPI 3.1 description of every route, generated from the route "
                    + "table the server dispatches on. Needs no token.",
                 scope: nil, answers: [RouteAnswer(status: 200, description: "The OpenAPI description", schema: "OpenAPI")]),
        APIRoute(method: "GET", path: "/v1/customers", action: .search, operationId: "findCustomers",
                 summary: "Find customers (subs find)",
                 description: "The find document for one term: customers whose id, alias, email, transaction id or attribute "
                    + "(with attribute) matches, one page at a time.",
                 scope: .read,
                 query: [
                    QueryParameterSpec(name: "search", schema: .object(JSONObject([("type", .string("string")), ("minLength", .number("1"))])),
                                       description: "The term: an id, alias, email, transaction id or attribute value.", required: true),
                    QueryParameterSpec(name: "attribute", schema: .object(JSONObject([("type", .string("string")), ("minLength", .number("1"))])),
                                       description: "Also match the value of this attribute key."),
                    at,
                    QueryParameterSpec(name: "limit", schema: .object(JSONObject([("type", .string("integer")), ("minimum", .number("1")),
                                                                                   ("maximum", .number("10000"))])),
                                       description: "Matches per page (default 1000)."),
                    QueryParameterSpec(name: "cursor", schema: .object(JSONObject([("type", .string("string")), ("pattern", .string("^[A-Za-z0-9_-]+$"))])),
                                       description: "The next of the previous page, as it was given."),
                 ],
                 answers: [RouteAnswer(status: 200, description: "The find document (no match: an empty matches)", schema: "FindDocument"),
                           invalid, unauthorized, forbidden(.read), storeFailure, busy]),
        APIRoute(method: "GET", path: "/v1/customers/{id}", action: .customer, operationId: "getCustomer",
                 summary: "A customer's record and the catalog",
                 description: "The record as stored, with the catalog, for a client that evaluates it itself (subs --remote). "
                    + "requestDate is the instant to evaluate it at: at, else the server's clock.",
                 scope: .read, query: [at],
                 answers: [RouteAnswer(status: 200, description: "The record", schema: "CustomerRecordAnswer"),
                           invalid, unauthorized, forbidden(.read), customerNotFound, storeFailure, busy]),
        APIRoute(method: "GET", path: "/v1/customers/{id}/entitlements", action: .entitlements, operationId: "getEntitlements",
                 summary: "A customer's entitlements (subs check)",
                 description: "check's JSON document for the customer (the same bytes subs check --format json prints), "
                    + "evaluated at at (default: the server's clock).",
                 scope: .read, query: [at, environment],
                 answers: [RouteAnswer(status: 200, description: "check's document", schema: "CheckDocument"),
                           invalid, unauthorized, forbidden(.read), customerNotFound, storeFailure, busy]),
        APIRoute(method: "GET", path: "/v1/customers/{id}/history", action: .history, operationId: "getHistory",
                 summary: "What happened to a customer (subs history)",
                 description: "history's JSON document: entries up to until (default: at, else now), from since on.",
                 scope: .read, query: [at, since, until, entitlement],
                 answers: [RouteAnswer(status: 200, description: "history's document", schema: "HistoryDocument"),
                           invalid, unauthorized, forbidden(.read),
                           RouteAnswer(status: 404, description: "No such customer, or no product unlocks the entitlement",
                                       schema: "Error", codes: ["customer_not_found", "entitlement_not_found"]),
                           storeFailure, busy]),
        APIRoute(method: "GET", path: "/v1/customers/{id}/renew-count", action: .renewCount, operationId: "getRenewCount",
                 summary: "How many times a customer renewed (subs renew-count)",
                 description: "renew-count's JSON document, at at (default: the server's clock).",
                 scope: .read, query: [at, entitlement],
                 answers: [RouteAnswer(status: 200, description: "renew-count's document", schema: "RenewCountDocument"),
                           invalid, unauthorized, forbidden(.read),
                           RouteAnswer(status: 404, description: "No such customer, or the customer never had the entitlement",
                                       schema: "Error", codes: ["customer_not_found", "entitlement_not_found"]),
                           storeFailure, busy]),
        APIRoute(method: "POST", path: "/v1/customers/{id}/grants", action: .grant, operationId: "grant",
                 summary: "Grant an entitlement (subs grant)",
                 description: "Grants the entitlement until expirationDate (null: lifetime). grantedBy is the token's name; a body "
                    + "naming someone else needs the admin scope, and then both are kept (grantedBy, onBehalfOf). "
                    + "An Idempotency-Key header makes a retry safe.",
                 scope: .write, body: "GrantRequest",
                 answers: [RouteAnswer(status: 201, description: "The record as the grant left it", schema: "CustomerRecordAnswer"),
                           invalid, unauthorized, forbidden(.write),
                           RouteAnswer(status: 404, description: "No such customer (send create), or no product unlocks the entitlement",
                                       schema: "Error", codes: ["customer_not_found", "entitlement_not_found"]),
                           RouteAnswer(status: 413, description: "The body is too large", schema: "Error", codes: ["payload_too_large"]),
                           RouteAnswer(status: 422, description: "The Idempotency-Key came first with another request", schema: "Error",
                                       codes: ["idempotency_key_reused"]),
                           RouteAnswer(status: 500, description: "The store cannot be written", schema: "Error",
                                       codes: ["invalid_store", "store_unreadable", "store_unwritable", "internal"]),
                           busy]),
        APIRoute(method: "POST", path: "/v1/customers/{id}/entitlements/{entitlement}/revoke", action: .revoke,
                 operationId: "revoke", summary: "Revoke a grant (subs revoke)",
                 description: "Revokes the customer's active grants of the entitlement. revokedBy is the token's name; a body "
                    + "naming someone else needs the admin scope (then revokedBy and onBehalfOf are kept). The body may be empty.",
                 scope: .write, body: "RevokeRequest",
                 answers: [RouteAnswer(status: 200, description: "The record as the revoke left it", schema: "CustomerRecordAnswer"),
                           invalid, unauthorized, forbidden(.write),
                           RouteAnswer(status: 404, description: "No such customer, or no active grant of the entitlement",
                                       schema: "Error", codes: ["customer_not_found", "grant_not_found", "entitlement_not_found"]),
                           RouteAnswer(status: 413, description: "The body is too large", schema: "Error", codes: ["payload_too_large"]),
                           RouteAnswer(status: 422, description: "The Idempotency-Key came first with another request", schema: "Error",
                                       codes: ["idempotency_key_reused"]),
                           RouteAnswer(status: 500, description: "The store cannot be written", schema: "Error",
                                       codes: ["invalid_store", "store_unreadable", "store_unwritable", "internal"]),
                           busy]),
        APIRoute(method: "GET", path: "/v1/audit", action: .audit, operationId: "getAuditLog",
                 summary: "Who wrote what (subs audit)",
                 description: "The audit log's lines, oldest first: one per write (time, actor — the token's name —, "
                    + "onBehalfOf, action, customer, entitlement, reason, request id, Idempotency-Key, result). Needs admin.",
                 scope: .admin,
                 query: [
                    QueryParameterSpec(name: "since", schema: dateSchema, description: "Only lines from this date on (the forms of at)."),
                    QueryParameterSpec(name: "actor", schema: .object(JSONObject([("type", .string("string"))])),
                                       description: "Only the writes of this token's name (or local actor), by its bytes."),
                    QueryParameterSpec(name: "customer", schema: .object(JSONObject([("type", .string("string")), ("minLength", .number("1"))])),
                                       description: "Only the writes to this customer id (as written in the log: the customer's id, not an alias)."),
                 ],
                 answers: [RouteAnswer(status: 200, description: "The audit lines", schema: "AuditDocument"),
                           invalid, unauthorized, forbidden(.admin),
                           RouteAnswer(status: 500, description: "The audit log cannot be read", schema: "Error", codes: ["store_unreadable"])]),
    ]

    /// What a request's path and method lead to.
    enum Dispatch {
        case route(APIRoute, parameters: [String])
        /// The path is a route's, the method none of its: 405 with `Allow`.
        case methodNotAllowed(allow: [String])
        case notFound
    }

    static func dispatch(method: String, segments: [String]) -> Dispatch {
        var allowed: [String] = []
        for route in all {
            guard let parameters = route.match(segments) else { continue }
            // HEAD is a GET without its body (RFC 9110), on every GET route.
            if route.method == method || (method == "HEAD" && route.method == "GET") { return .route(route, parameters: parameters) }
            allowed.append(route.method)
            if route.method == "GET" { allowed.append("HEAD") }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allow: allowed)
    }
}
