// grant/revoke on the local store (SPEC section 5 rev. 4): under the lock, read the store with its
// journal applied, validate what changes, and append each changed customer's new record (its
// after-image) to the journal — one group commit, one fdatasync; the store file is not rewritten.
// Batches are one group: all or nothing. Past the journal's bound the writer folds it into a new
// store file (`Compaction`: the crash-safe rewrite, spliced as a change was before the journal).

import SubsJSON
import SubsModel

#if canImport(Glibc)
import Glibc
#endif

struct StoreWriter {
    let path: String
    let lockTimeout: Double
    /// Test hook: where the write pauses (nil: nowhere).
    var pause: WritePause? = nil

    /// Fold the journal into the store once it passes its bound, right after the change is on
    /// disk (the command line); serve folds it off the request path instead (false).
    var compactsInline = true

    /// What this writer's previous writes read of the journal (serve's: one per server), so that
    /// a write reads only what was appended since; nil: read whole (a command's one write).
    var kept: KeptJournal? = nil

    func apply(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws -> ChangeResult {
        // Said before the lock is taken or the store read.
        if let refusal = StoreWriter.expirationRefusal(change, now: now) { throw refusal }
        // A symbolic link is followed to the store it names: that file is locked, read and
        // replaced, and the link stays a link.
        let path = try StoreFiles.resolvedPath(self.path)
        try requireStore(at: path)
        // A dry run only reads: no lock, no file created.
        if dryRun {
            let store = try JournaledStore.scan(path: path, ids: ids)
            return try store.store.file.reading { try changed(change, to: ids, in: store, now: now).result }
        }
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            try journaled(ids, at: path, now: now) { store in
                let made = try changed(change, to: ids, in: store, now: now)
                return (made.result, made.lines)
            }
        }
    }

    /// One write for several requests that succeed or fail each on its own (the server commits
    /// the POSTs waiting together): the ones that succeed are committed in one group, in
    /// request order (two changes to one customer both apply).
    func applyEach(_ requests: [ChangeRequest], now: Instant) throws -> [Result<StoredRecord, ChangeError>] {
        try applyEachReporting(requests, now: now).results
    }

