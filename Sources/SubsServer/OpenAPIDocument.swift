// The OpenAPI 3.1 description of the subs REST API, generated from the route table the server
// dispatches on (`APIRoutes.all`): every route, its parameters, body, answers and error codes,
// with examples made from the demo store at 2026-12-01T12:00:00Z by the same code that answers
// (the documents of the model, the rules). Served at GET /v1/openapi.json and kept in the
// repository as docs/openapi.json (a test fails when they differ). GET / and GET /v1 list the
// routes from the same table.

import SubsJSON
import SubsHTTP
import SubsModel
import SubsStore

enum OpenAPIDocument {
    /// The description, pretty-printed as the repository keeps it.
    static let text: String = JSONWriter.pretty(document) + "\n"

    static let answer = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(text.utf8))

    static var document: JSONValue {
        // Path templates in the table's order, each with its operations.
        var byPath: [(path: String, operations: [(String, JSONValue)])] = []
        for route in APIRoutes.all {
            var operations = [(route.method.lowercased(), operation(route, head: false))]
            if route.method == "GET" { operations.append(("head", operation(route, head: true))) }
            if let i = byPath.firstIndex(where: { $0.path == route.path }) {
                byPath[i].operations += operations
            } else {
                byPath.append((route.path, operations))
            }
        }
        let paths = byPath.map { ($0.path, object($0.operations)) }
        return object([
            ("openapi", .string("3.1.0")),
            ("info", object([
                ("title", .string("subs REST API")),
                ("version", .string("1")),
                ("summary", .string("Customers' subscription status (entitlements) over one local subs store, served by subs serve.")),
                ("description", .string("Every request but the public routes (health, this description, the route list) carries "
                    + "Authorization: Bearer TOKEN; each token has a name and scopes (read, write, admin). Every answer carries "
                    + "Subs-Request-Id. Ids in paths are percent-encoded as one segment and compared by their bytes. Errors are "
                    + "{\"error\": {\"code\", \"message\"}}. Generated from the route table subs serve dispatches on.")),
                ("license", object([("name", .string("MIT")), ("identifier", .string("MIT"))])),
            ])),
            ("servers", .array([object([("url", .string("http://127.0.0.1:8787")), ("description", .string("subs serve's default address"))])])),
            ("security", .array([object([("bearer", .array([]))])])),
            ("paths", object(paths)),
            ("components", object([
                ("securitySchemes", object([("bearer", object([
                    ("type", .string("http")), ("scheme", .string("bearer")),
                    ("description", .string("A token of subs serve's --token-file (NAME SCOPES TOKEN lines) or SUBS_SERVER_TOKEN. "
                        + "The scope an operation needs is named in its security requirement.")),
                ]))])),
                ("headers", object([
                    ("RequestId", object([("description", .string("This request's id, also in the server's log line")),
                                          ("required", .bool(true)),
                                          ("schema", object([("type", .string("string")), ("pattern", .string("^req_[0-9a-f]{16}$"))]))])),
                ])),
                ("schemas", object(Schemas.all)),
            ])),
        ])
    }

    private static func operation(_ route: APIRoute, head: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("operationId", .string(head ? route.operationId + "Head" : route.operationId)),
            ("summary", .string(head ? route.summary + " (headers only)" : route.summary)),
            ("description", .string(route.description)),
        ]
        var parameters: [JSONValue] = route.segments.filter { $0.hasPrefix("{") }.map { part in
            let name = String(part.dropFirst().dropLast())
            return object([
                ("name", .string(name)), ("in", .string("path")), ("required", .bool(true)),
                ("description", .string(name == "id" ? "A customer id or alias (its bytes)" : "An entitlement id (its bytes)")),
                ("schema", object([("type", .string("string")), ("minLength", .number("1"))])),
                ("example", .string(name == "id" ? "erin" : "premium")),
            ])
        }
        parameters += route.query.map { p in
            object([("name", .string(p.name)), ("in", .string("query")), ("required", .bool(p.required)),
                    ("description", .string(p.description)), ("schema", p.schema)])
        }
        if !parameters.isEmpty { members.append(("parameters", .array(parameters))) }
        if let body = route.body, !head {
            members.append(("requestBody", object([
                ("required", .bool(route.action == .grant)),
                ("content", object([("application/json", object([("schema", reference(body))]))])),
            ])))
        }
        var answers: [(String, JSONValue)] = []
        for answer in route.answers {
            var response: [(String, JSONValue)] = [("description", .string(answer.codes.isEmpty
                ? answer.description : answer.description + " (" + answer.codes.joined(separator: ", ") + ")"))]
            var headers: [(String, JSONValue)] = [("Subs-Request-Id", object([("$ref", .string("#/components/headers/RequestId"))]))]
            if answer.status == 401 {
                headers.append(("WWW-Authenticate", object([("schema", object([("type", .string("string"))]))])))
            }
            if answer.status == 503 {
                headers.append(("Retry-After", object([("schema", object([("type", .string("string"))]))])))
            }
            response.append(("headers", object(headers)))
            if !head {
                var media: [(String, JSONValue)] = [("schema", reference(answer.schema))]
                if answer.status < 300, let example = Examples.of(route.action) { media.append(("example", example)) }
                response.append(("content", object([("application/json", object(media))])))
            }
            answers.append((String(answer.status), object(response)))
        }
        members.append(("responses", object(answers)))
        if let scope = route.scope {
            members.append(("security", .array([object([("bearer", .array([.string(scope.rawValue)]))])])))
        } else {
            members.append(("security", .array([])))
        }
        return object(members)
    }

    static func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(members)) }
    static func reference(_ name: String) -> JSONValue { object([("$ref", .string("#/components/schemas/" + name))]) }
}

