// The subs REST API (SPEC section 6) over one local store: the routes, bearer-token checking,
// the error bodies, and Idempotency-Key replays. `subs serve` runs it on HTTPServer; writes go
// through the store's locked, crash-safe write path.

import Foundation
import SubsJSON
import SubsHTTP
import SubsModel
import SubsStore

public final class SubsAPI: @unchecked Sendable {
    public let store: LocalStore
    /// Reads: the store indexed once, rescanned when the file changes.
    let served: ServedStore
    /// Writes: the POSTs waiting are committed together, one rewrite for all of them.
    let commits: GroupCommit
    /// STORE.audit.jsonl: one line per write, naming the token's person.
    let audit: AuditLog
    /// The served version's catalog, decoded once for the status routes.
    let catalogs = ServedCatalog()
    /// The tokens requests may carry; nil: none needed (the CLI allows that on loopback
    /// addresses only), and every caller may do everything.
    private let tokens: ServeTokens?
    let clock: any Clock
    private let dateLock = NSLock()
    private var dateCache: (seconds: Int64, text: String) = (0, "")
    /// Searches running at once (see `SearchGate`).
    let searches: SearchGate
    /// POST answers by Idempotency-Key (see `IdempotencyTable`); `replayBytes` for the tests.
    let replays: IdempotencyTable
    static let replayWindow: Int64 = 24 * 3600
    /// The replay table's bound: 16 MiB; answers over 64 KiB are kept as a reference.
    public static let replayBudget = 16 << 20
    static let replayExactLimit = 64 << 10
    /// The header every answer carries (SPEC section 6 rev. 4): the request's id, also in the
    /// request log line and the client's error message, so that support can find the line.
    public static let requestIdHeader = "Subs-Request-Id"

    /// `token`: the bearer token every request but the public routes must carry, as the token
    /// `default` with every scope; nil: none needed.
    public convenience init(store: LocalStore, token: String?, clock: any Clock, replayBudget: Int = SubsAPI.replayBudget) {
        self.init(store: store, tokens: token.map { ServeTokens([.single($0)]) }, clock: clock, replayBudget: replayBudget,
                  searches: SearchGate())
    }

    /// `tokens`: who may call, with what scopes (`--token-file`); nil: none needed.
    public convenience init(store: LocalStore, tokens: ServeTokens?, clock: any Clock, replayBudget: Int = SubsAPI.replayBudget) {
        self.init(store: store, tokens: tokens, clock: clock, replayBudget: replayBudget, searches: SearchGate())
    }

    convenience init(store: LocalStore, token: String?, clock: any Clock, replayBudget: Int = SubsAPI.replayBudget, searches: SearchGate) {
        self.init(store: store, tokens: token.map { ServeTokens([.single($0)]) }, clock: clock, replayBudget: replayBudget,
                  searches: searches)
    }

    init(store: LocalStore, tokens: ServeTokens?, clock: any Clock, replayBudget: Int = SubsAPI.replayBudget, searches: SearchGate) {
        self.store = store
        self.searches = searches
        replays = IdempotencyTable(budget: replayBudget, exactLimit: Self.replayExactLimit, window: Self.replayWindow)
        let served = ServedStore(path: store.path)
        self.served = served
        self.commits = GroupCommit(store: store, served: served, clock: clock)
        self.audit = AuditLog(storePath: store.path)
        self.tokens = tokens
        self.clock = clock
    }

    /// Scans the store now, so that a store that cannot be served is said at start.
    public func prepare() throws {
        try served.prepare()
    }

    /// Who sent a request: the token's name and scopes; `name` nil when the server needs no
    /// token (then the caller may do everything, and a body's grantedBy is kept as sent).
    struct Caller {
        var name: String?
        var scopes: Set<TokenScope>
        /// The shared single token (see `ServeToken.isShared`).
        var isShared = false

        static let anyone = Caller(name: nil, scopes: Set(TokenScope.allCases))
    }

