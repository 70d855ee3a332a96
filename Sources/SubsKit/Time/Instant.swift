// A point in time, exact to the nanosecond, compared as instants (offsets already applied).

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

    /// This instant moved by whole seconds (used for fixed-length parts of durations).
    public func adding(seconds delta: Int64) -> Instant {
        Instant(seconds: seconds + delta, nanoseconds: nanoseconds)
    }
}
