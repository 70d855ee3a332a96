// The POSTs of `subs serve` written together (see `GroupCommit`); the server's index follows
// each write from its edits.

import Foundation
import SubsModel

/// Group commit: a POST joins the queue; whoever finds no commit under way commits everything
/// queued in one write (each request succeeding or failing on its own), and goes on while more
/// arrived meanwhile. Fifty concurrent grants cost a few rewrites of the store, not fifty.
package final class GroupCommit: @unchecked Sendable {
    private let store: LocalStore
    private let served: ServedStore
    private let clock: any Clock
    private let lock = NSLock()
    private var pending: [Job] = []
    private var committing = false
    /// A fold of the journal is under way on its own thread.
    private var compacting = false
    /// Writes made so far (one per batch); the tests read it.
    private(set) var batches = 0

    private final class Job: @unchecked Sendable {
        let request: ChangeRequest
        var result: Result<StoredRecord, Error>?
        let done = DispatchSemaphore(value: 0)
        init(_ request: ChangeRequest) { self.request = request }
    }

    package init(store: LocalStore, served: ServedStore, clock: any Clock) {
        self.store = store
        self.served = served
        self.clock = clock
    }

    package func submit(_ request: ChangeRequest) -> Result<StoredRecord, Error> {
        let job = Job(request)
        lock.lock()
        pending.append(job)
        if committing {
            lock.unlock()
            job.done.wait()
            return job.result!
        }
        committing = true
        lock.unlock()
        gatherArrivals()
        while true {
            lock.lock()
            let batch = pending
            pending = []
            if batch.isEmpty {
                committing = false
                lock.unlock()
                compactIfPastBound()
                break
            }
            batches += 1
            lock.unlock()
            let results: [Result<StoredRecord, Error>]
            // The index follows the write from its edits: the next GET sees it, with no scan.
            var report: CommitReport?
            do {
                let written = try store.applyEachReporting(batch.map(\.request), now: clock.now(),
                                                           willCommit: { served.willCommit($0) })
                report = written.report
                results = written.results.map { $0.mapError { $0 as Error } }
            } catch {
                results = batch.map { _ in .failure(error) }
            }
            served.endWrite(report)
            served.journalWritten()
            for (waiting, result) in zip(batch, results) {
                waiting.result = result
                if waiting !== job { waiting.done.signal() }
            }
        }
        return job.result!
    }

    /// Past the journal's bound, folds it on a thread of its own: the POST that found it past
    /// was answered already, and GETs keep answering from the version and the journal until the
    /// new store is in place (its index derived from the fold's edits, no scan).
    private func compactIfPastBound() {
        guard store.journalPastBound else { return }
        guard lock.withLock({ () -> Bool in
            if compacting { return false }
            compacting = true
            return true
        }) else { return }
        let thread = Thread { [self] in
            let report = try? store.compactReporting(willCommit: { [served] in served.willCommit($0) })
            served.endWrite(report ?? nil)
            lock.withLock { compacting = false }
        }
        thread.name = "subs-journal-fold"
        thread.start()
    }

    /// Requests sent together arrive over a few milliseconds: the first one waits until none
    /// came for 2 ms (20 ms at most) so that they share its write instead of the next one —
    /// a rewrite of the store takes far longer than the wait.
    private func gatherArrivals() {
        var waited = 0
        var seen = lock.withLock { pending.count }
        while waited < 20_000 {
            usleep(2_000)
            waited += 2_000
            let now = lock.withLock { pending.count }
            if now == seen { break }
            seen = now
        }
    }
}