extension APIRoutes {
    /// GET / and GET /v1: `{"routes": [{"method", "path", "scope", "summary"}]}`, `scope` null
    /// for a route that needs no token.
    static let listing: JSONValue = .object(JSONObject([
        ("routes", .array(all.map { route in
            .object(JSONObject([("method", .string(route.method)), ("path", .string(route.path)),
                                ("scope", route.scope.map { .string($0.rawValue) } ?? .null),
                                ("summary", .string(route.summary))]))
        })),
        ("openapi", .string("/v1/openapi.json")),
    ]))
}

/// The JSON Schemas of the bodies, written from the documents' builders' keys (SPEC section 4).
enum Schemas {
    static func object(_ members: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(members)) }
    static let string = object([("type", .string("string"))])
    static let nullableString = object([("type", .array([.string("string"), .string("null")]))])
    static let boolean = object([("type", .string("boolean"))])
    static let nullableInteger = object([("type", .array([.string("integer"), .string("null")]))])
    static let strings = object([("type", .string("array")), ("items", string)])

    static func closed(_ properties: [(String, JSONValue)], required: [String]? = nil, open: Bool = false) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("type", .string("object")),
            ("required", .array((required ?? properties.map(\.0)).map { .string($0) })),
            ("properties", object(properties)),
        ]
        if !open { members.append(("additionalProperties", .bool(false))) }
        return object(members)
    }

    static let dates = ["startedDate", "trialStartDate", "firstPurchaseDate", "lastPurchaseDate", "expirationDate", "accessEndDate",
                        "gracePeriodExpirationDate", "billingIssueDetectedAt", "billingRetryEndDate", "autoRenewDisableDate",
                        "autoResumeDate", "pauseEndedDate", "refundedAt", "revokedAt"]

    static let entitlement: JSONValue = closed([
        ("id", string), ("isActive", boolean), ("state", string), ("renewState", string), ("willRenew", boolean),
        ("periodType", string), ("source", string), ("grantType", string), ("productId", nullableString),
        ("startedDate", nullableString), ("trialStartDate", nullableString), ("firstPurchaseDate", nullableString),
        ("lastPurchaseDate", nullableString), ("expirationDate", nullableString), ("accessEndDate", nullableString),
        ("gracePeriodExpirationDate", nullableString), ("billingIssueDetectedAt", nullableString),
        ("billingRetryEndDate", nullableString), ("autoRenewDisableDate", nullableString), ("autoResumeDate", nullableString),
        ("pauseEndedDate", nullableString), ("renewalProductId", nullableString), ("renewsCount", nullableInteger),
        ("isSandbox", boolean), ("lastActivatedOfferCode", nullableString), ("grantId", nullableString),
        ("grantedBy", nullableString), ("grantReason", nullableString), ("refundedAt", nullableString),
        ("revokedAt", nullableString), ("revokedBy", nullableString), ("revokeReason", nullableString),
        ("transactions", object([("type", .string("array")), ("items", closed([
            ("transactionId", nullableString), ("originalTransactionId", nullableString), ("productId", nullableString),
            ("type", string), ("transactionDate", nullableString), ("expirationDate", nullableString), ("source", string),
            ("environment", string), ("ownershipType", string), ("offerCode", nullableString), ("orderId", nullableString),
            ("transactionRevocationDate", nullableString), ("price", nullableString), ("currency", nullableString),
        ]))])),
        ("otherActiveSources", object([("type", .string("array")), ("items", closed([
            ("productId", nullableString), ("source", string), ("expirationDate", nullableString), ("renewState", string),
        ]))])),
    ])

    static let all: [(String, JSONValue)] = [
        ("Error", closed([("error", closed([("code", string), ("message", string)]))])),
        ("Health", closed([("status", string)], open: true)),
        ("RouteList", closed([
            ("routes", object([("type", .string("array")), ("items", closed([
                ("method", string), ("path", string), ("scope", nullableString), ("summary", string),
            ]))])),
            ("openapi", string),
        ])),
        ("OpenAPI", closed([("openapi", string), ("info", object([("type", .string("object"))])),
                            ("paths", object([("type", .string("object"))]))], open: true)),
        ("CustomerRecordAnswer", closed([
            ("requestDate", string),
            ("customer", closed([("id", string)], open: true)),
            ("products", object([("type", .string("object"))])),
        ])),
        ("CheckDocument", closed([
            ("customerId", string), ("requestedId", string), ("requestDate", string), ("projected", boolean),
            ("aliases", strings), ("firstSeen", nullableString),
            ("attributes", object([("type", .array([.string("object"), .string("null")]))])),
            ("activeEntitlements", strings),
            ("entitlements", object([("type", .string("object")), ("additionalProperties", reference("Entitlement"))])),
            ("totalSpent", object([("type", .array([.string("array"), .string("null")])), ("items", closed([
                ("currency", nullableString), ("amount", nullableString), ("payments", nullableInteger),
                ("refunded", nullableInteger), ("complete", boolean), ("incompleteReason", nullableString),
            ]))])),
        ])),
        ("Entitlement", entitlement),
        ("HistoryDocument", closed([
            ("customerId", string), ("requestedId", string), ("requestDate", string), ("provider", string),
            ("complete", boolean), ("incompleteReason", nullableString),
            ("entries", object([("type", .string("array")), ("items", object([
                ("type", .string("object")),
                ("required", .array(["date", "kind", "type", "entitlements"].map { .string($0) })),
                ("properties", object([("date", string), ("kind", string), ("type", string), ("entitlements", strings)])),
                // The keys each kind of entry carries: strings or null (SPEC section 4).
                ("additionalProperties", nullableString),
            ]))])),
        ])),
        ("RenewCountDocument", closed([
            ("customerId", string), ("requestedId", string), ("requestDate", string), ("complete", boolean),
            ("incompleteReason", nullableString), ("entitlement", nullableString), ("renewsCount", nullableInteger),
            ("byEntitlement", object([("type", .string("object")), ("additionalProperties", nullableInteger)])),
        ])),
        ("FindDocument", closed([
            ("term", string),
            ("matches", object([("type", .string("array")), ("items", closed([
                ("customerId", string), ("matchedBy", string), ("email", nullableString), ("activeEntitlements", strings),
            ]))])),
            ("next", string),
        ], required: ["term", "matches"])),
        ("GrantRequest", closed([
            ("entitlement", object([("type", .string("string")), ("minLength", .number("1"))])),
            ("expirationDate", object([("type", .array([.string("string"), .string("null")])), ("format", .string("date-time")),
                                       ("description", .string("ISO 8601, in the future; null: a lifetime grant"))])),
            ("reason", nullableString),
            ("grantedBy", nullableString),
            ("create", object([("type", .array([.string("boolean"), .string("null")]))])),
        ], required: ["entitlement", "expirationDate"])),
        ("AuditDocument", closed([
            ("entries", object([("type", .string("array")), ("items", reference("AuditEntry"))])),
        ])),
        ("AuditEntry", closed([
            ("time", string), ("actor", string), ("user", nullableString), ("onBehalfOf", nullableString), ("via", string),
            ("action", string), ("customer", string), ("entitlement", string), ("reason", nullableString),
            ("requestId", nullableString), ("idempotencyKey", nullableString), ("result", string),
        ])),
        ("RevokeRequest", closed([("reason", nullableString), ("revokedBy", nullableString)], required: [])),
    ]

    static func reference(_ name: String) -> JSONValue { object([("$ref", .string("#/components/schemas/" + name))]) }
}

