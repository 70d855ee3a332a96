// Copies the unchanged front of the store into the temporary file on another core while the
// scan is still running: everything before the first customer a write changes is final as
// soon as the scanner has passed it. The write then only has the rest left to do.

import Foundation

// Shared with one helper thread: `safeEnd` and `stopping` are guarded by `condition`; the rest belongs to the copying thread until `finish()`.
final class PrefixCopier: @unchecked Sendable {
    private let file: MappedFile
    private let temp: TemporaryFile
    private let condition = NSCondition()
    private var worker: WorkerThread?
    // Guarded by `condition`:
    private var safeEnd = 0
    private var stopping = false
    // Touched by the copying thread only until `finish()` returns:
    private var copied = 0
    private var failure: Error?
    private var finished: Result<Int, Error>?

    init(file: MappedFile, temp: TemporaryFile) {
        self.file = file
        self.temp = temp
        worker = WorkerThread { [self] in run() }
    }

    /// The bytes before `offset` will not change: they may be copied.
    func advance(to offset: Int) {
        condition.lock()
        if offset > safeEnd {
            safeEnd = offset
            condition.signal()
        }
        condition.unlock()
    }

    /// Waits until everything known to be safe is copied; returns how far that is. Called
    /// again, it answers the same.
    func finish() throws -> Int {
        if let finished { return try finished.get() }
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        worker?.join()
        let result: Result<Int, Error> = failure.map { .failure($0) } ?? .success(copied)
        finished = result
        return try result.get()
    }

    private func run() {
        while true {
            condition.lock()
            while safeEnd == copied && !stopping { condition.wait() }
            let end = safeEnd
            condition.unlock()
            if end == copied { return }   // stopping, and all caught up
            do {
                try temp.write(UnsafeRawBufferPointer(rebasing: file.bytes[copied..<end]))
                // The scan has passed these pages and released them; this read mapped them again.
                file.release(copied..<end)
            } catch {
                failure = error
                return
            }
            copied = end
        }
    }
}
