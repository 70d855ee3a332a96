// Where "now" comes from: injected, so the rules and the tests never read the wall clock.

public protocol Clock: Sendable {
    func now() -> Instant
}

/// A clock that always answers the same instant (`SUBS_NOW`, tests).
public struct FixedClock: Clock {
    public let instant: Instant
    public init(_ instant: Instant) { self.instant = instant }
    public func now() -> Instant { instant }
}
