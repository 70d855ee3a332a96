// grant/revoke on the local store (SPEC section 5): under the lock, read and validate, change
// only the target customer records, splice their new bytes into an otherwise unchanged copy of
// the store, and put the copy in place atomically. Batches are one write: all or nothing.

import SubsJSON

#if canImport(Glibc)
import Glibc
#endif

struct StoreWriter {
    let path: String
    let lockTimeout: Double
    /// Test hook: where the write pauses (nil: nowhere).
    var pause: WritePause? = nil

    func apply(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws -> ChangeResult {
        // Said before the lock is taken or the store read.
        if let refusal = StoreWriter.expirationRefusal(change, now: now) { throw refusal }
        // A symbolic link is followed to the store it names: that file is locked, read and
        // replaced, and the link stays a link.
        let path = try StoreFiles.resolvedPath(self.path)
        try requireStore(at: path)
        // A dry run only reads: no lock, no file created.
        if dryRun { return try write(change, to: ids, at: path, now: now, dryRun: true) }
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            try write(change, to: ids, at: path, now: now, dryRun: false)
        }
    }

    /// One write for several requests that succeed or fail each on its own (the server commits
    /// the POSTs waiting together): the ones that succeed are committed in one rewrite, in
    /// request order (two changes to one customer both apply).
    func applyEach(_ requests: [ChangeRequest], now: Instant) throws -> [Result<StoredRecord, ChangeError>] {
        try applyEachReporting(requests, now: now).results
    }

