// ISO 8601 durations (P1M, PT12H, P1Y2M3DT4H): calendar parts are added in UTC, clamped.

public struct ISODuration: Equatable, Hashable, Sendable {
    public var years: Int
    public var months: Int
    public var weeks: Int
    public var days: Int
    public var hours: Int
    public var minutes: Int
    /// Whole seconds (fractions of a second are not supported in durations).
    public var seconds: Int

    public init(years: Int = 0, months: Int = 0, weeks: Int = 0, days: Int = 0,
                hours: Int = 0, minutes: Int = 0, seconds: Int = 0) {
        self.years = years
        self.months = months
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// Largest value of one component: keeps every sum of a parsed duration far inside Int64.
    static let maxComponent = 999_999_999

    /// `P[nY][nM][nW][nD][T[nH][nM][nS]]` with non-negative whole numbers, designators in that
    /// order, at least one component, and at least one after a `T`. Nil for anything else
    /// (`P`, `PT`, `P1H`, `-P1D`, `P1.5D`, lowercase); `read` says why.
    public static func parse(_ text: String) -> ISODuration? {
        try? read(text)
    }

    /// What `parse` accepts; throws an `ISODurationProblem` saying what is wrong otherwise.
    public static func read(_ text: String) throws -> ISODuration {
        do {
            return try strict(Array(text.utf8))
        } catch let problem as ISODurationProblem {
            // Near misses the strict reading cannot name from where it stopped.
            if text.utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }),
               (try? strict(Array(text.uppercased().utf8))) != nil {
                throw ISODurationProblem.lowercase
            }
            if text.hasPrefix("-") { throw ISODurationProblem.negative }
            throw problem
        }
    }

    private static func strict(_ bytes: [UInt8]) throws -> ISODuration {
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        guard !bytes.isEmpty else { throw ISODurationProblem.empty }
        guard bytes[0] == UInt8(ascii: "P") else { throw ISODurationProblem.malformed }
        guard bytes.count > 1 else { throw ISODurationProblem.noComponent }
        var result = ISODuration()
        var index = 1
        var inTime = false
        var sawComponent = false
        var sawTimeComponent = false
        // Each designator may appear once, after the ones before it in the list.
        var nextDate = 0, nextTime = 0
        let dateDesignators: [UInt8] = Array("YMWD".utf8)
        let timeDesignators: [UInt8] = Array("HMS".utf8)

        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "T") {
                guard !inTime else { throw ISODurationProblem.outOfOrder }
                inTime = true
                index += 1
                continue
            }
            var value = 0
            var digits = 0
            while index < bytes.count, isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                guard value <= maxComponent else { throw ISODurationProblem.tooLarge }
                digits += 1
                index += 1
            }
            guard index < bytes.count else {
                throw digits > 0 ? ISODurationProblem.missingDesignator : ISODurationProblem.malformed
            }
            let designator = bytes[index]
            if digits == 0 {
                if designator == UInt8(ascii: "-") { throw ISODurationProblem.negative }
                if (dateDesignators + timeDesignators).contains(designator) { throw ISODurationProblem.missingNumber }
                throw ISODurationProblem.malformed
            }
            if designator == UInt8(ascii: ".") || designator == UInt8(ascii: ",") {
                // Which unit the fraction belongs to decides the wording.
                var end = index + 1
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                let unit = end < bytes.count ? bytes[end] : 0
                throw inTime && unit == UInt8(ascii: "S") ? ISODurationProblem.fractionalSeconds
                    : ISODurationProblem.fractional
            }
            index += 1
            if inTime {
                guard let slot = timeDesignators[nextTime...].firstIndex(of: designator) else {
                    if timeDesignators.contains(designator) { throw ISODurationProblem.outOfOrder }
                    if dateDesignators.contains(designator) { throw ISODurationProblem.dateAfterT }
                    throw ISODurationProblem.malformed
                }
                nextTime = slot + 1
                switch slot {
                case 0: result.hours = value
                case 1: result.minutes = value
                default: result.seconds = value
                }
                sawTimeComponent = true
            } else {
                guard let slot = dateDesignators[nextDate...].firstIndex(of: designator) else {
                    if dateDesignators.contains(designator) { throw ISODurationProblem.outOfOrder }
                    if timeDesignators.contains(designator) { throw ISODurationProblem.timeWithoutT }
                    throw ISODurationProblem.malformed
                }
                nextDate = slot + 1
                switch slot {
                case 0: result.years = value
                case 1: result.months = value
                case 2: result.weeks = value
                default: result.days = value
                }
            }
            sawComponent = true
        }
        if inTime && !sawTimeComponent { throw ISODurationProblem.emptyTime }
        guard sawComponent else { throw ISODurationProblem.noComponent }
        return result
    }

    /// Years and months as a count of months; nil when it does not fit in Int64.
    var monthCount: Int64? {
        let (yearMonths, o1) = Int64(years).multipliedReportingOverflow(by: 12)
        let (total, o2) = yearMonths.addingReportingOverflow(Int64(months))
        return o1 || o2 ? nil : total
    }

    /// The fixed-length part (weeks and smaller), in seconds; nil when it does not fit in Int64.
    var fixedSeconds: Int64? {
        var total: Int64 = 0
        func add(_ count: Int, _ unit: Int64) -> Bool {
            let (part, o1) = Int64(count).multipliedReportingOverflow(by: unit)
            let (sum, o2) = total.addingReportingOverflow(part)
            total = sum
            return !o1 && !o2
        }
        guard add(weeks, 604_800), add(days, 86_400), add(hours, 3600), add(minutes, 60), add(seconds, 1)
        else { return nil }
        return total
    }
}