    /// Where a request goes: an answer made at once, or the work of a route of the table.
    enum Route {
        case answer(HTTPResponse)
        case work(RouteAction, parameters: [ID], query: QueryParameters, caller: Caller)
    }

    func route(_ request: HTTPRequest) -> Route {
        guard var segments = request.pathSegments else { return .answer(.invalidRequest("the path is not valid UTF-8")) }
        if segments == [""] { segments = [] }
        let route: APIRoute, parameters: [String]
        switch APIRoutes.dispatch(method: request.method, segments: segments) {
        case .notFound: return .answer(.notFound())
        case .methodNotAllowed(let allow): return .answer(.methodNotAllowed(allow: allow))
        case .route(let found, let values): (route, parameters) = (found, values)
        }
        var caller = Caller.anyone
        if let scope = route.scope, let tokens {
            guard let token = tokens.token(for: request.headers.bytes("Authorization")) else {
                var answer = HTTPResponse.error(status: 401, code: "unauthorized", message: "missing or wrong bearer token")
                answer.headers.append(("WWW-Authenticate", "Bearer"))
                return .answer(answer)
            }
            guard token.scopes.contains(scope) else {
                return .answer(.error(status: 403, code: "forbidden",
                                      message: "the token '\(token.name)' lacks the \(scope.rawValue) scope that \(route.method) \(route.path) needs"))
            }
            caller = Caller(name: token.name, scopes: token.scopes, isShared: token.isShared)
        }
        // The search route reads its own query (terms, attributes, cursor: CustomerSearchRoute).
        var query = QueryParameters()
        if route.action != .search {
            switch QueryParameters.parse(request.query, allowed: route.queryNames, route: "\(route.method) \(route.path)") {
            case .success(let parsed): query = parsed
            case .failure(let refusal): return .answer(.invalidRequest(refusal.message))
            }
        }
        switch route.action {
        case .health: return .answer(.json(.object(JSONObject([("status", .string("ok"))]))))
        case .index: return .answer(.json(APIRoutes.listing))
        case .openAPI: return .answer(OpenAPIDocument.answer)
        default:
            // Path parameters are ids: compared by their bytes from here on.
            return .work(route.action, parameters: parameters.map { ID($0) }, query: query, caller: caller)
        }
    }

