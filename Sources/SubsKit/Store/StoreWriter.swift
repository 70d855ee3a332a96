// grant/revoke on the local store (SPEC section 5): under the lock, read and validate, change
// only the target customer records, splice their new bytes into an otherwise unchanged copy of
// the store, and put the copy in place atomically. Batches are one write: all or nothing.

import SubsJSON

struct StoreWriter {
    let path: String
    let lockTimeout: Double

    func apply(_ change: CustomerChange, to ids: [String], now: Instant, dryRun: Bool) throws -> ChangeResult {
        if case .grant(_, let expiration?, _, _, _) = change, expiration <= now {
            throw ChangeError.expirationNotInFuture(expiration)
        }
        return try StoreFiles.withLock(storePath: path, timeout: lockTimeout) {
            // The new version goes to a temporary file; what comes before the first customer
            // changed is copied into it while the scan runs. Any refusal below discards it.
            var temp: TemporaryFile?
            let store = try ScannedStore.scan(path: path, ids: ids, copyPrefix: dryRun ? nil : { mapped in
                StoreFiles.removeStaleTemporaries(beside: path)
                let file = try TemporaryFile(beside: path, mode: mapped.mode)
                temp = file
                return PrefixCopier(file: mapped, temp: file)
            })
            let copied = try store.index.prefix?.finish() ?? 0
            var problems = store.topLevelProblems()
            var decoder = RecordDecoder()
            let catalog = try store.catalog(into: &decoder)
            problems += decoder.problems
            guard problems.isEmpty else { throw StoreError.invalid(path: path, problems: problems) }

            let known = catalog.entitlementIds
            guard known.contains(change.entitlement) else {
                throw ChangeError.unknownEntitlement(change.entitlement,
                                                     suggestion: EditDistance.closest(to: change.entitlement, among: known))
            }

            var edits: [Splice] = []
            var changed: [ChangedCustomer] = []
            var missing: [String] = []
            var nothingToRevoke: [String] = []
            var seen: Set<Int> = []
            var created: [(id: String, value: JSONValue)] = []
            for (i, id) in ids.enumerated() {
                guard let span = try store.customerSpan(forRequest: i, id: id) else {
                    guard case .grant(_, _, _, _, true) = change else { missing.append(id); continue }
                    if created.contains(where: { $0.id == id }) { continue }
                    var record = CustomerRecord(id: id, firstSeen: now)
                    var value = JSONObject([("firstSeen", .string(ISODate.format(now)))])
                    let grants = applyChange(change, to: &record, json: &value, now: now)
                    created.append((id, .object(value)))
                    changed.append(ChangedCustomer(requestedId: id, record: record, grants: grants, created: true))
                    continue
                }
                guard seen.insert(span.keyOffset).inserted else { continue }
                var customerDecoder = RecordDecoder()
                let json = try store.value(span.range)
                guard var record = customerDecoder.customer(id: span.id, json, catalog: catalog,
                                                            path: JSONPath.member("customers", span.id)),
                      customerDecoder.problems.isEmpty, var object = json.objectValue else {
                    throw StoreError.invalid(path: path, problems: customerDecoder.problems)
                }
                let grants = applyChange(change, to: &record, json: &object, now: now)
                if grants.isEmpty { nothingToRevoke.append(span.id); continue }
                changed.append(ChangedCustomer(requestedId: id, record: record, grants: grants, created: false))
                edits.append(Splice.replaceValue(span.range, with: .object(object), in: store))
            }
            guard missing.isEmpty else { throw ChangeError.customersNotFound(missing) }
            guard nothingToRevoke.isEmpty else {
                throw ChangeError.nothingToRevoke(entitlement: change.entitlement, customers: nothingToRevoke)
            }
            if !created.isEmpty { edits.append(try Splice.insertCustomers(created, into: store)) }
            if let temp {
                store.file.restartRelease()
                try Splice.write(edits, over: store.bytes, from: copied, to: temp.write,
                                 written: { store.file.release(upTo: $0) })
                try temp.commit(over: path)
            }
            return ChangeResult(catalog: catalog, customers: changed)
        }
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
                ("id", .string(grant.id)), ("entitlement", .string(entitlement)),
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
    private func nextGrantId(_ record: CustomerRecord) -> String {
        let taken = Set(record.grants.map(\.id))
        var n = record.grants.count + 1
        while taken.contains("grant-\(n)") { n += 1 }
        return "grant-\(n)"
    }
}

extension LocalStore {
    /// Applies a grant or revoke to every customer named (one atomic write), or to none.
    public func apply(_ change: CustomerChange, to ids: [String], now: Instant, dryRun: Bool) throws -> ChangeResult {
        try StoreWriter(path: path, lockTimeout: lockTimeout).apply(change, to: ids, now: now, dryRun: dryRun)
    }
}
