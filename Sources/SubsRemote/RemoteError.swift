// What can go wrong talking to a remote API. The CLI maps each case to an exit status (SPEC
// section 1): unavailable, timeout, notCached and libcurlMissing → 69; rateLimited → 75;
// protocolError and answersTooLarge → 76; unauthorized → 77; notFound → 3 (providers may decide otherwise); insecureURL, invalidURL
// and the API key cases → 78 (configuration), or 64 when the URL came from a flag.
// No message ever contains the API key: URLs are shown without user info, query or fragment.

/// Why a transport could not deliver a complete answer.
public enum TransportError: Error, Equatable, Sendable {
    /// Could not connect: nothing listens there, or the host or network is unreachable.
    case cannotConnect(String)
    /// The host name did not resolve.
    case dnsFailure(host: String)
    /// The connection was reset or lost before the answer was complete.
    case connectionLost
    /// The TLS handshake or certificate check failed.
    case tls(String)
    /// The deadline passed before the answer was complete.
    case timedOut
    /// The body ended before the length its Content-Length header announced.
    case truncatedBody(expected: Int, received: Int)
    /// The body is larger than the transport accepts.
    case bodyTooLarge(limit: Int)
    /// What came back is not HTTP.
    case malformedResponse
    /// Anything else the networking layer reported.
    case other(String)

    /// Whether the failure means "the server could not be reached" (retry, then fall back to the cache).
    public var isConnectionFailure: Bool {
        switch self {
        case .cannotConnect, .dnsFailure, .connectionLost, .truncatedBody: return true
        case .tls, .timedOut, .bodyTooLarge, .malformedResponse, .other: return false
        }
    }
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .cannotConnect(let reason): return "cannot connect: \(reason)"
        case .dnsFailure(let host): return "cannot resolve host '\(host)'"
        case .connectionLost: return "connection reset before the answer was complete"
        case .tls(let reason): return "TLS failure: \(reason)"
        case .timedOut: return "timed out"
        case .truncatedBody(let expected, let received): return "answer truncated: \(received) of \(expected) bytes"
        case .bodyTooLarge(let limit): return "answer larger than \(limit / (1 << 20)) MiB"
        case .malformedResponse: return "the answer is not HTTP"
        case .other(let reason): return reason
        }
    }
}

public enum RemoteError: Error, Equatable, Sendable {
    /// The server could not be reached (after retries), or answered 5xx after retries.
    case unavailable(url: String, reason: String, attempts: Int)
    /// No complete answer within the timeout budget (all attempts included).
    case timeout(url: String, seconds: Double)
    /// 429 after retries (or a Retry-After beyond the timeout budget).
    case rateLimited(url: String, retryAfter: Double?)
    /// The answer is not what the API defines (redirect, truncated, unexpected status…).
    case protocolError(url: String, reason: String)
    /// HTTP 401 or 403.
    case unauthorized(url: String, status: Int)
    /// HTTP 404 (providers usually turn this into "customer not found").
    case notFound(url: String)
    /// Plain http to a host that is not loopback; nothing was sent.
    case insecureURL(url: String)
    /// Not an absolute http(s) URL, or one with user info; nothing was sent.
    case invalidURL(url: String, reason: String)
    /// `--offline` (or a fallback) found no cached answer.
    case notCached(url: String)
    /// The API key file cannot be read to its end, or is too large (a configuration error).
    /// (Opening it, and refusing one that is not a secret file, is `SecretFileError`.)
    case apiKeyUnreadable(path: String, reason: String)
    /// The API key is empty (after trimming one trailing newline).
    case apiKeyEmpty(source: String)
    /// The API key holds characters no HTTP header may carry (a newline inside, control characters).
    case apiKeyInvalid(source: String, reason: String)
    /// The response cache cannot be used (the request itself may still have succeeded).
    case cache(path: String, reason: String)
    /// libcurl, which the transport loads on the first request, is not on this machine
    /// (or lacks a function); nothing was sent.
    case libcurlMissing(reason: String)
    /// The answers of the command would pass what it may hold in memory (`RemoteBudget`,
    /// `limit` bytes in all): this one was stopped while it arrived.
    case answersTooLarge(url: String, limit: Int)

