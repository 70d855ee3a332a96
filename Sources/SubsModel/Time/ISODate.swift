// Parsing and printing of ISO 8601 date-times, without Foundation's formatters or Calendar:
// pure integer arithmetic on the proleptic Gregorian calendar in UTC.

public enum ISODate {
    /// A store or wire date-time: `2026-03-01T12:00:00Z`, with optional fractional seconds
    /// (any number of digits, kept to the nanosecond, extra digits truncated) and `Z` or a
    /// `+hh:mm`/`-hh:mm` offset. Only uppercase `T` and `Z`; invalid calendar dates, hour 24
    /// and leap seconds are rejected, and so is an instant outside years 0001–9999 (year 0000,
    /// or an offset that pushes the date across either edge). `read` says which.
    public static func parse(_ text: String) -> Instant? {
        try? read(text)
    }

    /// What `parse` accepts; throws an `ISODateProblem` otherwise.
    public static func read(_ text: String) throws -> Instant {
        guard let instant = unchecked(text) else { throw problem(text) }
        guard instant.isSupported else { throw ISODateProblem.outOfRange }
        return instant
    }

    /// A command-line DATE: what `parse` accepts, a bare day `2026-03-01` (midnight UTC), `now`,
    /// and every form subs prints: the tables' `2026-03-01 12:00Z` (a space for the `T`, seconds
    /// left out) and `2026-03-01T12:00Z`, so a date copied from any output reads back.
    public static func parseInput(_ text: String, now: Instant) -> Instant? {
        try? readInput(text, now: now)
    }

    /// What `parseInput` accepts; throws an `ISODateProblem` otherwise.
    public static func readInput(_ text: String, now: Instant) throws -> Instant {
        if text == "now" {
            guard now.isSupported else { throw ISODateProblem.outOfRange }
            return now
        }
        var scanner = Scanner(Array(text.utf8))
        if let day = scanner.date(), scanner.atEnd {
            let instant = Instant(seconds: day * 86_400)
            guard instant.isSupported else { throw ISODateProblem.outOfRange }
            return instant
        }
        return try read(completingPrintedForm(text))
    }