    /// Answers a request; may wait (for a scan of a changed store, for a group commit): the
    /// server calls it on a worker thread.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let requestId = RequestId.next()
        return stamped(answer(request, requestId: requestId), requestId: requestId)
    }

    private func answer(_ request: HTTPRequest, requestId: String) -> HTTPResponse {
        let action: RouteAction, parameters: [ID], query: QueryParameters, caller: Caller
        switch route(request) {
        case .answer(let answer): return answer
        case .work(let a, let p, let q, let c): (action, parameters, query, caller) = (a, p, q, c)
        }
        switch action {
        case .customer:
            switch query.instant("at", now: clock.now()) {
            case .success(let at): return customer(parameters[0], at: at)
            case .failure(let refusal): return .invalidRequest(refusal.message)
            }
        case .entitlements: return entitlements(parameters[0], query)
        case .history: return history(parameters[0], query)
        case .renewCount: return renewCount(parameters[0], query)
        case .audit: return auditLines(query)
        case .search:
            let answer = searches.run { CustomerSearchRoute(store: store, clock: clock).answer(request, failure: { failure($0) }) }
            guard let answer else {
                var busy = HTTPResponse.error(status: 503, code: "busy",
                                              message: "too many searches at once (\(searches.running) run, \(searches.waiting) wait); try again")
                busy.headers.append(("Retry-After", "1"))
                return busy
            }
            return answer
        case .grant:
            let id = parameters[0]
            let context = WriteContext(caller: caller, requestId: requestId, idempotencyKey: Self.idempotencyKey(request))
            return replayable(request, customer: id, action: ["grants"]) { grant(id, body: request.body, context: context, customer: &$0) }
        case .revoke:
            let (id, entitlement) = (parameters[0], parameters[1])
            return replayable(request, customer: id, action: ["entitlements", entitlement.string, "revoke"]) {
                revoke(id, entitlement: entitlement, body: request.body,
                       context: WriteContext(caller: caller, requestId: requestId, idempotencyKey: Self.idempotencyKey(request)),
                       customer: &$0)
            }
        case .index, .health, .openAPI:
            return .internalError()
        }
    }

    /// The answer when it can be made without waiting — a GET from the version of the store
    /// indexed now (one pread), the health check, a refusal; nil: `handle` it on a worker (a
    /// POST, a store that is not there or not a regular file, a version whose scan failed).
    /// The server calls it on its event-loop thread.
    public func answerWithoutWaiting(_ request: HTTPRequest) -> HTTPResponse? {
        switch route(request) {
        case .answer(let answer): return stamped(answer)
        case .work(.customer, let parameters, let query, _):
            let id = parameters[0]
            let at: Instant?
            switch query.instant("at", now: clock.now()) {
            case .success(let instant): at = instant
            case .failure(let refusal): return stamped(.invalidRequest(refusal.message))
            }
            switch served.customerWithoutWaiting(id) {
            case .found(let customer): return stamped(answer(customer, at: at))
            case .notFound: return stamped(Self.customerNotFound(id))
            case .failure(let error): return stamped(failure(error))
            case .wait: return nil
            }
        case .work:
            return nil
        }
    }

    /// The answer with its request id.
    private func stamped(_ answer: HTTPResponse, requestId: String = RequestId.next()) -> HTTPResponse {
        var answer = answer
        answer.headers.append((Self.requestIdHeader, requestId))
        return answer
    }

    /// What the audit line of a write says besides the change: who, and from which request.
    struct WriteContext {
        var caller: Caller
        var requestId: String
        var idempotencyKey: String?
        /// The name the body gave when it is someone else's (an admin's write on their behalf).
        var onBehalfOf: String?
    }

    /// The Idempotency-Key as sent, for the audit line (printable ASCII, at most 256 bytes; else
    /// its SHA-256, so the line still finds the request).
    static func idempotencyKey(_ request: HTTPRequest) -> String? {
        guard let key = request.headers.bytes("Idempotency-Key"), !key.isEmpty else { return nil }
        if key.count <= 256, key.allSatisfy({ (0x20...0x7E).contains($0) }) { return String(decoding: key, as: UTF8.self) }
        return "sha256:" + SHA256.hex(key)
    }

    /// `{"requestDate", "customer": {"id", <the record>}, "products"}`.
    private func customer(_ id: ID, at: Instant?) -> HTTPResponse {
        do {
            guard let stored = try served.customer(id) else { return Self.customerNotFound(id) }
            return answer(stored, at: at)
        } catch {
            return failure(error)
        }
    }

    /// The customer as stored, decoded and written like a POST's answer (a replay of one).
    private func rewritten(_ id: ID, status: Int) -> HTTPResponse {
        do {
            guard let stored = try served.customer(id) else {
                return .error(status: 404, code: "customer_not_found", message: "customer '\(id)' not found")
            }
            let record = try JSON.parse(stored.record), products = try JSON.parse(stored.products)
            return written(StoredRecord(id: stored.id, record: record, products: products), status: status)
        } catch {
            return failure(error)
        }
    }

    /// A GET's answer, spliced from the record's bytes (see `CustomerAnswer`). Its requestDate
    /// is the instant a client evaluates the record at: `at` when asked, else now.
    private func answer(_ stored: StoredCustomer, at: Instant?) -> HTTPResponse {
        let body = CustomerAnswer.body(stored, products: stored.products, requestDate: at.map(ISODate.format) ?? requestDate())
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }

    /// `requestDate` now, formatted once per second.
    private func requestDate() -> String {
        let now = clock.now()
        dateLock.lock()
        defer { dateLock.unlock() }
        if dateCache.seconds != now.seconds || dateCache.text.isEmpty { dateCache = (now.seconds, ISODate.format(now)) }
        return dateCache.text
    }

    /// A POST's answer: the record as the write left it, in the GET's shape.
    private func written(_ stored: StoredRecord, status: Int) -> HTTPResponse {
        var record = JSONObject([("id", .string(stored.id.string))])
        for member in stored.record.objectValue?.members ?? [] where !JSON.bytesEqual(member.key, "id") {
            record[member.key] = member.value
        }
        // The document keeps the GET's shape; that the grant made the customer goes in a header.
        return HTTPResponse.json(.object(JSONObject([
            ("requestDate", .string(ISODate.format(clock.now()))),
            ("customer", .object(record)),
            ("products", stored.products),
        ])), status: status, headers: stored.created ? [(StoredRecord.createdHeader, "true")] : [])
    }

    /// `customer`: set to the store id of the customer written (see `change`).
    private func grant(_ id: ID, body: [UInt8], context: WriteContext, customer: inout ID?) -> HTTPResponse {
        var context = context
        let fields: JSONObject
        do { fields = try RequestBody.object(body, fields: RequestBody.grantFields, of: "a grant") } catch {
            return .invalidRequest("\(error)")
        }
        guard case .string(let entitlement)? = fields["entitlement"], !entitlement.isEmpty else {
            return .invalidRequest("entitlement: required, a non-empty string")
        }
        // Required even for a lifetime grant: a misspelt field must never become one.
        let expiration: Instant?
        switch fields["expirationDate"] {
        case nil: return .invalidRequest("expirationDate: required (null for a lifetime grant)")
        case .null?: expiration = nil
        case .string(let text)?:
            guard let instant = ISODate.parse(text) else {
                return .invalidRequest("expirationDate: '\(text)' is not an ISO 8601 date-time in years 0001-9999")
            }
            expiration = instant
        default: return .invalidRequest("expirationDate: a date-time string or null")
        }
        let reason: String?, actor: String?, create: Bool
        do {
            reason = try RequestBody.text(fields, "reason")
            (actor, context.onBehalfOf) = try Self.actor(RequestBody.text(fields, "grantedBy"), field: "grantedBy", caller: context.caller)
            create = try RequestBody.flag(fields, "create")
        } catch { return .invalidRequest("\(error)") }
        return change(.grant(entitlement: ID(entitlement), expirationDate: expiration, reason: reason,
                             actor: actor, createMissing: create), id: id, status: 201, context: context, customer: &customer)
    }

    private func revoke(_ id: ID, entitlement: ID, body: [UInt8], context: WriteContext, customer: inout ID?) -> HTTPResponse {
        var context = context
        let fields: JSONObject
        do {
            fields = body.isEmpty ? JSONObject() : try RequestBody.object(body, fields: RequestBody.revokeFields, of: "a revoke")
        } catch { return .invalidRequest("\(error)") }
        let reason: String?, actor: String?
        do {
            reason = try RequestBody.text(fields, "reason")
            (actor, context.onBehalfOf) = try Self.actor(RequestBody.text(fields, "revokedBy"), field: "revokedBy", caller: context.caller)
        } catch { return .invalidRequest("\(error)") }
        return change(.revoke(entitlement: entitlement, reason: reason, actor: actor), id: id, status: 200, context: context,
                      customer: &customer)
    }

    /// Who a write is recorded as made by (SPEC section 6 rev. 4): the token's name. A body that
    /// names its token's person, or no one, is that person; one that names someone else is
    /// refused unless the token has `admin`. Without tokens (a loopback server that needs none)
    /// the body's name is kept as sent.
    struct ActorRefusal: Error, CustomStringConvertible {
        var description: String
    }

    /// The name recorded (grantedBy/revokedBy) and, for an admin naming someone else, that name
    /// (the audit line's `onBehalfOf`).
    static func actor(_ named: String?, field: String, caller: Caller) throws -> (String?, onBehalfOf: String?) {
        guard let name = caller.name else { return (named, nil) }
        guard let named, Array(named.utf8) != Array(name.utf8) else { return (name, nil) }
        // The shared token names nobody: the body's name stays the grant's, and the audit says both.
        if caller.isShared { return (named, named) }
        guard caller.scopes.contains(.admin) else {
            throw ActorRefusal(description: "\(field): '\(named)' is not this token's name ('\(name)'); writes are recorded "
                               + "under the token's name, and only a token with the admin scope may act on behalf of someone else")
        }
        return (name, named)
    }

    /// `customer`: set to the store id of the customer the change wrote (the idempotency table
    /// binds its key to it, so that any spelling of the customer matches).
    private func change(_ change: CustomerChange, id: ID, status: Int, context: WriteContext, customer: inout ID?) -> HTTPResponse {
        // The answer is the record as this change left it, from the write itself: no rescan.
        switch commits.submit(ChangeRequest(change: change, id: id)) {
        case .success(let stored):
            customer = stored.id
            // The write is on disk: its audit line is, before the answer says so.
            do {
                try audit.append([auditEntry(change, stored, context: context)])
            } catch {
                return .error(status: 500, code: "store_unwritable",
                              message: "the change was written, but its audit line was not: \(error)")
            }
            return written(stored, status: status)
        case .failure(let error):
            var grant = false
            if case .grant = change { grant = true }
            return failure(error, writing: true, creating: grant)
        }
    }

    /// The audit line of a write the store committed: who (the token's name), what, and what it did.
    private func auditEntry(_ change: CustomerChange, _ stored: StoredRecord, context: WriteContext) -> AuditEntry {
        let grants = stored.record.objectValue?["grants"]?.arrayValue ?? []
        var action = "grant", reason: String?, actor: String?, result = ""
        switch change {
        case .grant(_, _, let why, let by, _):
            (reason, actor) = (why, by)
            result = (stored.created ? "created, " : "") + "granted " + (grants.last?["id"]?.stringValue ?? "?")
        case .revoke(let entitlement, let why, let by):
            (action, reason, actor) = ("revoke", why, by)
            // The grants this change revoked: the entitlement's, revoked at the latest instant.
            let mine = grants.filter { $0["entitlement"]?.stringValue.map { ID($0) } == entitlement }
            let last = mine.compactMap { $0["revokedAt"]?.stringValue }.max()
            result = "revoked " + mine.filter { $0["revokedAt"]?.stringValue == last }.compactMap { $0["id"]?.stringValue }
                .joined(separator: " ")
        }
        return AuditEntry(time: clock.now(), actor: context.caller.name ?? actor ?? "anonymous", onBehalfOf: context.onBehalfOf,
                          via: "serve", action: action, customer: stored.id, entitlement: change.entitlement, reason: reason,
                          requestId: context.requestId, idempotencyKey: context.idempotencyKey, result: result)
    }

    /// GET /v1/audit (admin): the audit lines, oldest first, from `since`, of `actor`, about `customer`.
    func auditLines(_ query: QueryParameters) -> HTTPResponse {
        let since: Instant?, customer: ID?
        switch (query.instant("since", now: clock.now()), query.id("customer")) {
        case (.success(let s), .success(let c)): (since, customer) = (s, c)
        case (.failure(let refusal), _), (_, .failure(let refusal)): return .invalidRequest(refusal.message)
        }
        let actor = query.text("actor").map { Array($0.utf8) }
        do {
            let entries = try AuditLog.read(path: audit.path) { entry in
                (since.map { entry.time >= $0 } ?? true) && (customer.map { entry.customer == $0 } ?? true)
                    && (actor.map { Array(entry.actor.utf8) == $0 } ?? true)
            }
            return .json(.object(JSONObject([("entries", .array(entries.map(\.document)))])))
        } catch {
            return .error(status: 500, code: "store_unreadable", message: "\(error)")
        }
    }

    /// The error answer for a failure, with the code SPEC section 6 gives it, so that the client
    /// exits as the same command does on a local store. The messages are the local ones.
    /// `creating`: the failed request was a grant, which `"create": true` lets make its customer.
    func failure(_ error: Error, writing: Bool = false, creating: Bool = false) -> HTTPResponse {
        switch error {
        case let change as ChangeError:
            switch change {
            case .unknownEntitlement: return .error(status: 404, code: "entitlement_not_found", message: change.description)
            case .customersNotFound(let ids):
                // Only a grant can create its customer: the hint names the body field that does.
                guard creating else { return .error(status: 404, code: "customer_not_found", message: change.description) }
                let list = ids.map { "'\($0)'" }.joined(separator: ", ")
                return .error(status: 404, code: "customer_not_found",
                              message: "customer \(list) not found (send \"create\": true to create it); nothing written")
            case .nothingToRevoke: return .error(status: 404, code: "grant_not_found", message: change.description)
            case .expirationNotInFuture: return .invalidRequest(change.description)
            }
        case let store as StoreError:
            switch store {
            case .lockTimeout:
                var answer = HTTPResponse.error(status: 503, code: "busy", message: "\(store.description); try again")
                answer.headers.append(("Retry-After", "1"))
                return answer
            case .syntax, .invalid:
                return .error(status: 500, code: "invalid_store", message: "the store cannot be served: \(store.description)")
            case .missing, .unreadable:
                return .error(status: 500, code: "store_unreadable", message: store.description)
            case .permissionDenied:
                return .error(status: 500, code: writing ? "store_unwritable" : "store_unreadable", message: store.description)
            case .cannotWrite:
                return .error(status: 500, code: "store_unwritable", message: store.description)
            case .alreadyExists:
                return .internalError("the store cannot be served: \(store.description)")
            }
        default:
            return .internalError()
        }
    }

    /// Runs a POST once per Idempotency-Key (24 hours): a repeat of the same request (method,
    /// action, customer in any spelling, body) gets the first answer without writing again; the
    /// key with another request is 422 `idempotency_key_reused` (IETF Idempotency-Key draft).
    private func replayable(_ request: HTTPRequest, customer: ID, action: [String],
                            _ body: (inout ID?) -> HTTPResponse) -> HTTPResponse {
        var canonical: ID?
        // The key as received: two keys are one when their bytes are.
        guard let key = request.headers.bytes("Idempotency-Key"), !key.isEmpty else { return body(&canonical) }
        let fingerprint = RequestFingerprint(method: request.method, action: action, customer: customer, body: request.body)
        switch replays.claim(key, now: clock.now()) {
        case .stored(let entry):
            guard sameRequest(fingerprint, as: entry) else {
                return .error(status: 422, code: "idempotency_key_reused",
                              message: "this Idempotency-Key came first with another request (method, customer, path or body differ); "
                                  + "send a new key for a new request")
            }
            return replay(entry)
        case .run:
            let answer = body(&canonical)
            replays.finish(key, fingerprint, canonical: canonical, answer: answer, now: clock.now())
            return answer
        }
    }

    /// Same method, action and body, and the same customer however spelt: the id or an alias
    /// resolve to one customer (looked up only when the spellings differ).
    private func sameRequest(_ fingerprint: RequestFingerprint, as entry: IdempotencyTable.Entry) -> Bool {
        let first = entry.fingerprint
        guard fingerprint.method == first.method, fingerprint.action == first.action,
              fingerprint.bodyDigest == first.bodyDigest else { return false }
        if fingerprint.customer == first.customer || fingerprint.customer == entry.canonical { return true }
        func canonical(_ spelling: ID) -> ID { ((try? served.canonicalId(spelling)) ?? nil) ?? spelling }
        return canonical(fingerprint.customer) == (entry.canonical ?? canonical(first.customer))
    }

    private func replay(_ entry: IdempotencyTable.Entry) -> HTTPResponse {
        var answer: HTTPResponse
        switch entry.stored {
        case .answer(let first):
            answer = first
        case .reference(let status):
            // Too large to keep: the customer as it is now, with the first answer's status,
            // written as a POST's answer is (the same bytes when nothing changed meanwhile).
            answer = rewritten(entry.canonical ?? entry.fingerprint.customer, status: status)
        }
        answer.headers.append(("Idempotent-Replayed", "true"))
        return answer
    }
}
