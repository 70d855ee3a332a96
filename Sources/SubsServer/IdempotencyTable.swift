// The Idempotency-Key table of `subs serve` (SPEC section 6): a key is looked up on its own; the
// request it first came with is kept as a fingerprint (method, action, customer, body digest) with
// what a replay needs. A repeat of a key whose first request is being answered waits for that
// answer. Bounded in bytes, not in entries: an answer grows with its customer's history, so a
// count bound let memory grow with the square of the grants (1 200 grants on a 40 KB store: over
// 100 MB). Decisions: answers up to `exactLimit` bytes are kept as sent (a replay is that answer);
// larger ones as a reference (status and customer), re-read at replay; past `budget` bytes the
// oldest entries go first, one at a time, never the whole table; entries older than `window`
// seconds are not replayed.

import Foundation
import SubsJSON
import SubsHTTP
import SubsModel

/// What binds an Idempotency-Key to the request it first came with.
struct RequestFingerprint: Equatable, Sendable {
    var method: String
    /// The path after the customer: ["grants"], ["entitlements", E, "revoke"] (decoded), compared
    /// by bytes: E is an entitlement id.
    var action: [ID]
    /// The customer as this request spelled it (percent-decoded: `%67wen` is `gwen`).
    var customer: ID
    /// SHA-256 of the body as received.
    var bodyDigest: [UInt8]

    init(method: String, action: [String], customer: ID, body: [UInt8]) {
        self.method = method
        self.action = action.ids
        self.customer = customer
        var hash = SHA256()
        hash.update(body)
        bodyDigest = hash.finish()
    }

    /// Bytes it holds (strings and digest), for the table's bound.
    var cost: Int { method.utf8.count + action.reduce(0) { $0 + $1.utf8.count } + customer.utf8.count + bodyDigest.count }

    static func == (a: RequestFingerprint, b: RequestFingerprint) -> Bool {
        JSON.bytesEqual(a.method, b.method) && a.action == b.action && a.customer == b.customer && a.bodyDigest == b.bodyDigest
    }
}

final class IdempotencyTable: @unchecked Sendable {
    enum Stored {
        /// The answer as first sent.
        case answer(HTTPResponse)
        /// The first answer's status; the customer is read again to answer a replay.
        case reference(status: Int)
    }

    struct Entry {
        var fingerprint: RequestFingerprint
        /// The customer's id in the store when the answer named one (any spelling of the
        /// customer matches it); nil for an answer about no customer (an error).
        var canonical: ID?
        var stored: Stored
        var at: Instant
        var cost: Int
        var sequence: Int
    }

    /// What `claim` gives: the right to run the request (then `finish`), or the entry of the
    /// key's first request.
    enum Claim {
        case run
        case stored(Entry)
    }

    /// Bytes of a stored answer counted besides its body and the fingerprint: the entry, its
    /// dictionary slot and queue slot, the key and header strings' storage.
    static let entryOverhead = 256

    let budget: Int
    let exactLimit: Int
    let window: Int64
    private let condition = NSCondition()
    /// By the key's bytes as received (two keys are one only when their bytes are).
    private var entries: [[UInt8]: Entry] = [:]
    /// Keys in the order stored (oldest first) with the sequence number of their entry; a
    /// slot whose entry was replaced since is skipped.
    private var order: [(key: [UInt8], sequence: Int)] = []
    private var orderHead = 0
    private var nextSequence = 0
    private var inFlight: Set<[UInt8]> = []
    private var storedBytes = 0

    init(budget: Int, exactLimit: Int, window: Int64) {
        self.budget = budget
        self.exactLimit = exactLimit
        self.window = window
    }

    /// Bytes the stored entries count for (always at most `budget`).
    var bytes: Int { condition.withLock { storedBytes } }
    var count: Int { condition.withLock { entries.count } }

    /// Waits while the key's first request is being answered, then: its entry (within the
    /// window), or `.run`, and the key is in flight until `finish`.
    func claim(_ key: [UInt8], now: Instant) -> Claim {
        condition.lock()
        defer { condition.unlock() }
        while inFlight.contains(key) { condition.wait() }
        if let entry = entries[key] {
            if now.seconds - entry.at.seconds < window { return .stored(entry) }
            remove(key)
        }
        inFlight.insert(key)
        return .run
    }

    /// Ends the key's flight; keeps the answer unless it is a server error (a retry may succeed).
    func finish(_ key: [UInt8], _ fingerprint: RequestFingerprint, canonical: ID?, answer: HTTPResponse, now: Instant) {
        condition.lock()
        defer {
            inFlight.remove(key)
            condition.broadcast()
            condition.unlock()
        }
        guard answer.status < 500 else { return }
        let exact = answer.body.count <= exactLimit || canonical == nil
        let stored: Stored = exact ? .answer(answer) : .reference(status: answer.status)
        var cost = Self.entryOverhead + key.count + fingerprint.cost + (canonical?.utf8.count ?? 0)
        if exact {
            cost += answer.body.count + answer.headers.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        }
        // An entry that alone passes the budget (a key of many kilobytes) is not kept.
        guard cost <= budget else { return }
        remove(key)
        dropExpired(now)
        while storedBytes + cost > budget, let oldest = oldestKey() { remove(oldest) }
        nextSequence += 1
        entries[key] = Entry(fingerprint: fingerprint, canonical: canonical, stored: stored, at: now, cost: cost, sequence: nextSequence)
        order.append((key, nextSequence))
        storedBytes += cost
    }

    /// Entries past the window, from the oldest (entries are stored in time order).
    private func dropExpired(_ now: Instant) {
        while let key = oldestKey(), let entry = entries[key], now.seconds - entry.at.seconds >= window { remove(key) }
    }

    /// The key stored longest ago, with its queue slot dropped when it is stale.
    private func oldestKey() -> [UInt8]? {
        while orderHead < order.count {
            let (key, sequence) = order[orderHead]
            if entries[key]?.sequence == sequence { return key }
            orderHead += 1
        }
        return nil
    }

    private func remove(_ key: [UInt8]) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        storedBytes -= entry.cost
        if entries.isEmpty {
            order.removeAll()
            orderHead = 0
        } else if orderHead > 1024 && orderHead * 2 > order.count {
            order.removeFirst(orderHead)
            orderHead = 0
        }
    }
}