/// The examples of the 200 answers: the demo store (`subs store init --demo`) at
/// 2026-12-01T12:00:00Z, answered by the code that answers requests.
enum Examples {
    static let instant = ISODate.parse("2026-12-01T12:00:00Z")!

    static func of(_ action: RouteAction) -> JSONValue? {
        switch action {
        case .health: return .object(JSONObject([("status", .string("ok"))]))
        case .index: return APIRoutes.listing
        case .customer, .grant, .revoke: return demo.record
        case .entitlements: return demo.entitlements
        case .history: return demo.history
        case .renewCount: return demo.renewCount
        case .search: return demo.search
        case .openAPI, .audit: return nil
        }
    }

    private struct Demo {
        var record, entitlements, history, renewCount, search: JSONValue?
    }

    private static let demo: Demo = {
        var out = Demo()
        guard let root = try? JSON.parse(DemoStore.json), let customers = root.objectValue?["customers"]?.objectValue else { return out }
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(root.objectValue?["products"])
        func record(_ id: String) -> CustomerRecord? {
            guard let value = customers[id] else { return nil }
            return decoder.customer(id: ID(id), value, catalog: catalog, path: JSONPath.member("customers", ID(id)))
        }
        if let value = customers["erin"], let erin = record("erin") {
            var members: [(String, JSONValue)] = [("id", .string("erin"))]
            for member in value.objectValue?.members ?? [] where member.key != "id" { members.append((member.key, member.value)) }
            out.record = .object(JSONObject([("requestDate", .string(ISODate.format(instant))),
                                             ("customer", .object(JSONObject(members))),
                                             ("products", root.objectValue?["products"] ?? .null)]))
            out.entitlements = Documents.check(EntitlementRules.status(of: erin, catalog: catalog, at: instant), activeOnly: false)
            out.history = Documents.history(customerId: erin.id, requestedId: erin.id, requestDate: instant, provider: "store",
                                            incompleteReason: nil, entries: History.entries(of: erin, catalog: catalog, until: instant))
        }
        if let alice = record("alice") {
            let status = EntitlementRules.status(of: alice, catalog: catalog, at: instant)
            out.renewCount = Documents.renewCount(customerId: alice.id, requestedId: alice.id, requestDate: instant,
                                                  incompleteReason: nil, entitlement: nil, entitlements: status.entitlements,
                                                  acrossChains: status.renewalsAcrossChains)
            out.search = .object(JSONObject([
                ("term", .string("alice")),
                ("matches", .array([FindMatch(customerId: alice.id, matchedBy: .customerId, email: FindMatch.email(of: alice),
                                              activeEntitlements: status.activeEntitlementIds).document])),
            ]))
        }
        return out
    }()
}
