// The policy over any transport: checks the URL before sending, adds User-Agent and the key
// header, retries what may be retried within one overall deadline, caches successful GETs
// and answers from the cache when the server cannot be reached.
//
// Deadline: one `RemoteBudget` per command (SPEC section 7 rev. 4, "Budgets"): every request
// of the command — each attempt and every wait between them — ends by its deadline. Each
// attempt gets what is left; a backoff or Retry-After that would not leave room for another
// attempt ends the retries at once with the last failure instead of sleeping into the
// deadline, and a request the budget has no time left for is not sent (nor answered from the
// cache: the server was not asked, so it is not known to be unreachable). Each attempt may
// receive what is left of the command's byte budget, and its answer is then held by it.

import Dispatch
import SubsJSON
import SubsModel
#if canImport(Glibc)
import Glibc
#endif

/// Where and how to reach a provider.
public struct RemoteEndpoint: Sendable {
    public var provider: String
    public var url: RemoteURL
    public var apiKey: APIKey?
    public var scheme: APIKeyScheme
    public init(provider: String, url: RemoteURL, apiKey: APIKey?, scheme: APIKeyScheme = .bearer) {
        self.provider = provider
        self.url = url
        self.apiKey = apiKey
        self.scheme = scheme
    }
}

/// How a GET may use the cache.
public enum CachePolicy: Sendable, Equatable {
    /// Ask the server; store the answer; on a connection failure answer from the cache.
    case network
    /// Use an entry younger than this many seconds without asking the server (`--max-age`).
    case maxAge(Double)
    /// Cache only (`--offline`).
    case offline
}

/// An answer and where it came from. `warnings` are for the caller to print on stderr.
public struct RemoteAnswer: Sendable {
    public var response: RemoteResponse
    /// The URL asked, as shown in messages (no secrets).
    public var url: String
    /// Seconds old when it came from the cache, nil when it came from the server.
    public var cacheAge: Double?
    public var warnings: [String]
    /// Bytes of the command's budget this answer holds (its body, as received; 0 from the cache):
    /// a listing gives them back once the page is decoded into what it keeps.
    public var heldBytes = 0

    /// The usual error for a status a provider did not handle itself: 404 → notFound, else protocolError.
    public func unexpectedStatusError() -> RemoteError {
        response.status == 404 ? .notFound(url: url) : .protocolError(url: url, reason: "unexpected HTTP status \(response.status)")
    }
}

public final class RemoteClient: @unchecked Sendable {
    public let endpoint: RemoteEndpoint
    let transport: HTTPTransport
    /// The command's time and byte budget, shared by every request of the client.
    public let budget: RemoteBudget
    /// `--timeout`, in seconds (what messages say).
    public var timeout: Double { budget.seconds }
    let userAgent: String
    let cache: ResponseCache?
    let retry: RetryPolicy
    let clock: Clock
    let random: () -> Double
    let sleep: (Double) -> Void
    let monotonic: () -> Double
    let log: ((String) -> Void)?

    /// `random` answers in [0, 1) (backoff jitter), `sleep` waits seconds, `monotonic` reads a
    /// clock in seconds that never jumps; `clock` is wall time (HTTP-dates, cache ages). `log`
    /// gets one line per attempt, never with the key. `budget`: the command's; nil makes one of
    /// `timeout` seconds on `monotonic`, starting now.
    public init(endpoint: RemoteEndpoint, transport: HTTPTransport, timeout: Double, version: String,
                cache: ResponseCache?, clock: Clock, retry: RetryPolicy = RetryPolicy(),
                random: @escaping () -> Double = { Double.random(in: 0..<1) },
                sleep: @escaping (Double) -> Void = { seconds in if seconds > 0 { RemoteClient.sleepSeconds(seconds) } },
                monotonic: @escaping () -> Double = RemoteBudget.uptime, budget: RemoteBudget? = nil,
                log: ((String) -> Void)? = nil) {
        self.endpoint = endpoint
        self.transport = transport
        self.budget = budget ?? RemoteBudget(seconds: timeout, monotonic: monotonic)
        self.userAgent = "subs/\(version)"
        self.cache = cache
        self.retry = retry
        self.clock = clock
        self.random = random
        self.sleep = sleep
        self.monotonic = monotonic
        self.log = log
    }

    /// `customer`: who the answer is about; a cached answer is bound to it.
    /// `deadline`: a `now()` instant (seconds, monotonic) the request must end by instead of the
    /// command's: a walk of a whole platform bounds each page (`budget.pageDeadline()`).
    public func get(_ path: String, customer: String? = nil, headers: [(name: String, value: String)] = [],
                    cachePolicy: CachePolicy = .network, deadline: Double? = nil,
                    refusal: ((RemoteAnswer) -> Error?)? = nil) throws -> RemoteAnswer {
        try send("GET", path, customer: customer, headers: headers, body: nil, cachePolicy: cachePolicy,
                 deadline: deadline, refusal: refusal)
    }