    /// `applyEach`, with what the write did (nil when nothing was written): the server updates
    /// its index from it instead of scanning the new version.
    /// `willCommit` is told the new version's identity just before it is renamed in.
    func applyEachReporting(_ requests: [ChangeRequest], now: Instant, willCommit: (FileIdentity) -> Void = { _ in }) throws
        -> (results: [Result<StoredRecord, ChangeError>], report: CommitReport?) {
        let path = try StoreFiles.resolvedPath(self.path)
        try requireStore(at: path)
        let ids = Array(Set(requests.map(\.id)))
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            try scanned(ids, at: path, dryRun: false) { store, temp in
                try rewriteEach(requests, ids: ids, in: store, temp: temp, now: now, willCommit: willCommit)
            }
        }
    }

    /// A store that is not there (nor its folder, on a fresh machine) is the missing store every
    /// command reports (66, with how to make one), never a lock file that cannot be created (73).
    /// Checked before the lock, so that nothing is created beside a store that does not exist.
    private func requireStore(at resolved: String) throws {
        var info = stat()
        guard stat(resolved, &info) != 0 else { return }
        if errno == ENOENT || errno == ENOTDIR { throw StoreError.missing(path: path) }
    }

    private func write(_ change: CustomerChange, to ids: [ID], at path: String, now: Instant,
                       dryRun: Bool) throws -> ChangeResult {
        try scanned(ids, at: path, dryRun: dryRun) { store, temp in
            try rewrite(change, to: ids, in: store, temp: temp, now: now)
        }
    }

    /// Scans the store for `ids` (copying its unchanged front into a new temporary file unless
    /// `dryRun`) and runs `body` on it.
    private func scanned<T>(_ ids: [ID], at path: String, dryRun: Bool,
                            _ body: (ScannedStore, TemporaryFile?) throws -> T) throws -> T {
        // The new version goes to a temporary file; what comes before the first customer
        // changed is copied into it while the scan runs. Any refusal below discards it.
        var temp: TemporaryFile?
        // Whatever fails, the temporary file goes now: not when its last reference does, which
        // may be the copying thread's, after the process has exited.
        do {
            // Under the lock only a regular file is opened: a FIFO put at the path would make the
            // open wait, holding every other writer's lock, with no deadline.
            let store = try ScannedStore.scan(path: path, ids: ids, regularOnly: !dryRun, copyPrefix: dryRun ? nil : { mapped in
                StoreFiles.removeStaleTemporaries(beside: path)
                let file = try TemporaryFile(beside: path, mode: mapped.mode, owner: (mapped.owner, mapped.group), pause: pause)
                temp = file
                return PrefixCopier(file: mapped, temp: file)
            })
            defer { _ = try? store.index.prefix?.finish() }
            // Everything below reads the mapping: a store changed meanwhile is refused.
            return try store.file.reading { try body(store, temp) }
        } catch {
            temp?.discard()
            throw error
        }
    }

    private func rewrite(_ change: CustomerChange, to ids: [ID], in store: ScannedStore, temp: TemporaryFile?,
                         now: Instant) throws -> ChangeResult {
        let copied = try store.index.prefix?.finish() ?? 0
        let catalog = try checkedCatalog(of: store)

        if let refusal = StoreWriter.entitlementRefusal(change, catalog: catalog) { throw refusal }

        var edits: [Splice] = []
        var changed: [ChangedCustomer] = []
        var missing: [ID] = []
        var nothingToRevoke: [ID] = []
        var seen: Set<Int> = []
        var created: [(id: ID, value: JSONValue)] = []
        var createdIds: Set<ID> = []   // an id named twice is created once, in O(1) per id (by its bytes)
        for (i, id) in ids.enumerated() {
            guard let span = try store.customerSpan(forRequest: i, id: id) else {
                guard case .grant(_, _, _, _, true) = change else { missing.append(id); continue }
                guard createdIds.insert(id).inserted else { continue }
                var record = CustomerRecord(id: id, firstSeen: now)
                var value = JSONObject([("firstSeen", .string(ISODate.format(now)))])
                let grants = applyChange(change, to: &record, json: &value, now: now)
                created.append((id, .object(value)))
                changed.append(ChangedCustomer(record: record, grants: grants, created: true))
                continue
            }
            guard seen.insert(span.keyOffset).inserted else { continue }
            var (record, object) = try decoded(span, in: store, catalog: catalog)
            let grants = applyChange(change, to: &record, json: &object, now: now)
            if grants.isEmpty { nothingToRevoke.append(span.id); continue }
            changed.append(ChangedCustomer(record: record, grants: grants, created: false))
            edits.append(Splice.replaceValue(span.range, with: .object(object), in: store))
            store.file.release(around: span.range)
        }
        guard missing.isEmpty else { throw ChangeError.customersNotFound(missing) }
        guard nothingToRevoke.isEmpty else {
            throw ChangeError.nothingToRevoke(entitlement: change.entitlement, customers: nothingToRevoke)
        }
        if !created.isEmpty { edits.append(try Splice.insertCustomers(created, into: store)) }
        if let temp { _ = try commit(edits, over: store, from: copied, via: temp) }
        return ChangeResult(catalog: catalog, customers: changed)
    }

    /// A grant that would end at or before now.
    private static func expirationRefusal(_ change: CustomerChange, now: Instant) -> ChangeError? {
        guard case .grant(_, let expiration?, _, _, _) = change, expiration <= now else { return nil }
        return .expirationNotInFuture(expiration)
    }

    /// An entitlement the catalog does not have (with the closest one it has).
    private static func entitlementRefusal(_ change: CustomerChange, catalog: Catalog) -> ChangeError? {
        let known = catalog.entitlementIds
        guard !known.contains(change.entitlement) else { return nil }
        return .unknownEntitlement(change.entitlement, suggestion: EditDistance.closest(to: change.entitlement, among: known))
    }

    /// The catalog, once the store's top level is valid (a store with problems is not written).
    private func checkedCatalog(of store: ScannedStore) throws -> Catalog {
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems
        guard problems.isEmpty else { throw StoreError.invalid(path: store.path, problems: problems) }
        return catalog
    }

    /// A customer to change: its record and its JSON object (kept to preserve unknown fields).
    private func decoded(_ span: CustomerSpan, in store: ScannedStore,
                         catalog: Catalog) throws -> (CustomerRecord, JSONObject) {
        var decoder = RecordDecoder()
        let json = try store.value(span.range)
        store.file.release(around: span.range)
        guard let record = decoder.customer(id: span.id, json, catalog: catalog,
                                            path: JSONPath.member("customers", span.id)),
              decoder.problems.isEmpty, let object = json.objectValue else {
            throw StoreError.invalid(path: store.path, problems: decoder.problems)
        }
        return (record, object)
    }

    /// Writes the store with `edits` spliced in to `temp` and puts it in place; reports the
    /// edits as written, with the new version open for reading.
    private func commit(_ edits: [Splice], over store: ScannedStore, from copied: Int, via temp: TemporaryFile,
                        willCommit: (FileIdentity) -> Void = { _ in }) throws -> CommitReport {
        let edits = usesCRLF(store.bytes) ? edits.map(withCRLF) : edits
        // What is still mapped from the scan and the reads of the customers goes before the
        // copy, which then releases behind itself.
        store.file.releaseAll()
        store.file.restartRelease()
        try Splice.write(edits, over: store.bytes, from: copied, to: temp.write,
                         written: { store.file.release(upTo: $0) })
        // Rewritten in place or replaced by someone else since it was read: the new
        // version would undo their change. Refused, nothing written.
        // The new version stays readable through this descriptor whatever is renamed over it later.
        let written = try temp.readableCopy()
        do {
            try temp.commit(over: store.path) {
                guard store.file.isUnchanged, store.file.isStill(at: store.path) else { throw store.file.changedError }
                willCommit(written.identity)
            }
        } catch {
            close(written.fd)
            throw error
        }
        return CommitReport(base: store.file.identity, written: RecordFile(fd: written.fd, identity: written.identity), edits: edits)
    }

    private func rewriteEach(_ requests: [ChangeRequest], ids: [ID], in store: ScannedStore, temp: TemporaryFile?,
                             now: Instant, willCommit: (FileIdentity) -> Void) throws
        -> (results: [Result<StoredRecord, ChangeError>], report: CommitReport?) {
        let copied = try store.index.prefix?.finish() ?? 0
        let catalog = try checkedCatalog(of: store)
        let slot = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })

        struct Working {
            var span: CustomerSpan
            var record: CustomerRecord
            var object: JSONObject
            var changed = false
        }
        var working: [Int: Working] = [:]   // by key offset
        // Customers a grant with `create` made in this batch, in order; a later request of the
        // batch that names one changes it like any other.
        var created: [(id: ID, record: CustomerRecord, object: JSONObject)] = []
        var createdSlot: [ID: Int] = [:]
        var results: [Result<StoredRecord, ChangeError>] = []
        let products = try store.storedProducts()
        for request in requests {
            let change = request.change
            if let refusal = StoreWriter.expirationRefusal(change, now: now) ?? StoreWriter.entitlementRefusal(change, catalog: catalog) {
                results.append(.failure(refusal)); continue
            }
            guard let i = slot[request.id], let span = try store.customerSpan(forRequest: i, id: request.id) else {
                let made = createdSlot[request.id]
                guard made != nil || change.createsMissing else {
                    results.append(.failure(.customersNotFound([request.id]))); continue
                }
                var new = made.map { created[$0] }
                    ?? (id: request.id, record: CustomerRecord(id: request.id, firstSeen: now),
                        object: JSONObject([("firstSeen", .string(ISODate.format(now)))]))
                let grants = applyChange(change, to: &new.record, json: &new.object, now: now)
                guard !grants.isEmpty else {
                    results.append(.failure(.nothingToRevoke(entitlement: change.entitlement, customers: [request.id]))); continue
                }
                if let made { created[made] = new } else { createdSlot[request.id] = created.count; created.append(new) }
                results.append(.success(StoredRecord(id: request.id, record: .object(new.object), products: products,
                                                     created: made == nil)))
                continue
            }
            if working[span.keyOffset] == nil {
                let (record, object) = try decoded(span, in: store, catalog: catalog)
                working[span.keyOffset] = Working(span: span, record: record, object: object)
            }
            var customer = working[span.keyOffset]!
            let grants = applyChange(change, to: &customer.record, json: &customer.object, now: now)
            guard !grants.isEmpty else {
                results.append(.failure(.nothingToRevoke(entitlement: change.entitlement, customers: [span.id]))); continue
            }
            customer.changed = true
            working[span.keyOffset] = customer
            // Each answer shows the record as its own change left it (a later one in the batch
            // may change the same customer again).
            results.append(.success(StoredRecord(id: span.id, record: .object(customer.object), products: products)))
        }
        var edits = working.values.filter(\.changed).map { customer in
            defer { store.file.release(around: customer.span.range) }
            return Splice.replaceValue(customer.span.range, with: .object(customer.object), in: store)
        }
        if !created.isEmpty { edits.append(try Splice.insertCustomers(created.map { ($0.id, .object($0.object)) }, into: store)) }
        var report: CommitReport?
        if let temp {
            if edits.isEmpty { temp.discard() } else {
                report = try commit(edits, over: store, from: copied, via: temp, willCommit: willCommit)
            }
        }
        return (results, report)
    }

    /// Whether the store ends its lines with CRLF (its first line break tells).
    private func usesCRLF(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, let lf = memchr(base, 0x0A, bytes.count) else { return false }
        let offset = UnsafeRawPointer(lf) - base
        return offset > 0 && bytes[offset - 1] == 0x0D
    }

    /// The edit with its line breaks written as CRLF, like the rest of the store. (A bare LF
    /// in serialised JSON is always a line break: inside strings it is escaped.)
    private func withCRLF(_ edit: Splice) -> Splice {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(edit.bytes.count + edit.bytes.count / 16)
        for (i, byte) in edit.bytes.enumerated() {
            if byte == 0x0A, i == 0 || edit.bytes[i - 1] != 0x0D { bytes.append(0x0D) }
            bytes.append(byte)
        }
        return Splice(range: edit.range, bytes: bytes)
    }

    /// Applies the change to the record and to its JSON object alike (the object keeps every
    /// unknown field and its key order). Returns the grants written or revoked.
    private func applyChange(_ change: CustomerChange, to record: inout CustomerRecord, json: inout JSONObject,
                             now: Instant) -> [Grant] {
        var grantsJSON = json["grants"]?.arrayValue ?? []
        switch change {
        case .grant(let entitlement, let expiration, let reason, let actor, _):
            let grant = Grant(id: nextGrantId(record), entitlement: entitlement, grantedAt: now,
                              expirationDate: expiration, grantedBy: actor, reason: reason)
            record.grants.append(grant)
            var members: [(String, JSONValue)] = [
                ("id", .string(grant.id.string)), ("entitlement", .string(entitlement.string)),
                ("grantedAt", .string(ISODate.format(now))),
                ("expirationDate", expiration.map { .string(ISODate.format($0)) } ?? .null),
            ]
            if let actor { members.append(("grantedBy", .string(actor))) }
            if let reason { members.append(("reason", .string(reason))) }
            grantsJSON.append(.object(JSONObject(members)))
            json["grants"] = .array(grantsJSON)
            return [grant]
        case .revoke(let entitlement, let reason, let actor):
            var revoked: [Grant] = []
            for i in record.grants.indices {
                let grant = record.grants[i]
                // Only grants active now: one dated later does not exist yet (SPEC section 3).
                guard grant.entitlement == entitlement, grant.revokedAt == nil, grant.grantedAt <= now,
                      grant.expirationDate.map({ now < $0 }) ?? true,
                      var object = grantsJSON[i].objectValue else { continue }
                record.grants[i].revokedAt = now
                record.grants[i].revokedBy = actor
                record.grants[i].revokeReason = reason
                object["revokedAt"] = .string(ISODate.format(now))
                if let actor { object["revokedBy"] = .string(actor) }
                if let reason { object["revokeReason"] = .string(reason) }
                grantsJSON[i] = .object(object)
                revoked.append(record.grants[i])
            }
            if !revoked.isEmpty { json["grants"] = .array(grantsJSON) }
            return revoked
        }
    }

    /// `grant-N`, the first N not taken in this customer.
    private func nextGrantId(_ record: CustomerRecord) -> ID {
        let taken = Set(record.grants.map(\.id))
        var n = record.grants.count + 1
        while taken.contains("grant-\(n)") { n += 1 }
        return ID("grant-\(n)")
    }
}
