// HTTP-dates (RFC 9110 5.6.7), both ways: the `Date` the engine stamps on every answer, and the
// dates the remote client reads (`Date`, `Retry-After`) in any of the three forms a server may send.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP-dates (RFC 9110 5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete
/// RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` forms.
public enum HTTPDateFormat {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since 1970 (UTC) of an HTTP-date in any of its three forms; nil for anything else.
    public static func seconds(_ text: String) -> Int64? {
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
        return daysFromCivil(y, m, d) * 86400 + Int64(t[0] * 3600 + t[1] * 60 + t[2])
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

/// RFC 9110 5.6.7 IMF-fixdate of a POSIX time: `Sun, 06 Nov 1994 08:49:37 GMT`.
public func imfFixdate(_ seconds: Int) -> String {
    var t = time_t(seconds)
    var parts = tm()
    gmtime_r(&t, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    var year = String(parts.tm_year + 1900)
    while year.count < 4 { year = "0" + year }
    return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
        + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
}