    /// `applyEach`, with what a compaction made inline did to the store file (nil when none):
    /// the server derives its new version from it instead of scanning the new file.
    /// `willCommit` is told the new file's identity just before it is renamed in.
    func applyEachReporting(_ requests: [ChangeRequest], now: Instant, willCommit: (FileIdentity) -> Void = { _ in }) throws
        -> (results: [Result<StoredRecord, ChangeError>], report: CommitReport?) {
        let path = try StoreFiles.resolvedPath(self.path)
        try requireStore(at: path)
        var unique: [ID] = []
        var seen: Set<ID> = []
        for request in requests where seen.insert(request.id).inserted { unique.append(request.id) }
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            let (results, report) = try journaledReporting(unique, at: path, now: now) { store in
                try changedEach(requests, ids: unique, in: store, now: now)
            }
            _ = willCommit
            return (results, report)
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

    /// A new record for a customer, as a journal line will say it.
    struct AfterImage {
        var id: ID
        var record: JSONValue
        /// What the change did (compact JSON), for a person reading the journal.
        var op: String
    }

    /// Under the lock: reads the store with its journal (cutting a torn tail, dropping a folded
    /// marker of a version that never took the store's place, starting a fresh journal for a
    /// store the journal was folded into), runs `body`, appends its after-images as one group
    /// commit (one fdatasync), then folds the journal once it passes its bound.
    private func journaled<T>(_ ids: [ID], at path: String, now: Instant,
                              _ body: (JournaledStore) throws -> (T, [AfterImage])) throws -> T {
        try journaledReporting(ids, at: path, now: now, body).0
    }

    private func journaledReporting<T>(_ ids: [ID], at path: String, now: Instant,
                                       _ body: (JournaledStore) throws -> (T, [AfterImage])) throws -> (T, CommitReport?) {
        StoreFiles.removeStaleTemporaries(beside: path)
        var journal = try JournalFile.open(storePath: path, writable: true)
        let (store, unindexed) = try located(ids, at: path)
        let (value, images, stamp, mode) = try store.file.reading { () throws -> (T, [AfterImage], StoreStamp, (mode_t, uid_t, gid_t)) in
            guard let fd = store.file.duplicateDescriptor() else { throw store.file.changedError }
            defer { close(fd) }
            let stamp = try StoreStamp(fd: fd, path: path)
            let contents: JournalContents?
            var overlay = JournalOverlay()
            overlay.journalPath = journal?.path
            // The journal's customers the requested ids may name (nil: every one).
            var candidates: Set<ID>?
            if let kept, let journal {
                (contents, overlay, candidates) = try keptJournal(kept, journal, ids: ids, stamp: stamp, path: path)
            } else {
                contents = try journal?.contents()
                if let contents {
                    overlay.apply(try JournalOverlay.changes(in: contents, forStore: stamp, storePath: path,
                                                             journalPath: JournalFile.path(forStore: path)))
                }
            }
            let view: JournaledStore
            if overlay.isEmpty || candidates?.isEmpty == true {
                view = JournaledStore(store: store, overlay: overlay, journal: nil)
            } else {
                let held = MappedFile(holding: overlay.document(of: candidates), path: overlay.journalPath ?? path)
                view = JournaledStore(store: store, overlay: overlay, journal: try ScannedStore.scan(held: held, ids: ids))
            }
            let (value, images) = try body(view)
            guard !images.isEmpty else { return (value, images, stamp, (store.file.mode, store.file.owner, store.file.group)) }
            // The journal this group joins: this store's (its torn tail or a stale folded
            // marker cut first), or a fresh one.
            var offset = 0
            var sequence = 1
            if let current = journal, let contents, contents.header == stamp, !contents.folded.contains(stamp) {
                let keep = contents.foldedOffset ?? contents.goodLength
                if current.state.size != keep { try current.truncate(to: keep, storePath: path) }
                offset = keep
                sequence = contents.nextSequence
            } else {
                journal = try JournalFile.create(storePath: path, for: stamp, mode: store.file.mode,
                                                 owner: (store.file.owner, store.file.group), pause: pause)
                offset = journal!.state.size
            }
            var lines: [UInt8] = []
            for (k, image) in images.enumerated() {
                lines += JournalContents.changeLine(seq: sequence + k, customer: image.id, at: now, op: image.op,
                                                    record: image.record, commit: k == images.count - 1)
            }
            try journal!.append(lines, at: offset, storePath: path, pause: pause) {
                // Rewritten in place or replaced by someone else since it was read: the change
                // would apply to another version. Refused, nothing written.
                guard store.file.isUnchanged, store.file.isStill(at: path) else { throw store.file.changedError }
            }
            return (value, images, stamp, (store.file.mode, store.file.owner, store.file.group))
        }
        _ = mode
        // Indexed for the next write once this one is done (a failed write leaves nothing it
        // made); never the truth, so a failure to write the index changes nothing.
        if unindexed, !images.isEmpty, store.topLevelProblems().isEmpty {
            try? store.file.reading { try StoreIndexFile.write(store, stamp: stamp, storePath: path) }
        }
        guard !images.isEmpty, compactsInline, let journal, journal.state.size > Compaction.bound(storeSize: Int(store.file.identity.size)) else {
            return (value, nil)
        }
        // The change is on disk and acknowledged whatever the fold does: a failure to fold
        // leaves the journal as it is, for the next write (or `store compact`) to fold.
        store.file.releaseAll()
        let report = try? Compaction(path: path, pause: pause).run(lockHeld: true)
        return (value, report ?? nil)
    }

    /// The journal read with what `kept` holds of it (only the lines appended since are read and
    /// checked), applied to the store version `stamp`; and the journal's customers `ids` may name.
    private func keptJournal(_ kept: KeptJournal, _ journal: JournalFile, ids: [ID], stamp: StoreStamp, path: String) throws
        -> (JournalContents, JournalOverlay, Set<ID>) {
        let previous = kept.take()
        let (read, resumed) = try journal.read(after: previous?.stamp == stamp ? previous?.read : nil)
        let contents = read.contents
        let entries = try JournalOverlay.changes(in: contents, forStore: stamp, storePath: path,
                                                 journalPath: JournalFile.path(forStore: path))
        var overlay: JournalOverlay
        var aliases: JournalAliases
        if resumed, let previous, previous.stamp == stamp, contents.header == stamp, !contents.folded.contains(stamp),
           entries.count >= previous.overlay.changes {
            // The journal read before, and what was appended since.
            overlay = previous.overlay
            aliases = previous.aliases
            for entry in entries[previous.overlay.changes...] {
                overlay.apply([entry])
                aliases.update(entry.customer, record: entry.record)
            }
        } else {
            overlay = JournalOverlay()
            overlay.apply(entries)
            aliases = JournalAliases()
            for customer in overlay.customers { aliases.update(customer.id, record: customer.record) }
        }
        overlay.journalPath = journal.path
        // Kept as read from disk: valid whatever this write does next (a cut of a torn tail keeps
        // the good lines; a cut of a folded marker, or a new journal, makes the next read whole).
        kept.keep(KeptJournal.State(stamp: stamp, read: read, overlay: overlay, aliases: aliases))
        return (contents, overlay, aliases.candidates(for: ids, in: overlay))
    }

    /// The store with the customers `ids` name located: through STORE.index when it indexes this
    /// very version (no scan: the store stays mapped, only the pages read are touched), else by one
    /// strict scan of every customer (true: the caller indexes this version once its write is done).
    /// Under the lock only a regular file is opened: a FIFO put at the path would make the open
    /// wait, holding every other writer's lock, with no deadline.
    private func located(_ ids: [ID], at path: String) throws -> (ScannedStore, Bool) {
        let file = try MappedFile(path: path, regularOnly: true)
        if let fd = file.duplicateDescriptor() {
            let stamp = try? StoreStamp(fd: fd, path: path)
            close(fd)
            if let stamp, let visitor = StoreIndexFile.lookup(storePath: path, ids: ids, stamp: stamp, file: file) {
                return (ScannedStore(path: path, file: file, index: visitor), false)
            }
        }
        return (try ScannedStore.scan(path: path, ids: ids, collectAll: true, regularOnly: true), true)
    }

    /// grant or revoke for every customer named, or an error for all of them.
    private func changed(_ change: CustomerChange, to ids: [ID], in store: JournaledStore, now: Instant) throws
        -> (result: ChangeResult, lines: [AfterImage]) {
        let catalog = try checkedCatalog(of: store.store)

        if let refusal = StoreWriter.entitlementRefusal(change, catalog: catalog) { throw refusal }

        var images: [AfterImage] = []
        var changed: [ChangedCustomer] = []
        var missing: [ID] = []
        var nothingToRevoke: [ID] = []
        var seen: Set<ID> = []   // by the customer's id (bytes)
        var createdIds: Set<ID> = []   // an id named twice is created once, in O(1) per id (by its bytes)
        for (i, id) in ids.enumerated() {
            guard let customer = try store.customer(forRequest: i, id: id) else {
                guard case .grant(_, _, _, _, true) = change else { missing.append(id); continue }
                guard createdIds.insert(id).inserted else { continue }
                var record = CustomerRecord(id: id, firstSeen: now)
                var value = JSONObject([("firstSeen", .string(ISODate.format(now)))])
                let grants = applyChange(change, to: &record, json: &value, now: now)
                images.append(AfterImage(id: id, record: .object(value), op: StoreWriter.op(change, grants: grants, created: true)))
                changed.append(ChangedCustomer(record: record, grants: grants, created: true))
                continue
            }
            guard seen.insert(customer.id).inserted else { continue }
            var (record, object) = try decoded(customer, in: store, catalog: catalog)
            let grants = applyChange(change, to: &record, json: &object, now: now)
            if grants.isEmpty { nothingToRevoke.append(customer.id); continue }
            changed.append(ChangedCustomer(record: record, grants: grants, created: false))
            images.append(AfterImage(id: customer.id, record: .object(object), op: StoreWriter.op(change, grants: grants, created: false)))
        }
        guard missing.isEmpty else { throw ChangeError.customersNotFound(missing) }
        guard nothingToRevoke.isEmpty else {
            throw ChangeError.nothingToRevoke(entitlement: change.entitlement, customers: nothingToRevoke)
        }
        return (ChangeResult(catalog: catalog, customers: changed), images)
    }

    /// What a change did, as its journal line says it.
    static func op(_ change: CustomerChange, grants: [Grant], created: Bool) -> String {
        var members: [(String, JSONValue)]
        switch change {
        case .grant(let entitlement, _, _, _, _):
            members = [("action", .string("grant")), ("entitlement", .string(entitlement.string)),
                       ("grant", .string(grants.first?.id.string ?? ""))]
        case .revoke(let entitlement, _, _):
            members = [("action", .string("revoke")), ("entitlement", .string(entitlement.string)),
                       ("grants", .array(grants.map { .string($0.id.string) }))]
        }
        if created { members.append(("created", .bool(true))) }
        return JSONWriter.compact(.object(JSONObject(members)))
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
    private func decoded(_ customer: LocatedCustomer, in store: JournaledStore,
                         catalog: Catalog) throws -> (CustomerRecord, JSONObject) {
        var decoder = RecordDecoder()
        let json = try store.value(customer)
        if !customer.inJournal { store.store.file.release(around: customer.span.range) }
        guard let record = decoder.customer(id: customer.id, json, catalog: catalog,
                                            path: JSONPath.member("customers", customer.id)),
              decoder.problems.isEmpty, let object = json.objectValue else {
            throw StoreError.invalid(path: store.store.path, problems: decoder.problems)
        }
        return (record, object)
    }

    private func changedEach(_ requests: [ChangeRequest], ids: [ID], in store: JournaledStore, now: Instant) throws
        -> ([Result<StoredRecord, ChangeError>], [AfterImage]) {
        let catalog = try checkedCatalog(of: store.store)
        var slot: [ID: Int] = [:]
        for (i, id) in ids.enumerated() where slot[id] == nil { slot[id] = i }

        struct Working {
            var id: ID
            var record: CustomerRecord
            var object: JSONObject
            var ops: [String] = []
            var created = false
        }
        // Every customer the batch changes, by its id (bytes), in the order first changed;
        // a customer a grant with `create` made is changed like any other by a later request.
        var working: [ID: Int] = [:]
        var customers: [Working] = []
        var results: [Result<StoredRecord, ChangeError>] = []
        let products = try store.store.storedProducts()
        for request in requests {
            let change = request.change
            if let refusal = StoreWriter.expirationRefusal(change, now: now) ?? StoreWriter.entitlementRefusal(change, catalog: catalog) {
                results.append(.failure(refusal)); continue
            }
            let id: ID
            var createdNow = false
            if let located = try slot[request.id].flatMap({ try store.customer(forRequest: $0, id: request.id) }) {
                id = located.id
                if working[id] == nil {
                    let (record, object) = try decoded(located, in: store, catalog: catalog)
                    working[id] = customers.count
                    customers.append(Working(id: id, record: record, object: object))
                }
            } else if working[request.id] != nil {
                id = request.id
            } else {
                guard change.createsMissing else { results.append(.failure(.customersNotFound([request.id]))); continue }
                id = request.id
                createdNow = true
                working[id] = customers.count
                customers.append(Working(id: id, record: CustomerRecord(id: id, firstSeen: now),
                                         object: JSONObject([("firstSeen", .string(ISODate.format(now)))]), created: true))
            }
            let k = working[id]!
            var customer = customers[k]
            let grants = applyChange(change, to: &customer.record, json: &customer.object, now: now)
            guard !grants.isEmpty else {
                if createdNow { working[id] = nil; customers.removeLast() }
                results.append(.failure(.nothingToRevoke(entitlement: change.entitlement, customers: [id]))); continue
            }
            customer.ops.append(StoreWriter.op(change, grants: grants, created: createdNow))
            customers[k] = customer
            // Each answer shows the record as its own change left it (a later one in the batch
            // may change the same customer again).
            results.append(.success(StoredRecord(id: id, record: .object(customer.object), products: products, created: createdNow)))
        }
        let images = customers.filter { !$0.ops.isEmpty }.map { customer in
            AfterImage(id: customer.id, record: .object(customer.object),
                       op: customer.ops.count == 1 ? customer.ops[0] : "[" + customer.ops.joined(separator: ",") + "]")
        }
        return (results, images)
    }

    /// Whether the store ends its lines with CRLF (its first line break tells).
    static func usesCRLF(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, let lf = memchr(base, 0x0A, bytes.count) else { return false }
        let offset = UnsafeRawPointer(lf) - base
        return offset > 0 && bytes[offset - 1] == 0x0D
    }

    /// The edit with its line breaks written as CRLF, like the rest of the store. (A bare LF
    /// in serialised JSON is always a line break: inside strings it is escaped.)
    static func withCRLF(_ edit: Splice) -> Splice {
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
