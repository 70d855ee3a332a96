// A point in time, exact to the nanosecond, compared as instants (offsets already applied).
// Everything subs reads or writes lies in years 0001–9999 (SPEC section 7): `Instant.supported`.

public struct Instant: Comparable, Hashable, Sendable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// 0 ..< 1_000_000_000
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func < (a: Instant, b: Instant) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanoseconds < b.nanoseconds
    }

    /// 0001-01-01T00:00:00Z, the first instant subs handles.
    public static let earliest = Instant(seconds: -62_135_596_800)
    /// 9999-12-31T23:59:59.999999999Z, the last instant subs handles.
    public static let latest = Instant(seconds: 253_402_300_799, nanoseconds: 999_999_999)

    /// Whether the instant lies in years 0001–9999 (a 4-digit year when written).
    public var isSupported: Bool { self >= Instant.earliest && self <= Instant.latest }

    /// This instant moved by whole seconds; nil when the result leaves years 0001–9999 (or the
    /// arithmetic would overflow).
    public func adding(seconds delta: Int64) -> Instant? {
        let (sum, overflow) = seconds.addingReportingOverflow(delta)
        guard !overflow else { return nil }
        let moved = Instant(seconds: sum, nanoseconds: nanoseconds)
        return moved.isSupported ? moved : nil
    }
}
