// How many searches of `subs serve` run at once. A search scans the whole store and decodes the
// customers of its page: a few at a time keep the server's memory bounded (each holds the places
// of its matches and one page) and share the cores; the excess waits its turn a while.
// Decisions: at most `running` searches run; up to `waiting` more wait, each at most `patience`
// seconds; a search beyond that, or one that waited that long, is answered 503 `busy` with
// `Retry-After: 1` (the client exits 75, as for a store lock that stayed busy). A waiting search
// holds a worker thread, which is why the wait is bounded too.

import Dispatch
import Foundation

final class SearchGate: @unchecked Sendable {
    let running: Int
    let waiting: Int
    let patience: Double
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var queued = 0

    init(running: Int = 4, waiting: Int = 16, patience: Double = 10) {
        self.running = running
        self.waiting = waiting
        self.patience = patience
        slots = DispatchSemaphore(value: running)
    }

    /// Runs `body` when a slot is free; nil when the gate is full or the wait ran out.
    func run<T>(_ body: () throws -> T) rethrows -> T? {
        guard slots.wait(timeout: .now()) == .success || enqueue() else { return nil }
        defer { slots.signal() }
        return try body()
    }

    /// Waits for a slot as one of at most `waiting`; false when there is no room or none came.
    private func enqueue() -> Bool {
        let admitted = lock.withLock { () -> Bool in
            guard queued < waiting else { return false }
            queued += 1
            return true
        }
        guard admitted else { return false }
        let got = slots.wait(timeout: .now() + patience) == .success
        lock.withLock { queued -= 1 }
        return got
    }
}