    /// `2026-03-01 12:00Z` and `2026-03-01T12:00Z` (with any offset) as `2026-03-01T12:00:00Z`;
    /// anything else unchanged, for `read` to accept or refuse.
    private static func completingPrintedForm(_ text: String) -> String {
        var bytes = Array(text.utf8)
        // "YYYY-MM-DD" then the separator at byte 10 (years of four digits: the only ones printed).
        guard bytes.count >= 16, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return text }
        if bytes[10] == UInt8(ascii: " ") { bytes[10] = UInt8(ascii: "T") }
        guard bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":") else { return text }
        // "THH:MM" followed by Z or an offset: the seconds were left out.
        if bytes.count > 16, [UInt8(ascii: "Z"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[16]) {
            bytes.insert(contentsOf: Array(":00".utf8), at: 16)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The date-time without the range check (year 0000 and offsets across the edges pass).
    private static func unchecked(_ text: String) -> Instant? {
        var scanner = Scanner(Array(text.utf8))
        guard let day = scanner.date(), scanner.take(UInt8(ascii: "T")),
              let hour = scanner.number(digits: 2), hour < 24, scanner.take(UInt8(ascii: ":")),
              let minute = scanner.number(digits: 2), minute < 60, scanner.take(UInt8(ascii: ":")),
              let second = scanner.number(digits: 2), second < 60
        else { return nil }

        var nanoseconds: Int64 = 0
        if scanner.take(UInt8(ascii: ".")) {
            guard let fraction = scanner.fraction() else { return nil }
            nanoseconds = fraction
        }

        let offsetSeconds: Int64
        if scanner.take(UInt8(ascii: "Z")) {
            offsetSeconds = 0
        } else if let sign = scanner.sign() {
            guard let oh = scanner.number(digits: 2), oh < 24, scanner.take(UInt8(ascii: ":")),
                  let om = scanner.number(digits: 2), om < 60
            else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }

        let local = day * 86_400 + hour * 3600 + minute * 60 + second
        return Instant(seconds: local - offsetSeconds, nanoseconds: Int32(nanoseconds))
    }

    /// Why `text` is not a date-time: a year of five or more digits or a negative year
    /// (`10000-01-01`, `-0001-01-01`) is out of range; anything else is malformed.
    private static func problem(_ text: String) -> ISODateProblem {
        var bytes = Array(text.utf8)[...]
        let sign = bytes.first
        if sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
        guard bytes.dropFirst(digits).first == UInt8(ascii: "-") else { return .malformed }
        return digits > 4 || (sign == UInt8(ascii: "-") && digits == 4) ? .outOfRange : .malformed
    }

    /// `2026-03-01T12:00:00Z`: UTC, whole seconds (fractions dropped, i.e. toward the past).
    public static func format(_ i: Instant) -> String {
        let (y, m, d, hh, mm, ss) = fields(i)
        return "\(year(y))-\(pad2(m))-\(pad2(d))T\(pad2(hh)):\(pad2(mm)):\(pad2(ss))Z"
    }

    /// `2026-03-01 12:00Z`, for tables.
    public static func formatShort(_ i: Instant) -> String {
        let (y, m, d, hh, mm, _) = fields(i)
        return "\(year(y))-\(pad2(m))-\(pad2(d)) \(pad2(hh)):\(pad2(mm))Z"
    }

    /// `2026-03-01`, for sentences.
    public static func formatDay(_ i: Instant) -> String {
        let (y, m, d, _, _, _) = fields(i)
        return "\(year(y))-\(pad2(m))-\(pad2(d))"
    }

    /// "in 9d", "3d ago", "in 5h", "12m ago", "in 30s", "now": the largest whole unit, truncated
    /// toward zero; two years or more away it counts 365-day years ("in 3y").
    public static func relative(_ i: Instant, now: Instant) -> String {
        // Whole seconds of the exact difference, truncated toward zero (saturated: instants
        // built by hand may lie anywhere).
        let (difference, overflow) = i.seconds.subtractingReportingOverflow(now.seconds)
        var delta = overflow ? (i.seconds > now.seconds ? Int64.max : Int64.min + 1) : difference
        let nanos = Int64(i.nanoseconds) - Int64(now.nanoseconds)
        if delta > 0 && nanos < 0 { delta -= 1 }
        if delta < 0 && nanos > 0 { delta += 1 }
        if delta == 0 { return "now" }

        let magnitude = delta.magnitude
        let amount: String
        switch magnitude {
        case (730 * 86_400)...: amount = "\(magnitude / (365 * 86_400))y"
        case 86_400...: amount = "\(magnitude / 86_400)d"
        case 3600...: amount = "\(magnitude / 3600)h"
        case 60...: amount = "\(magnitude / 60)m"
        default: amount = "\(magnitude)s"
        }
        return delta > 0 ? "in \(amount)" : "\(amount) ago"
    }

    // MARK: - Calendar arithmetic (Howard Hinnant's days-from-civil / civil-from-days)

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
    }

    static func isLeapYear(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Splits an instant's whole-second part into UTC calendar fields; floor division keeps
    /// instants before 1970 on the right day.
    static func fields(_ i: Instant) -> (Int64, Int64, Int64, Int64, Int64, Int64) {
        let (days, secondOfDay) = floorDivMod(i.seconds, 86_400)
        let (y, m, d) = civilFromDays(days)
        return (y, m, d, secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
    }

    static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let r = a % b
        return r < 0 ? (a / b - 1, r + b) : (a / b, r)
    }

    private static func pad2(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func year(_ y: Int64) -> String {
        if y < 0 { return "-" + year(-y) }
        let s = String(y)
        return s.count >= 4 ? s : String(repeating: "0", count: 4 - s.count) + s
    }
}

/// Why a text is not a date-time subs accepts.
public enum ISODateProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not one of the accepted forms (or not a calendar date).
    case malformed
    /// A well-formed date outside years 0001–9999 (year 0000, five-digit years, an offset
    /// that carries it across an edge).
    case outOfRange

    public var description: String {
        switch self {
        case .malformed: return "not an ISO 8601 date-time"
        case .outOfRange: return "outside years 0001-9999"
        }
    }
}

/// A cursor over ASCII bytes for the fixed-width ISO forms.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int64? {
        if take(UInt8(ascii: "+")) { return 1 }
        if take(UInt8(ascii: "-")) { return -1 }
        return nil
    }

    /// Exactly `digits` decimal digits.
    mutating func number(digits: Int) -> Int64? {
        guard index + digits <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index ..< index + digits] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        index += digits
        return value
    }

    /// One or more digits after the decimal point, as nanoseconds (digits past the ninth dropped).
    mutating func fraction() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            if count < 9 { value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        while count < 9 { value *= 10; count += 1 }
        return value
    }

    /// `YYYY-MM-DD`, a valid calendar day, as days since 1970-01-01.
    mutating func date() -> Int64? {
        guard let y = number(digits: 4), take(UInt8(ascii: "-")),
              let m = number(digits: 2), (1...12).contains(m), take(UInt8(ascii: "-")),
              let d = number(digits: 2), d >= 1, d <= ISODate.daysInMonth(year: y, month: m)
        else { return nil }
        return ISODate.daysFromCivil(year: y, month: m, day: d)
    }
}
