// A thread of its own for work that runs beside the scan (early decoding, copying the unchanged
// front of a store), and a way to wait for its end.

import Foundation

final class WorkerThread: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread at once (not a pool thread: the scan keeps the other core
    /// busy, and the work must not wait behind anything else).
    init(_ body: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [finished] in
            body()
            finished.signal()
        }
    }

    /// Waits until `body` has returned. Call once.
    func join() {
        finished.wait()
    }
}
