// When to try a request again and how long to wait: exponential backoff with full jitter,
// or what the server's Retry-After says (seconds or an HTTP-date).

import Foundation
import SubsHTTP
import SubsModel

public struct RetryPolicy: Sendable {
    /// Retries after the first attempt.
    public var maxRetries: Int
    /// The first backoff window, doubled per retry, capped at `maxDelay` (seconds).
    public var baseDelay: Double
    public var maxDelay: Double

    public init(maxRetries: Int = 3, baseDelay: Double = 0.25, maxDelay: Double = 4) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Full jitter: a uniform pick in [0, min(maxDelay, base × 2^retry)); `unit` is in [0, 1).
    public func backoff(retry: Int, unit: Double) -> Double {
        let window = min(maxDelay, baseDelay * pow(2, Double(min(retry, 30))))
        return window * min(max(unit, 0), 1)
    }

    /// Statuses worth another attempt for a request that may be repeated. 500 is included: it is
    /// what most servers answer for a transient fault; 501 and other 5xx are not transient.
    public static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 500 || status == 502 || status == 503 || status == 504
    }

    /// Whether `method` may be sent again: safe methods always, others only with an
    /// Idempotency-Key (the server then answers a repeat without doing it twice).
    public static func mayRepeat(method: String, headers: [(name: String, value: String)]) -> Bool {
        switch method.uppercased() {
        case "GET", "HEAD", "OPTIONS": return true
        default: return HeaderList.first("Idempotency-Key", in: headers).map { !$0.isEmpty } ?? false
        }
    }

    /// Seconds to wait from a Retry-After value: delay-seconds, or an HTTP-date relative to
    /// `now` (past dates → 0). nil when the value is neither.
    public static func retryAfter(_ value: String, now: Instant) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return Double(text.prefix(10)).map { min($0, 1e9) }
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = Double(date.seconds - now.seconds) - Double(now.nanoseconds) / 1e9
        return max(0, seconds)
    }
}

/// HTTP-dates (`Date`, `Retry-After`) as instants; the grammar is SubsHTTP's `HTTPDateFormat`,
/// which also writes the server's `Date`.
public enum HTTPDate {
    public static func parse(_ text: String) -> Instant? { HTTPDateFormat.seconds(text).map { Instant(seconds: $0) } }
}
