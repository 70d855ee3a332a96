// ISO 8601 durations (P1M, PT12H, P1Y2M3DT4H): calendar parts are added in UTC, clamped.
// STUB — to be implemented (rules/time helper).

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
}

// Contract:
//   ISODuration.parse(_ text: String) -> ISODuration?      nil when not a valid ISO 8601 duration
//   ISODuration.description                                 canonical text ("P1Y2M3DT4H", "P16D")
//   Instant.adding(_ d: ISODuration) -> Instant            years/months in UTC calendar, clamped to
//                                                          the month's last day (Jan 31 + P1M = Feb 28/29),
//                                                          then weeks/days/hours/minutes/seconds.
