// The remote budget of one command (SPEC section 7 rev. 4, "Budgets"): made once, when the
// command makes its remote source, from `--timeout` and a monotonic clock, and shared by every
// request the command sends — each attempt, retry and Retry-After wait of each of them. A
// command about named customers ends within `--timeout` (plus the time to say so) however many
// requests it needs; a walk of a whole platform (none yet) bounds each page with `pageDeadline()`.
//
// Bytes: what the command holds of remote answers is bounded too (default 256 MiB). Each answer
// is charged as it arrives, and the transport is told how much is left, so a larger answer is
// stopped while it is received, never buffered; a source that is done with a customer's raw
// answers (a batch `check`, whose statuses are small) gives their bytes back.

import Dispatch
import Foundation

public final class RemoteBudget: @unchecked Sendable {
    /// Remote answers one command may hold, in total.
    public static let defaultByteLimit = 256 << 20
    /// The most one answer may be, whatever is left of the budget (larger: exit 76).
    public static let answerLimit = 16 << 20

    /// `--timeout`, in seconds.
    public let seconds: Double
    /// Bytes of answers the command may hold.
    public let byteLimit: Int
    /// The monotonic instant (seconds) the command's requests must end by.
    public let deadline: Double
    private let monotonic: () -> Double
    private let lock = NSLock()
    private var held = 0

    public init(seconds: Double, byteLimit: Int = RemoteBudget.defaultByteLimit,
                monotonic: @escaping () -> Double = RemoteBudget.uptime) {
        self.seconds = seconds
        self.byteLimit = max(0, byteLimit)
        self.monotonic = monotonic
        deadline = monotonic() + (seconds.isNaN ? 0 : seconds)
    }

    /// Seconds since boot on a clock that never jumps.
    public static let uptime: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    public func now() -> Double { monotonic() }

    /// Seconds left of the command's time (0 or less: spent).
    public var remaining: Double { deadline - monotonic() }
    public var isSpent: Bool { remaining <= 0 }

    /// For a command that walks a whole platform: one page's deadline, `--timeout` from now.
    public func pageDeadline() -> Double { monotonic() + seconds }

    // MARK: bytes

    /// Bytes of answers held now.
    public var heldBytes: Int { lock.lock(); defer { lock.unlock() }; return held }
    /// Bytes the next answer may have: what is left, and never more than one answer's bound.
    public var bytesLeft: Int {
        lock.lock(); defer { lock.unlock() }
        return max(0, min(Self.answerLimit, byteLimit - held))
    }
    /// Whether the budget, rather than the bound of one answer, limits the next answer.
    var budgetLimitsNextAnswer: Bool { byteLimit - heldBytes < Self.answerLimit }

    /// Counts an answer's bytes as held; false (nothing counted) when they do not fit.
    func hold(_ bytes: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard bytes <= byteLimit - held else { return false }
        held += bytes
        return true
    }

    /// Runs `body`, then gives back the bytes it held: for a source that keeps only what it made
    /// of the answers (a customer's status), not the answers themselves.
    public func releasing<T>(_ body: () throws -> T) rethrows -> T {
        let before = heldBytes
        defer { lock.lock(); held = min(held, before); lock.unlock() }
        return try body()
    }
}
