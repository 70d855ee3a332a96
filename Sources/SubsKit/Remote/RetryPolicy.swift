// When to try a request again and how long to wait: exponential backoff with full jitter,
// or what the server's Retry-After says (seconds or an HTTP-date).

import Foundation

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

/// HTTP-dates (RFC 9110 5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete
/// RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` forms.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    public static func parse(_ text: String) -> Instant? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: [Int]?
        if words.count == 6, words[5] == "GMT" {             // IMF-fixdate
            day = Int(words[1]); month = monthNumber(words[2]); year = Int(words[3]); time = clock(words[4])
        } else if words.count == 4, words[3] == "GMT" {      // RFC 850: [Sunday, 06-Nov-94, 08:49:37, GMT]
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let y = Int(parts[2]) else { return nil }
            day = Int(parts[0]); month = monthNumber(parts[1]); time = clock(words[2])
            year = parts[2].count == 2 ? (y < 70 ? 2000 + y : 1900 + y) : y
        } else if words.count == 5 {                         // asctime: [Sun, Nov, 6, 08:49:37, 1994]
            month = monthNumber(words[1]); day = Int(words[2]); time = clock(words[3]); year = Int(words[4])
        }
        guard let d = day, let m = month, let y = year, let t = time, (1...31).contains(d), (1...9999).contains(y) else { return nil }
        return Instant(seconds: daysFromCivil(y, m, d) * 86400 + Int64(t[0] * 3600 + t[1] * 60 + t[2]))
    }

    private static func monthNumber(_ s: String) -> Int? { months.firstIndex(of: s.lowercased()).map { $0 + 1 } }

    private static func clock(_ s: String) -> [Int]? {
        let parts = s.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 3, (0...23).contains(parts[0]), (0...59).contains(parts[1]), (0...60).contains(parts[2]) else { return nil }
        return parts
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
