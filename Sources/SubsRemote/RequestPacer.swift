// Pacing for APIs with a request-rate limit (IAPHUB: 5 requests a second per endpoint): at most
// `limit` requests start within any window of `interval` seconds; a request beyond waits for
// the oldest of the window to leave it. A 429 that comes anyway is still retried by
// RemoteClient, honouring Retry-After.

import Foundation

public final class RequestPacer: @unchecked Sendable {
    public let limit: Int
    public let interval: Double
    private let monotonic: () -> Double
    private let sleep: (Double) -> Void
    private let lock = NSLock()
    /// Start times of the last `limit` requests, oldest first.
    private var starts: [Double] = []

    public init(limit: Int, interval: Double,
                monotonic: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
                sleep: @escaping (Double) -> Void = { RemoteClient.sleepSeconds($0) }) {
        self.limit = max(1, limit)
        self.interval = interval
        self.monotonic = monotonic
        self.sleep = sleep
    }

    /// Waits until one more request may start, and counts it as started. Waits no longer than
    /// `budget` seconds: returns false (nothing counted) when the wait would be longer.
    @discardableResult
    public func admit(budget: Double = .infinity) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        // Holding the lock while sleeping keeps the order of callers and the count exact.
        let now = monotonic()
        var wait = 0.0
        if starts.count >= limit { wait = max(0, starts[starts.count - limit] + interval - now) }
        guard wait <= budget else { return false }
        if wait > 0 { sleep(wait) }
        starts.append(now + wait)
        if starts.count > limit { starts.removeFirst(starts.count - limit) }
        return true
    }
}

/// A transport whose every request — retries included — waits its turn with a RequestPacer;
/// answers from the cache never reach it, so they are never delayed.
public struct PacedTransport: HTTPTransport {
    let transport: HTTPTransport
    let pacer: RequestPacer

    public init(_ transport: HTTPTransport, pacer: RequestPacer) {
        self.transport = transport
        self.pacer = pacer
    }

    public func send(_ request: RemoteRequest) throws -> RemoteResponse {
        // The wait counts against the request's deadline: one that cannot start in time has timed out.
        guard pacer.admit(budget: request.timeout) else { throw TransportError.timedOut }
        return try transport.send(request)
    }
}
