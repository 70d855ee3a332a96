// The audit log (SPEC section 5 rev. 4): STORE.audit.jsonl beside the store, one JSON line per
// write — who (a serve token's name, or the local user and --actor), when, what (action,
// customer, entitlement, reason), from where (serve's request id and Idempotency-Key, or the
// command line) and the result. Lines are only ever appended (O_APPEND, one write per batch of
// lines, then fdatasync), never rewritten; the file is created 0600 like the lock.
// Without the journal (issue 32) the line is appended once the store's new version is durable:
// a crash between the two can lose the line of a write that happened, never add one for a write
// that did not.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import SubsSystem
import SubsModel

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var time: Instant
    /// A serve token's name; on the command line, `--actor` (else the local user).
    public var actor: String
    /// The local user who ran the command (command-line writes), or nil (serve).
    public var user: String?
    /// The name a body of an `admin` token gave (`grantedBy`/`revokedBy` of someone else).
    public var onBehalfOf: String?
    /// `serve` or `cli`.
    public var via: String
    /// `grant` or `revoke`.
    public var action: String
    public var customer: ID
    public var entitlement: ID
    public var reason: String?
    public var requestId: String?
    public var idempotencyKey: String?
    /// What the write did: `granted grant-3`, `revoked grant-1 grant-2`, `created, granted grant-1`.
    public var result: String

    public init(time: Instant, actor: String, user: String? = nil, onBehalfOf: String? = nil, via: String, action: String,
                customer: ID, entitlement: ID, reason: String?, requestId: String? = nil, idempotencyKey: String? = nil,
                result: String) {
        self.time = time
        self.actor = actor
        self.user = user
        self.onBehalfOf = onBehalfOf
        self.via = via
        self.action = action
        self.customer = customer
        self.entitlement = entitlement
        self.reason = reason
        self.requestId = requestId
        self.idempotencyKey = idempotencyKey
        self.result = result
    }

    /// Every key, always present (null when empty), in this order.
    public static let keys = ["time", "actor", "user", "onBehalfOf", "via", "action", "customer", "entitlement", "reason",
                              "requestId", "idempotencyKey", "result"]

    public var document: JSONValue {
        func text(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return .object(JSONObject([
            ("time", .string(ISODate.format(time))), ("actor", .string(actor)), ("user", text(user)),
            ("onBehalfOf", text(onBehalfOf)), ("via", .string(via)), ("action", .string(action)),
            ("customer", .string(customer.string)), ("entitlement", .string(entitlement.string)), ("reason", text(reason)),
            ("requestId", text(requestId)), ("idempotencyKey", text(idempotencyKey)), ("result", .string(result)),
        ]))
    }

    /// A line read back; nil when it is not one of ours.
    public init?(_ value: JSONValue) {
        guard let object = value.objectValue, let time = object["time"]?.stringValue.flatMap(ISODate.parse),
              let actor = object["actor"]?.stringValue, let via = object["via"]?.stringValue,
              let action = object["action"]?.stringValue, let customer = object["customer"]?.stringValue,
              let entitlement = object["entitlement"]?.stringValue, let result = object["result"]?.stringValue else { return nil }
        self.init(time: time, actor: actor, user: object["user"]?.stringValue, onBehalfOf: object["onBehalfOf"]?.stringValue,
                  via: via, action: action, customer: ID(customer), entitlement: ID(entitlement),
                  reason: object["reason"]?.stringValue, requestId: object["requestId"]?.stringValue,
                  idempotencyKey: object["idempotencyKey"]?.stringValue, result: result)
    }
}

public enum AuditLogError: Error, CustomStringConvertible, Equatable {
    case cannotWrite(path: String, reason: String)
    case unreadable(path: String, reason: String)
    /// A line that is not an audit entry: its number (a torn last line is skipped, not this).
    case badLine(path: String, line: Int)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): return "cannot append to the audit log \(path): \(reason)"
        case .unreadable(let path, let reason): return "cannot read the audit log \(path): \(reason)"
        case .badLine(let path, let line): return "\(path):\(line): not an audit line"
        }
    }
}

