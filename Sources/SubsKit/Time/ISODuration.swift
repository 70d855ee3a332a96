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
    /// (`P`, `PT`, `P1H`, `-P1D`, `P1.5D`, lowercase).
    public static func parse(_ text: String) -> ISODuration? {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "P") else { return nil }
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
                guard !inTime else { return nil }
                inTime = true
                index += 1
                continue
            }
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                guard value <= maxComponent else { return nil }
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count else { return nil }
            let designator = bytes[index]
            index += 1
            if inTime {
                guard let slot = timeDesignators[nextTime...].firstIndex(of: designator) else { return nil }
                nextTime = slot + 1
                switch slot {
                case 0: result.hours = value
                case 1: result.minutes = value
                default: result.seconds = value
                }
                sawTimeComponent = true
            } else {
                guard let slot = dateDesignators[nextDate...].firstIndex(of: designator) else { return nil }
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
        guard sawComponent, !inTime || sawTimeComponent else { return nil }
        return result
    }

    /// The fixed-length part (weeks and smaller), in seconds.
    var fixedSeconds: Int64 {
        Int64(weeks) * 604_800 + Int64(days) * 86_400 + Int64(hours) * 3600
            + Int64(minutes) * 60 + Int64(seconds)
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

extension Instant {
    /// Years and months first, as calendar arithmetic in UTC clamped to the month's last day
    /// (Jan 31 + P1M = Feb 28, or 29 in leap years); then weeks, days, hours, minutes, seconds as
    /// fixed lengths (UTC has no daylight saving, so a day is always 86 400 seconds).
    public func adding(_ d: ISODuration) -> Instant {
        var moved = self
        let monthDelta = Int64(d.years) * 12 + Int64(d.months)
        if monthDelta != 0 {
            let (days, secondOfDay) = ISODate.floorDivMod(seconds, 86_400)
            let (y, m, day) = ISODate.civilFromDays(days)
            let (newYear, monthIndex) = ISODate.floorDivMod(y * 12 + (m - 1) + monthDelta, 12)
            let newMonth = monthIndex + 1
            let newDay = min(day, ISODate.daysInMonth(year: newYear, month: newMonth))
            let newDays = ISODate.daysFromCivil(year: newYear, month: newMonth, day: newDay)
            moved = Instant(seconds: newDays * 86_400 + secondOfDay, nanoseconds: nanoseconds)
        }
        return moved.adding(seconds: d.fixedSeconds)
    }
}
