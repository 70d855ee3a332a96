// The subs REST API (SPEC section 6) over one local store: the routes, bearer-token checking,
// the error bodies, and Idempotency-Key replays. `subs serve` runs it on HTTPServer; writes go
// through the store's locked, crash-safe write path.

import Foundation
import SubsJSON

public final class SubsAPI: @unchecked Sendable {
    public let store: LocalStore
    /// Reads: the store indexed once, rescanned when the file changes.
    private let served: ServedStore
    /// Writes: the POSTs waiting are committed together, one rewrite for all of them.
    let commits: GroupCommit
    private let token: [UInt8]?
    private let clock: any Clock
    /// POST answers by Idempotency-Key, kept 24 hours (at most `replayLimit` of them).
    private var replays: [String: (answer: HTTPResponse, at: Instant)] = [:]
    /// Keys whose first request is being answered: a repeat sent meanwhile waits for that answer
    /// instead of writing a second time.
    private var replaysInFlight: Set<String> = []
    private let replayLock = NSCondition()
    static let replayWindow: Int64 = 24 * 3600
    static let replayLimit = 10_000

    /// `token`: the bearer token every request but `/v1/health` must carry; nil: none needed
    /// (the CLI allows that on loopback addresses only).
    public init(store: LocalStore, token: String?, clock: any Clock) {
        self.store = store
        self.served = ServedStore(path: store.path)
        self.commits = GroupCommit(store: store, clock: clock)
        self.token = token.map { Array($0.utf8) }
        self.clock = clock
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let segments = request.pathSegments else { return .invalidRequest("the path is not valid UTF-8") }
        if segments == ["v1", "health"] {
            guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(allow: ["GET", "HEAD"]) }
            return .json(.object(JSONObject([("status", .string("ok"))])))
        }
        guard segments.count >= 2, segments[0] == "v1", segments[1] == "customers",
              segments.count == 2 || !segments[2].isEmpty else { return .notFound() }
        guard authorized(request) else {
            var answer = HTTPResponse.error(status: 401, code: "unauthorized", message: "missing or wrong bearer token")
            answer.headers.append(("WWW-Authenticate", "Bearer"))
            return answer
        }
        // GET /v1/customers?search=TERM: the find document (CustomerSearchRoute.swift).
        if segments.count == 2 { return CustomerSearchRoute(store: store, clock: clock).answer(request, failure: failure) }
        let id = segments[2]
        switch Array(segments.dropFirst(3)) {
        case []:
            guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(allow: ["GET", "HEAD"]) }
            return customer(id)
        case ["grants"]:
            guard request.method == "POST" else { return .methodNotAllowed(allow: ["POST"]) }
            return replayable(request) { grant(id, body: request.body) }
        case let rest where rest.count == 3 && rest[0] == "entitlements" && rest[2] == "revoke" && !rest[1].isEmpty:
            guard request.method == "POST" else { return .methodNotAllowed(allow: ["POST"]) }
            return replayable(request) { revoke(id, entitlement: rest[1], body: request.body) }
        default:
            return .notFound()
        }
    }

    private func authorized(_ request: HTTPRequest) -> Bool {
        guard let token else { return true }
        guard let header = request.headers.bytes("Authorization"), header.count > 7,
              String(decoding: header.prefix(7), as: UTF8.self).lowercased() == "bearer " else { return false }
        return constantTimeEquals(Array(header.dropFirst(7)), token)
    }

    /// `{"requestDate", "customer": {"id", <the record>}, "products"}`.
    private func customer(_ id: String) -> HTTPResponse {
        do {
            guard let stored = try served.storedRecord(id) else {
                return .error(status: 404, code: "customer_not_found", message: "customer '\(id)' not found")
            }
            return answer(stored, status: 200)
        } catch {
            return failure(error)
        }
    }

    private func answer(_ stored: StoredRecord, status: Int) -> HTTPResponse {
        var record = JSONObject([("id", .string(stored.id))])
        for member in stored.record.objectValue?.members ?? [] where member.key != "id" {
            record[member.key] = member.value
        }
        return .json(.object(JSONObject([
            ("requestDate", .string(ISODate.format(clock.now()))),
            ("customer", .object(record)),
            ("products", stored.products),
        ])), status: status)
    }

    private func grant(_ id: String, body: [UInt8]) -> HTTPResponse {
        let fields: JSONObject
        do { fields = try bodyObject(body) } catch { return .invalidRequest("\(error)") }
        guard case .string(let entitlement)? = fields["entitlement"], !entitlement.isEmpty else {
            return .invalidRequest("entitlement: required, a non-empty string")
        }
        let expiration: Instant?
        switch fields["expirationDate"] {
        case nil, .null?: expiration = nil
        case .string(let text)?:
            guard let instant = ISODate.parse(text) else {
                return .invalidRequest("expirationDate: '\(text)' is not an ISO 8601 date-time in years 0001-9999")
            }
            expiration = instant
        default: return .invalidRequest("expirationDate: a date-time string or null")
        }
        let reason: String?, actor: String?
        do {
            reason = try optionalText(fields, "reason")
            actor = try optionalText(fields, "grantedBy")
        } catch { return .invalidRequest("\(error)") }
        return change(.grant(entitlement: entitlement, expirationDate: expiration, reason: reason,
                             actor: actor, createMissing: false), id: id, status: 201)
    }

    private func revoke(_ id: String, entitlement: String, body: [UInt8]) -> HTTPResponse {
        let fields: JSONObject
        do { fields = body.isEmpty ? JSONObject() : try bodyObject(body) } catch { return .invalidRequest("\(error)") }
        let reason: String?, actor: String?
        do {
            reason = try optionalText(fields, "reason")
            actor = try optionalText(fields, "revokedBy")
        } catch { return .invalidRequest("\(error)") }
        return change(.revoke(entitlement: entitlement, reason: reason, actor: actor), id: id, status: 200)
    }

    private func change(_ change: CustomerChange, id: String, status: Int) -> HTTPResponse {
        // The answer is the record as this change left it, from the write itself: no rescan.
        switch commits.submit(ChangeRequest(change: change, id: id)) {
        case .success(let stored): return answer(stored, status: status)
        case .failure(let error): return failure(error)
        }
    }

    /// A string field; nil when absent, null or empty; an error when it has another type.
    private func optionalText(_ fields: JSONObject, _ key: String) throws -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        default: throw BodyError.notAString(key)
        }
    }

    private func bodyObject(_ body: [UInt8]) throws -> JSONObject {
        guard let object = try JSON.parse(body).objectValue else { throw BodyError.notAnObject }
        return object
    }

    private enum BodyError: Error, CustomStringConvertible {
        case notAnObject
        case notAString(String)
        var description: String {
            switch self {
            case .notAnObject: return "the body must be a JSON object"
            case .notAString(let key): return "\(key): a string when given"
            }
        }
    }

    private func failure(_ error: Error) -> HTTPResponse {
        switch error {
        case let change as ChangeError:
            switch change {
            case .unknownEntitlement: return .error(status: 404, code: "entitlement_not_found", message: change.description)
            case .customersNotFound(let ids):
                return .error(status: 404, code: "customer_not_found", message: "customer '\(ids.first ?? "")' not found")
            case .nothingToRevoke: return .error(status: 404, code: "grant_not_found", message: change.description)
            case .expirationNotInFuture: return .invalidRequest(change.description)
            }
        case let store as StoreError:
            if case .lockTimeout = store {
                var answer = HTTPResponse.error(status: 503, code: "busy", message: "the store is busy; try again")
                answer.headers.append(("Retry-After", "1"))
                return answer
            }
            return .internalError("the store cannot be served: \(store.description)")
        default:
            return .internalError()
        }
    }

    /// Runs a POST once per Idempotency-Key (24 hours): a repeated key gets the first answer
    /// without writing again.
    private func replayable(_ request: HTTPRequest, _ body: () -> HTTPResponse) -> HTTPResponse {
        guard let key = request.headers["Idempotency-Key"], !key.isEmpty else { return body() }
        let slot = request.method + " " + request.path + " " + key
        let now = clock.now()
        replayLock.lock()
        while replaysInFlight.contains(slot) { replayLock.wait() }
        if let earlier = replays[slot], now.seconds - earlier.at.seconds < Self.replayWindow {
            replayLock.unlock()
            return earlier.answer
        }
        replaysInFlight.insert(slot)
        replayLock.unlock()
        let answer = body()
        replayLock.lock()
        defer {
            replaysInFlight.remove(slot)
            replayLock.broadcast()
            replayLock.unlock()
        }
        guard answer.status < 500 else { return answer }
        if replays.count >= Self.replayLimit {
            replays = replays.filter { now.seconds - $0.value.at.seconds < Self.replayWindow }
            if replays.count >= Self.replayLimit { replays.removeAll() }
        }
        replays[slot] = (answer, now)
        return answer
    }
}

