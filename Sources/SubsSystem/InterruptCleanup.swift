// What Ctrl-C during a write must and must not do: the temporary file being written is removed
// and the process ends (exit 130), unless the store has already been committed — then the
// command finishes normally, so a script never retries a write that happened. Whether the
// interrupt or the commit came first is decided by one try-lock that both take (never waited
// on: the signal handler may only do async-signal-safe things), so the answer is race-free
// whichever thread the signal lands on.

#if canImport(Glibc)
import Glibc
#endif

public enum InterruptCleanup {
    private static let capacity = 4096
    /// Everything the handler touches, allocated by `prepare()` before any handler exists.
    /// Shared with a signal handler, which no isolation can describe: written once by
    /// `prepare()`, then only through the spinlock and word-sized stores.
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var decision: UnsafeMutablePointer<pthread_spinlock_t>?
    nonisolated(unsafe) private static var committed: UnsafeMutablePointer<Int>?

    /// Sets up what `interrupt()` uses. Call once, before installing the SIGINT handler.
    public static func prepare() {
        guard path == nil else { return }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
        let lock = UnsafeMutablePointer<pthread_spinlock_t>.allocate(capacity: 1)
        pthread_spin_init(lock, Int32(PTHREAD_PROCESS_PRIVATE))
        let flag = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        flag.initialize(to: 0)
        committed = flag
        decision = lock
        path = buffer
    }

    /// Remembers the temporary file being written (a path too long to keep is not remembered:
    /// the next writer removes such a file instead).
    public static func remember(_ temporary: String) {
        guard let path else { return }
        let bytes = Array(temporary.utf8)
        path[0] = 0
        guard !bytes.isEmpty, bytes.count < capacity else { return }
        for i in 1..<bytes.count { path[i] = CChar(bitPattern: bytes[i]) }
        path[bytes.count] = 0
        path[0] = CChar(bitPattern: bytes[0])   // set last: the path is whole once it reads non-empty
    }

    public static func forget() {
        path?[0] = 0
    }

    /// Runs `commit` (the rename or link that puts a new store in place; true when it did) so
    /// that an interrupt either comes first — the commit never starts, the process is ending —
    /// or finds the commit under way or done and is ignored. A commit that fails leaves the
    /// command to report its error.
    public static func committing(_ commit: () throws -> Void) rethrows {
        guard let decision, let committed else { return try commit() }
        while pthread_spin_trylock(decision) != 0 {
            // The handler holds it for good: it is removing the temporary file and exiting.
            sleep(1)
        }
        defer { pthread_spin_unlock(decision) }
        try commit()
        committed.pointee = 1
    }

    /// For the SIGINT handler: true when the process should end now (the temporary file, if
    /// any, is removed and no commit can start any more); false when the store has been
    /// committed, or is being committed this instant, and the command must finish.
    /// Async-signal-safe: a try-lock, plain loads and stores, unlink(2).
    public static func interrupt() -> Bool {
        guard let decision, let committed, let path else { return true }
        guard pthread_spin_trylock(decision) == 0 else { return false }
        if committed.pointee != 0 {
            pthread_spin_unlock(decision)
            return false
        }
        // Kept locked: the process is ending and no commit may begin.
        if path[0] != 0 { unlink(path) }
        return true
    }
}