    /// Removes the cached answers of `paths` (a listing that did not reach its end keeps no page:
    /// a later `--offline` read must not take a part of it for the whole).
    public func forget(_ paths: [String], customer: String?) {
        guard let cache else { return }
        for path in paths {
            cache.remove(ResponseCache.Key(provider: endpoint.provider, url: endpoint.url.appending(path), apiKey: endpoint.apiKey,
                                           customer: customer))
        }
    }

    /// The monotonic clock deadlines are read on, in seconds.
    public func now() -> Double { monotonic() }

    /// Sends `method` to base URL + `path`. Returns 2xx and the 4xx statuses providers
    /// interpret (404, 400, 409, 422…); throws RemoteError for the rest.
    /// `refusal` reads a 5xx answer first: an API that says in its own words why it failed (subs
    /// serve's `busy`, `invalid_store`) gets that error thrown at once — the server answered, so it
    /// is neither retried nor replaced by a cached answer; nil keeps the usual handling.
    public func send(_ method: String, _ path: String, customer: String? = nil, headers: [(name: String, value: String)] = [],
                     body: [UInt8]? = nil, cachePolicy: CachePolicy = .network, deadline: Double? = nil,
                     refusal: ((RemoteAnswer) -> Error?)? = nil) throws -> RemoteAnswer {
        let url = endpoint.url.appending(path)
        let shown = RemoteURL.display(url)
        let isGet = method.uppercased() == "GET"
        let key = ResponseCache.Key(provider: endpoint.provider, url: url, apiKey: endpoint.apiKey, customer: customer)

        if isGet, let cache = cache {
            switch cachePolicy {
            case .offline:
                guard let entry = cache.any(for: key) else { throw RemoteError.notCached(url: shown) }
                return RemoteClient.cached(entry, url: shown, at: clock.now(), option: "--offline")
            case .maxAge(let maxAge):
                if let entry = cache.fresh(for: key, maxAge: maxAge) {
                    log?("\(method) \(shown): answered from the cache")
                    return RemoteClient.cached(entry, url: shown, at: clock.now(), option: "--max-age")
                }
            case .network: break
            }
        } else if cachePolicy == .offline {
            throw RemoteError.notCached(url: shown)
        }

        let deadline = deadline ?? budget.deadline
        // Nothing is sent once the budget is spent, and the cache does not stand in for a server
        // that was not asked.
        guard deadline - monotonic() > 0 else {
            log?("\(method) \(shown): not sent, the --timeout of \(RemoteFormat.seconds(timeout)) s is spent")
            throw RemoteError.timeout(url: shown, seconds: timeout)
        }
        var request = RemoteRequest(method: method, url: url, headers: requestHeaders(headers, hasBody: body != nil), body: body)
        do {
            let response = try exchange(&request, shown: shown, deadline: deadline, refusal: refusal)
            var warnings: [String] = []
            // Only an answer in the API's language is kept: an HTML page from a captive portal or a
            // proxy must not become the answer given later, when the server cannot be reached.
            if isGet, (200..<300).contains(response.status), let cache = cache, RemoteClient.isJSON(response.body) {
                do { try cache.store(response, for: key) } catch { warnings.append("\(error)") }
            }
            var answer = RemoteAnswer(response: response, url: shown, cacheAge: nil, warnings: warnings)
            answer.heldBytes = response.body.count
            return answer
        } catch let failure as RemoteError {
            guard isGet, let cache = cache, let reason = RemoteClient.unreachableReason(failure),
                  let entry = cache.any(for: key) else { throw failure }
            return RemoteClient.cached(entry, url: shown, at: clock.now(), unreachable: reason)
        }
    }

    /// A cached answer, with the note every one of them gets on stderr: that it comes from the
    /// cache, how old it is, and why — the option that asked for it, or the server that could not
    /// be reached. (The caller judges it at the local clock, not at the date it was fetched.)
    static func cached(_ entry: CachedAnswer, url: String, at now: Instant, option: String? = nil,
                       unreachable: String? = nil) -> RemoteAnswer {
        let age = RemoteFormat.age(max(0, entry.age(at: now)))
        let note = option.map { "\(url): answered from the cache (\($0)), \(age) old" }
            ?? "\(url): answered from the cache, \(age) old: \(unreachable ?? "server unreachable")"
        return RemoteAnswer(response: entry.response, url: url, cacheAge: max(0, entry.age(at: now)), warnings: [note])
    }

    /// Why the server counts as unreachable (the cache may answer), or nil.
    static func unreachableReason(_ error: RemoteError) -> String? {
        switch error {
        case .unavailable(_, let reason, _): return "server unreachable (\(reason))"
        case .timeout(_, let seconds): return "server unreachable (no answer within \(RemoteFormat.seconds(seconds)) s)"
        default: return nil
        }
    }