/// Group commit: a POST joins the queue; whoever finds no commit under way commits everything
/// queued in one write (each request succeeding or failing on its own), and goes on while more
/// arrived meanwhile. Fifty concurrent grants cost a few rewrites of the store, not fifty.
final class GroupCommit: @unchecked Sendable {
    private let store: LocalStore
    private let clock: any Clock
    private let lock = NSLock()
    private var pending: [Job] = []
    private var committing = false
    /// Writes made so far (one per batch); the tests read it.
    private(set) var batches = 0

    private final class Job: @unchecked Sendable {
        let request: ChangeRequest
        var result: Result<StoredRecord, Error>?
        let done = DispatchSemaphore(value: 0)
        init(_ request: ChangeRequest) { self.request = request }
    }

    init(store: LocalStore, clock: any Clock) {
        self.store = store
        self.clock = clock
    }

    func submit(_ request: ChangeRequest) -> Result<StoredRecord, Error> {
        let job = Job(request)
        lock.lock()
        pending.append(job)
        if committing {
            lock.unlock()
            job.done.wait()
            return job.result!
        }
        committing = true
        lock.unlock()
        gatherArrivals()
        while true {
            lock.lock()
            let batch = pending
            pending = []
            if batch.isEmpty {
                committing = false
                lock.unlock()
                break
            }
            batches += 1
            lock.unlock()
            let results: [Result<StoredRecord, Error>]
            do {
                results = try store.applyEach(batch.map(\.request), now: clock.now()).map { $0.mapError { $0 as Error } }
            } catch {
                results = batch.map { _ in .failure(error) }
            }
            for (waiting, result) in zip(batch, results) {
                waiting.result = result
                if waiting !== job { waiting.done.signal() }
            }
        }
        return job.result!
    }

    /// Requests sent together arrive over a few milliseconds: the first one waits until none
    /// came for 2 ms (20 ms at most) so that they share its write instead of the next one —
    /// a rewrite of the store takes far longer than the wait.
    private func gatherArrivals() {
        var waited = 0
        var seen = lock.withLock { pending.count }
        while waited < 20_000 {
            usleep(2_000)
            waited += 2_000
            let now = lock.withLock { pending.count }
            if now == seen { break }
            seen = now
        }
    }
}