/// Appends to one store's audit log; lines of callers that arrive together are written and
/// synced together (one write, one fdatasync: a group commit of their own).
public final class AuditLog: @unchecked Sendable {
    public let path: String
    private let condition = NSCondition()
    /// Lines waiting, each with its caller's ticket.
    private var queued: [(ticket: Int, bytes: [UInt8])] = []
    private var nextTicket = 1
    /// Every ticket up to this one is written (or failed).
    private var doneThrough = 0
    private var writing = false
    /// Batches that failed lately: their tickets and why.
    private var failed: [(tickets: ClosedRange<Int>, error: AuditLogError)] = []

    /// The log of the store at `storePath` (its real path: a store that is a link logs beside
    /// its target, as its lock does).
    public init(storePath: String) {
        path = AuditLog.path(forStore: storePath)
    }

    public static func path(forStore store: String) -> String {
        // Through every link to the store itself (a chain of relative and absolute links too).
        guard let resolved = realpath(store, nil) else { return store + suffix }
        defer { free(resolved) }
        return String(cString: resolved) + suffix
    }

    static let suffix = ".audit.jsonl"

    /// Appends `entries` and returns once they are on disk: the first caller to find nobody
    /// writing writes every line queued then, its own and the others', in one write and one
    /// fdatasync.
    public func append(_ entries: [AuditEntry]) throws {
        guard !entries.isEmpty else { return }
        var bytes: [UInt8] = []
        for entry in entries {
            bytes.append(contentsOf: JSONWriter.compact(entry.document).utf8)
            bytes.append(0x0A)
        }
        condition.lock()
        defer { condition.unlock() }
        let ticket = nextTicket
        nextTicket += 1
        queued.append((ticket, bytes))
        while doneThrough < ticket {
            guard !writing else {
                condition.wait()
                continue
            }
            writing = true
            let batch = queued
            queued = []
            condition.unlock()
            let failure = write(batch.flatMap(\.bytes))
            condition.lock()
            let last = batch.last?.ticket ?? doneThrough
            if let failure, let first = batch.first?.ticket {
                failed.append((first...last, failure))
                if failed.count > 64 { failed.removeFirst(failed.count - 64) }
            }
            doneThrough = max(doneThrough, last)
            writing = false
            condition.broadcast()
        }
        if let failure = failed.last(where: { $0.tickets.contains(ticket) }) { throw failure.error }
    }

    private func write(_ bytes: [UInt8]) -> AuditLogError? {
        var fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 && errno == ENOENT {
            // A new log is the store's: its owner and group, its mode (read and write bits), so
            // that whoever may write the store may append its lines — root writing a user's store
            // leaves a log the user can append to, a group's store a log the group shares.
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 {
                var store = stat()
                if stat(String(path.dropLast(AuditLog.suffix.count)), &store) == 0 {
                    if geteuid() == 0 && store.st_uid != 0 { _ = fchown(fd, store.st_uid, store.st_gid) }
                    _ = fchmod(fd, store.st_mode & 0o666)
                }
            } else if errno == EEXIST {
                fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
            }
        }
        guard fd >= 0 else { return .cannotWrite(path: path, reason: errorText(errno)) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .cannotWrite(path: path, reason: errorText(errno)) }
            offset += n
        }
        guard fdatasync(fd) == 0 else { return .cannotWrite(path: path, reason: errorText(errno)) }
        return nil
    }

    /// The entries, oldest first, that pass `keep`. A torn last line (a crash while appending)
    /// is skipped; any other line that is not an entry is an error naming it. No file: none.
    public static func read(path: String, keep: (AuditEntry) -> Bool) throws -> [AuditEntry] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw AuditLogError.unreadable(path: path, reason: errorText(errno))
        }
        defer { close(fd) }
        var lines = BoundedLines(maxLine: 1 << 20) { try readChunk(fd) }
        var out: [AuditEntry] = []
        var pending: (number: Int, text: String)?
        while true {
            let line: String?
            do { line = try lines.nextLine() } catch {
                throw AuditLogError.badLine(path: path, line: lines.number)
            }
            guard let line else { break }
            if let (number, text) = pending {
                guard let entry = (try? JSON.parse(text)).flatMap(AuditEntry.init) else { throw AuditLogError.badLine(path: path, line: number) }
                if keep(entry) { out.append(entry) }
            }
            pending = (lines.number, line)
        }
        // The last line: kept when whole, skipped when torn.
        if let (_, text) = pending, let entry = (try? JSON.parse(text)).flatMap(AuditEntry.init), keep(entry) { out.append(entry) }
        return out
    }
}
