// What an answer says besides its result, collected one way by every source: notes (said as
// `subs: note:`) and warnings (`subs: warning:`, an item of a platform's answer left out as
// malformed). A source that reads several answers for one command (pages, an identity, a user)
// passes one `Remarks` through its fetches, so each remark is said once, in the order it came.

import Foundation
import SubsModel
import SubsRemote

public struct Remarks: Equatable, Sendable {
    /// In the order first said, each once.
    public private(set) var notes: [String] = []
    /// In the order first said, each once; apart from the notes (a note and a warning of the same
    /// words are both kept: they go to stderr with different prefixes).
    public private(set) var warnings: [String] = []

    public init(notes: [String] = [], warnings: [String] = []) {
        for note in notes { self.note(note) }
        for warning in warnings { warn(warning) }
    }

    public var isEmpty: Bool { notes.isEmpty && warnings.isEmpty }

    /// Remarks name ids: one is a repeat only when its bytes are (a note about NFC `café` is
    /// not one about NFD `café`).
    public mutating func note(_ note: String) {
        if !notes.contains(where: { ID.bytesEqual($0, note) }) { notes.append(note) }
    }

    public mutating func warn(_ warning: String) {
        if !warnings.contains(where: { ID.bytesEqual($0, warning) }) { warnings.append(warning) }
    }

    /// What the client said of an answer (that it came from the cache, how old and why; a cache
    /// that could not be written) is a note: the answer itself is whole.
    public mutating func note(from answer: RemoteAnswer) {
        for note in answer.warnings { self.note(note) }
    }

    /// One warning for each item of `answer` (`IAPHUB user 'bob'`) left out as malformed.
    public mutating func leaveOut(_ items: [WireFormatError], of answer: String) {
        for item in items { warn(item.leftOut(of: answer)) }
    }

    /// `other`'s notes after these, its warnings after these (the ones already said dropped).
    public mutating func merge(_ other: Remarks) {
        for note in other.notes { self.note(note) }
        for warning in other.warnings { warn(warning) }
    }
}

/// An answer of the source seam: its notes and warnings are what the CLI says on stderr.
public protocol RemarkedAnswer {
    var notes: [String] { get set }
    var warnings: [String] { get set }
}

extension RemarkedAnswer {
    public var remarks: Remarks {
        get { Remarks(notes: notes, warnings: warnings) }
        set {
            notes = newValue.notes
            warnings = newValue.warnings
        }
    }
}

// Each answer is built from the Remarks a source collected (`remarks` has no default, so that an
// answer built without any still picks the init that takes plain lists).

extension StatusAnswer: RemarkedAnswer {
    public init(requestDate: Instant, statuses: [CustomerStatus?], knownEntitlements: Set<ID>? = nil,
                remarks: Remarks, complete: Bool = true, incompleteReason: String? = nil, unanswered: [Int: RemoteError] = [:]) {
        self.init(requestDate: requestDate, statuses: statuses, knownEntitlements: knownEntitlements, notes: remarks.notes,
                  warnings: remarks.warnings, complete: complete, incompleteReason: incompleteReason, unanswered: unanswered)
    }
}

extension HistoryAnswer: RemarkedAnswer {
    public init(requestDate: Instant, customerId: ID, provider: String, entries: [HistoryEntry],
                complete: Bool = true, incompleteReason: String? = nil, remarks: Remarks,
                knownEntitlements: Set<ID>? = nil, catalog: Catalog? = nil, accessEnds: [AccessEnd] = []) {
        self.init(requestDate: requestDate, customerId: customerId, provider: provider, entries: entries, complete: complete,
                  incompleteReason: incompleteReason, notes: remarks.notes, warnings: remarks.warnings,
                  knownEntitlements: knownEntitlements, catalog: catalog, accessEnds: accessEnds)
    }
}

extension ChangeAnswer: RemarkedAnswer {
    public init(requestDate: Instant, customers: [(change: ChangedCustomer, status: EntitlementInfo?)], remarks: Remarks) {
        self.init(requestDate: requestDate, customers: customers, notes: remarks.notes, warnings: remarks.warnings)
    }
}

extension FindAnswer: RemarkedAnswer {
    public init(requestDate: Instant, results: [FindResult], remarks: Remarks) {
        self.init(requestDate: requestDate, results: results, notes: remarks.notes, warnings: remarks.warnings)
    }
}

/// Remarks gathered across calls by a source that can only hand them over later (a RecordStore
/// says them through `takeRemarks()`, after the lookup that heard them). Locked: a store is a
/// value that may be shared between threads, and this box is the one part of it that changes.
package final class PendingRemarks: @unchecked Sendable {
    private var remarks = Remarks()
    private let lock = NSLock()

    package init() {}

    package func add(_ more: Remarks) {
        lock.lock()
        defer { lock.unlock() }
        remarks.merge(more)
    }

    /// Everything gathered since the last take, in order; the box is empty after.
    package func take() -> Remarks {
        lock.lock()
        defer {
            remarks = Remarks()
            lock.unlock()
        }
        return remarks
    }
}
