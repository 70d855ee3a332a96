// The remote budget of one command (SPEC section 7 rev. 4, "Budgets"): made once, when the
// command makes its remote source, from `--timeout` and a monotonic clock, and shared by every
// request the command sends — each attempt, retry and Retry-After wait of each of them. A
// command about named customers ends within `--timeout` (plus the time to say so) however many
// requests it needs; a walk of a whole platform (none yet) bounds each page with `pageDeadline()`.
//
// Bytes: what the command holds of remote answers is bounded too (default 256 MiB). Each answer
// is charged as it arrives, and the transport is told how much is left, so a larger answer is
// stopped while it is received, never buffered; a source that is done with a customer's raw
// answers (a batch `check`, whose statuses are small) gives their bytes back. What a listing
// keeps is its decoded items, not its pages, and they take more memory than the bytes they came
// in (a purchase of 400 bytes is several strings, then a history entry): with `measuresHeap`,
// what the command holds is also read from the allocator (the bytes in use beyond those in use
// when the budget was made), and the larger of the two counts.

import Dispatch
import Foundation
import SubsSystem

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
    /// The allocator's bytes in use when the budget was made; nil: the heap is not measured.
    private let heapBaseline: Int?

    /// `measuresHeap`: count what the process's heap grew by too (the command's process; a test
    /// process shares its heap with its fakes, so tests of the byte count leave it off).
    public init(seconds: Double, byteLimit: Int = RemoteBudget.defaultByteLimit, measuresHeap: Bool = false,
                monotonic: @escaping () -> Double = RemoteBudget.uptime) {
        self.seconds = seconds
        self.byteLimit = max(0, byteLimit)
        self.monotonic = monotonic
        heapBaseline = measuresHeap ? RemoteBudget.heapInUse() : nil
        deadline = monotonic() + (seconds.isNaN ? 0 : seconds)
    }

    /// Bytes the allocator has handed out and not taken back (small blocks and mapped ones).
    static func heapInUse() -> Int { HeapInUse.bytes() }

    /// What is held: the answers charged, or what the heap grew by, whichever is more. Locked.
    private var holding: Int {
        guard let heapBaseline else { return held }
        return max(held, RemoteBudget.heapInUse() - heapBaseline)
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
    public var heldBytes: Int { lock.lock(); defer { lock.unlock() }; return holding }
    /// Bytes the next answer may have: what is left, and never more than one answer's bound.
    public var bytesLeft: Int {
        lock.lock(); defer { lock.unlock() }
        return max(0, min(Self.answerLimit, byteLimit - holding))
    }

    /// Counts an answer's bytes as held; false (nothing counted) when they do not fit. (A
    /// received answer is in the heap already: only the answers charged are compared here.)
    func hold(_ bytes: Int) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard bytes <= byteLimit - held else { return false }
        held += bytes
        return true
    }

    /// Counts `bytes` the command keeps of what it decoded (a listing's items, at their cost in
    /// memory: `Footprint`) as held; false (nothing counted) when they do not fit: the listing
    /// stops there, incomplete, instead of growing past the bound.
    public func keep(_ bytes: Int) -> Bool { hold(bytes) }

    /// Gives back `bytes` held: an answer once it is decoded into the items kept of it (which
    /// were counted with `keep`), so that a page is never counted twice.
    public func release(_ bytes: Int) {
        lock.lock(); defer { lock.unlock() }
        held = max(0, held - bytes)
    }

    /// The error a listing stops with when what it keeps reaches the bound.
    public func boundReached(url: String) -> RemoteError { .answersTooLarge(url: url, limit: byteLimit) }

    /// Runs `body`, then gives back the bytes it held: for a source that keeps only what it made
    /// of the answers (a customer's status), not the answers themselves.
    public func releasing<T>(_ body: () throws -> T) rethrows -> T {
        let before = heldBytes
        defer { lock.lock(); held = min(held, before); lock.unlock() }
        return try body()
    }
}