/// Why a text is not an ISO 8601 duration, in words a user can act on.
public enum ISODurationProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing more precise to say than "not a duration".
    case malformed
    case empty
    /// `P` alone.
    case noComponent
    /// `PT`, `P1DT`.
    case emptyTime
    case lowercase
    case negative
    case fractional
    case fractionalSeconds
    /// A number past `ISODuration.maxComponent`.
    case tooLarge
    /// `P1` (a number with no designator).
    case missingDesignator
    /// `PD` (a designator with no number).
    case missingNumber
    /// `P1M1Y`, `P1D1D`, `PT1HT2M`.
    case outOfOrder
    /// `P1H`: hours, minutes, seconds before the `T`.
    case timeWithoutT
    /// `PT1D`: years, weeks, days after the `T`.
    case dateAfterT

    /// What is wrong, without quoting the text; empty for `.malformed`.
    public var description: String {
        switch self {
        case .malformed: return ""
        case .empty: return "is empty"
        case .noComponent: return "'P' alone has no component (P1D)"
        case .emptyTime: return "'T' must be followed by hours, minutes or seconds (PT12H)"
        case .lowercase: return "designators must be uppercase (P1D, PT12H)"
        case .negative: return "negative durations are not supported"
        case .fractional: return "fractional values are not supported; use a smaller unit (PT36H, not P1.5D)"
        case .fractionalSeconds: return "fractional seconds are not supported"
        case .tooLarge: return "a number is too large (at most \(ISODuration.maxComponent) per component)"
        case .missingDesignator: return "a number must be followed by a designator (Y, M, W, D; H, M, S after T)"
        case .missingNumber: return "each designator needs a number before it (P1D)"
        case .outOfOrder: return "designators must appear once each, in the order Y M W D T H M S"
        case .timeWithoutT: return "hours, minutes and seconds come after a 'T' (PT12H)"
        case .dateAfterT: return "years, weeks and days come before the 'T' (P1DT12H)"
        }
    }

    /// The whole message for `text`: "'P1.5S': fractional seconds are not supported", or
    /// "'3 months' is not an ISO 8601 duration" when there is nothing more precise to say.
    public func message(for text: String, quoted: String? = nil) -> String {
        let shown = quoted ?? "'\(text)'"
        return self == .malformed ? "\(shown) is not an ISO 8601 duration" : "\(shown): \(description)"
    }
}

extension ISODuration: CustomStringConvertible {
    /// Canonical text: zero components left out, `PT0S` for the empty duration.
    public var description: String {
        var text = "P"
        if years != 0 { text += "\(years)Y" }
        if months != 0 { text += "\(months)M" }
        if weeks != 0 { text += "\(weeks)W" }
        if days != 0 { text += "\(days)D" }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            if hours != 0 { text += "\(hours)H" }
            if minutes != 0 { text += "\(minutes)M" }
            if seconds != 0 { text += "\(seconds)S" }
        }
        return text == "P" ? "PT0S" : text
    }
}

extension ISODuration {
    /// Whether some instant of years 0001–9999 plus this duration is still in those years
    /// (a period of 9999 years or more fits nowhere).
    public var fitsSupportedRange: Bool { Instant.earliest.adding(self) != nil }
}

extension Instant {
    /// Years and months first, as calendar arithmetic in UTC clamped to the month's last day
    /// (Jan 31 + P1M = Feb 28, or 29 in leap years); then weeks, days, hours, minutes, seconds as
    /// fixed lengths (UTC has no daylight saving, so a day is always 86 400 seconds).
    ///
    /// Nil when this instant or the result lies outside years 0001–9999, or when the arithmetic
    /// would overflow: every caller decides what that means (a usage error for input, a data
    /// error for the store).
    public func adding(_ d: ISODuration) -> Instant? {
        guard isSupported, let monthDelta = d.monthCount, let fixed = d.fixedSeconds else { return nil }
        var moved = self
        if monthDelta != 0 {
            let (days, secondOfDay) = ISODate.floorDivMod(seconds, 86_400)
            let (y, m, day) = ISODate.civilFromDays(days)
            let (monthNumber, overflow) = (y * 12 + (m - 1)).addingReportingOverflow(monthDelta)
            guard !overflow else { return nil }
            let (newYear, monthIndex) = ISODate.floorDivMod(monthNumber, 12)
            guard (1...9999).contains(newYear) else { return nil }
            let newMonth = monthIndex + 1
            let newDay = min(day, ISODate.daysInMonth(year: newYear, month: newMonth))
            let newDays = ISODate.daysFromCivil(year: newYear, month: newMonth, day: newDay)
            moved = Instant(seconds: newDays * 86_400 + secondOfDay, nanoseconds: nanoseconds)
        }
        return moved.adding(seconds: fixed)
    }
}