    private func requestHeaders(_ extra: [(name: String, value: String)], hasBody: Bool) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("User-Agent", userAgent), ("Accept", "application/json")]
        if let key = endpoint.apiKey { headers.append((endpoint.scheme.header, key.headerValue(endpoint.scheme))) }
        if hasBody && HeaderList.first("Content-Type", in: extra) == nil { headers.append(("Content-Type", "application/json")) }
        let own = Set(headers.map { $0.name.lowercased() })
        return headers + extra.filter { !own.contains($0.name.lowercased()) }
    }

    /// The attempts, within the deadline; the answer's bytes are held by the command's budget.
    private func exchange(_ request: inout RemoteRequest, shown: String, deadline: Double,
                          refusal: ((RemoteAnswer) -> Error?)?) throws -> RemoteResponse {
        let repeatable = RetryPolicy.mayRepeat(method: request.method, headers: request.headers)
        var attempt = 0
        while true {
            attempt += 1
            let remaining = deadline - monotonic()
            guard remaining > 0 else { throw RemoteError.timeout(url: shown, seconds: timeout) }
            request.timeout = remaining
            request.maxBodySize = budget.bytesLeft
            let retriesLeft = repeatable && attempt <= retry.maxRetries
            let failure: RemoteError
            var wait: Double
            do {
                let response = try transport.send(request)
                log?("\(request.method) \(shown): HTTP \(response.status) (attempt \(attempt))")
                // A transport that does not keep to the bound is held to it here.
                guard response.body.count <= request.maxBodySize, budget.hold(response.body.count) else {
                    throw TransportError.bodyTooLarge(limit: request.maxBodySize)
                }
                // A 403 too: a token that lacks a scope is not a wrong key, and the API says which.
                if response.status >= 500 || response.status == 403,
                   let refused = refusal?(RemoteAnswer(response: response, url: shown, cacheAge: nil, warnings: [])) {
                    throw refused
                }
                switch response.status {
                case 200..<300: return response
                case 401, 403: throw RemoteError.unauthorized(url: shown, status: response.status)
                case 300..<400: throw RemoteError.protocolError(url: shown, reason: "unexpected redirect (HTTP \(response.status)); subs does not follow redirects")
                case let status where RetryPolicy.isRetryable(status: status):
                    let after = response.header("Retry-After").flatMap { RetryPolicy.retryAfter($0, now: clock.now()) }
                    failure = status == 429
                        ? .rateLimited(url: shown, retryAfter: after)
                        : .unavailable(url: shown, reason: "HTTP \(status)", attempts: attempt)
                    wait = after ?? retry.backoff(retry: attempt - 1, unit: random())
                case 100..<200, 500..<600:
                    throw RemoteError.unavailable(url: shown, reason: "HTTP \(response.status)", attempts: attempt)
                case 400..<500: return response
                default: throw RemoteError.protocolError(url: shown, reason: "HTTP status \(response.status)")
                }
            } catch let error as TransportError {
                log?("\(request.method) \(shown): \(error) (attempt \(attempt))")
                switch error {
                case .timedOut: throw RemoteError.timeout(url: shown, seconds: timeout)
                case .bodyTooLarge(let limit) where limit >= request.maxBodySize && request.maxBodySize < RemoteBudget.answerLimit:
                    throw RemoteError.answersTooLarge(url: shown, limit: budget.byteLimit)
                case .bodyTooLarge, .malformedResponse: throw RemoteError.protocolError(url: shown, reason: "\(error)")
                case .tls, .other: throw RemoteError.unavailable(url: shown, reason: "\(error)", attempts: attempt)
                case .cannotConnect, .dnsFailure, .connectionLost, .truncatedBody:
                    failure = .unavailable(url: shown, reason: "\(error)", attempts: attempt)
                    wait = retry.backoff(retry: attempt - 1, unit: random())
                }
            }
            // Another attempt only if one may be sent, and the wait leaves room for it.
            let left = deadline - monotonic()
            guard retriesLeft, wait < left - min(0.05, left / 2) else { throw failure }
            log?("\(request.method) \(shown): retrying in \(RemoteFormat.seconds(wait)) s")
            sleep(wait)
        }
    }
}

extension RemoteClient {
    /// Whether `bytes` are one JSON document, checked without building its values (a 15 MiB page
    /// checked for the cache costs no tree of it).
    static func isJSON(_ bytes: [UInt8]) -> Bool {
        var scan = ValidityScan()
        return bytes.withUnsafeBytes { (try? JSON.scan($0, visitor: &scan)) != nil }
    }

    private struct ValidityScan: JSONScanVisitor {
        var reportDepth: Int { -1 }
        mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) {}
        mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) {}
    }

    /// Sleeps `seconds` (fractions allowed).
    public static func sleepSeconds(_ seconds: Double) {
    var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    var left = timespec()
    while nanosleep(&time, &left) != 0 && errno == EINTR { time = left }
    }
}