    /// Whether the command's budget (its time or its bytes) ended the request, rather than the
    /// server: what a batch or a listing says of what it could not read.
    public var isBudgetSpent: Bool {
        switch self {
        case .timeout, .answersTooLarge: return true
        default: return false
        }
    }
}

extension RemoteError: CustomStringConvertible {
    /// One short lowercase line: the URL (without secrets) and what failed.
    public var description: String {
        switch self {
        case .unavailable(let url, let reason, let attempts):
            return "\(url): remote unavailable: \(reason)" + (attempts > 1 ? " (after \(attempts) attempts)" : "")
        case .timeout(let url, let seconds):
            return "\(url): no answer within the timeout (\(RemoteFormat.seconds(seconds)) s)"
        case .rateLimited(let url, let retryAfter):
            let hint = retryAfter.map { "; the server asks to retry after \(RemoteFormat.seconds($0)) s" } ?? ""
            return "\(url): rate limited (HTTP 429) after retries\(hint)"
        case .protocolError(let url, let reason): return "\(url): unexpected answer: \(reason)"
        case .unauthorized(let url, let status):
            return "\(url): permission denied (HTTP \(status)): check the API key (--api-key-file)"
        case .notFound(let url): return "\(url): not found (HTTP 404)"
        case .insecureURL(let url):
            return "\(url): refusing plain http to a host that is not a loopback address (127.x.x.x, [::1] or localhost, written so); use https"
        case .invalidURL(let url, let reason): return "\(url): invalid remote URL: \(reason)"
        case .notCached(let url): return "\(url): no cached answer (offline)"
        case .apiKeyUnreadable(let path, let reason): return "\(path): cannot read the API key file: \(reason)"
        case .apiKeyEmpty(let source): return "\(source): the API key is empty"
        case .apiKeyInvalid(let source, let reason): return "\(source): unusable API key: \(reason)"
        case .cache(let path, let reason): return "\(path): cache: \(reason)"
        case .answersTooLarge(let url, let limit):
            return "\(url): not read: the answers of this command would pass the \(RemoteFormat.bytes(limit)) subs holds of them"
        case .libcurlMissing(let reason):
            return "remote access needs libcurl (Debian/Ubuntu: apt-get install libcurl4): \(reason)"
        }
    }
}

extension RemoteError {
    /// Why the budget stopped a listing, said after what was read ("… for 3 pages only: the
    /// --timeout of 2 s was spent").
    public var budgetReason: String {
        switch self {
        case .timeout(_, let seconds): return "the --timeout of \(RemoteFormat.seconds(seconds)) s was spent"
        case .answersTooLarge(_, let limit):
            return "the command's remote answers reached the \(RemoteFormat.bytes(limit)) subs holds of them"
        default: return description
        }
    }
}

enum RemoteFormat {
    /// 268435456 → "256 MiB", 65536 → "64 KiB", 500 → "500 bytes".
    static func bytes(_ n: Int) -> String {
        if n >= 1 << 20 && n % (1 << 20) == 0 { return "\(n >> 20) MiB" }
        if n >= 1 << 10 && n % (1 << 10) == 0 { return "\(n >> 10) KiB" }
        return "\(n) bytes"
    }

    /// 10 → "10", 0.5 → "0.5", 2.25 → "2.25".
    static func seconds(_ s: Double) -> String {
        if s == s.rounded(), abs(s) < 1e15 { return String(Int(s)) }
        return String((s * 100).rounded() / 100)
    }

    /// An age for people: "12 s", "5 min", "3 h", "2 d".
    static func age(_ seconds: Double) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(Int(s)) s" }
        if s < 3600 { return "\(Int(s / 60)) min" }
        if s < 86400 { return "\(Int(s / 3600)) h" }
        return "\(Int(s / 86400)) d"
    }
}
