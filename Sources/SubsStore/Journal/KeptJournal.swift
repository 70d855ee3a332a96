// What serve's writer keeps of the journal from one write to the next, so that a write reads and
// checks only the lines appended since the last one (`JournalFile.read(after:)`) instead of the
// whole journal: the lines are still read from disk and checked under the lock before a write
// builds on them, and anything but an append since (a new journal, a cut, a changed header, a
// store of another version) is read whole as before.

import Foundation
import SubsJSON
import SubsModel

package final class KeptJournal: @unchecked Sendable {
    struct State {
        /// The store version the journal was applied to.
        var stamp: StoreStamp
        var read: JournalRead
        var overlay: JournalOverlay
        var aliases: JournalAliases
    }

    private let lock = NSLock()
    private var state: State?

    package init() {}

    /// What was kept (gone until kept again: a write that fails half-way leaves nothing stale).
    func take() -> State? {
        lock.withLock {
            defer { state = nil }
            return state
        }
    }

    func keep(_ kept: State) {
        lock.withLock { state = kept }
    }
}

/// The aliases of the customers the journal names, as their latest records say: which of them a
/// requested id may name, so that a write scans only those (not every record the journal holds).
struct JournalAliases {
    private(set) var owners: [ID: [ID]] = [:]
    private var of: [ID: [ID]] = [:]

    /// Customer `id`'s record is now `record` (nil: removed).
    mutating func update(_ id: ID, record: [UInt8]?) {
        for alias in of.removeValue(forKey: id) ?? [] {
            owners[alias]?.removeAll { $0 == id }
            if owners[alias]?.isEmpty == true { owners[alias] = nil }
        }
        guard let record, let aliases = (try? JSON.parse(record))?.objectValue?["aliases"]?.arrayValue else { return }
        let mine = aliases.compactMap(\.stringValue).map { ID($0) }
        guard !mine.isEmpty else { return }
        of[id] = mine
        for alias in mine where owners[alias]?.contains(id) != true { owners[alias, default: []].append(id) }
    }

    /// The customers of the journal that `ids` may name: by key or by alias.
    func candidates(for ids: [ID], in overlay: JournalOverlay) -> Set<ID> {
        var found: Set<ID> = []
        for id in ids {
            if overlay.overrides(id) { found.insert(id) }
            for owner in owners[id] ?? [] { found.insert(owner) }
        }
        return found
    }
}
