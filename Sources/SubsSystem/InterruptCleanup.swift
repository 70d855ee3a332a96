// Safety: what Ctrl-C during a write must and must not do. The temporary file being written is
// removed and the process ends (the status and message the command line chose), unless the
// store has already been committed — then the command finishes normally, so a script never
// retries a write that happened. The handler and everything it touches are C (interrupt.c, whose
// note gives the invariants): static storage only, one lock-free atomic state word that the
// writer's side below also goes through, a handler that never waits (an interrupt that lands
// while the path is being changed is re-raised right after, not lost). No Swift code runs in
// the signal handler. Without `install` (tests that run the command line in-process) every call
// here is a no-op apart from running the commit.

import CSubsSystem

public enum InterruptCleanup {
    /// Installs the SIGINT handler: `message` (one line, at most 255 bytes) is written to stderr
    /// and the process exits with `exitStatus` when a Ctrl-C comes before the commit.
    public static func install(message: String, exitStatus: Int32) {
        _ = subs_interrupt_install(message, exitStatus)
    }

    /// Remembers the temporary file being written (a path too long to keep is not remembered:
    /// the next writer removes such a file instead).
    public static func remember(_ temporary: String) {
        subs_interrupt_remember(temporary)
    }

    public static func forget() {
        subs_interrupt_remember(nil)
    }

    /// Runs `commit` (the rename or link that puts a new store in place) so that an interrupt
    /// either comes first — the commit never starts, the process is ending — or finds the commit
    /// under way or done and is ignored. A commit that fails (throws) leaves the command to
    /// report its error, and later interrupts end the process again.
    public static func committing(_ commit: () throws -> Void) rethrows {
        let token = subs_interrupt_commit_begin()
        do {
            try commit()
        } catch {
            subs_interrupt_commit_end(token, 0)
            throw error
        }
        subs_interrupt_commit_end(token, 1)
    }
}
