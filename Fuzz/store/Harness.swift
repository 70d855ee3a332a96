// libFuzzer harness for SubsStore's reader and SubsModel's rules: the input is a store file; every
// customer in it is looked up (by id and by alias) and evaluated with EntitlementRules and
// History at instants derived from the input. Compiled into the SubsStore module (scripts/fuzz).
// A broken invariant traps: libFuzzer reports it as a crash.

#if canImport(Glibc)
import Glibc
#endif
import SubsModel

/// The input lives in one in-memory file (an unlinked temporary file), named by its /proc path: the reader maps it
/// like any regular store file, and nothing is left on disk.
private let storeFD: Int32 = {
    // An unlinked temporary file, still reachable through /proc/self/fd/N.
    var template = Array("/tmp/subs-fuzz-store-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(fd >= 0, "mkstemp failed")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
}()
private let storePath = "/proc/self/fd/\(storeFD)"

private func writeInput(_ data: UnsafePointer<UInt8>?, _ size: Int) {
    precondition(ftruncate(storeFD, 0) == 0)
    var written = 0
    while written < size {
        let n = pwrite(storeFD, data! + written, size - written, off_t(written))
        precondition(n > 0, "pwrite failed")
        written += n
    }
}

/// FNV-1a of the input: the same input always gives the same instants.
private func hash(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for i in 0..<size { h = (h ^ UInt64(data![i])) &* 0x100_0000_01b3 }
    return h
}

/// Instants worth evaluating at: one derived from the input (years 2000–2060), each date of the
/// record and one second on either side of it (the boundaries of SPEC section 3), capped.
private func instants(for record: CustomerRecord, seed: UInt64) -> [Instant] {
    var all = [Instant(seconds: 946_684_800 + Int64(seed % (60 * 365 * 86_400)), nanoseconds: Int32(seed % 1_000_000_000))]
    var dates: [Instant] = []
    for t in record.transactions {
        dates.append(t.transactionDate)
        if let e = t.expirationDate { dates.append(e) }
        if let r = t.revocationDate { dates.append(r) }
    }
    for e in record.events {
        dates.append(e.date)
        if let r = e.autoResumeDate { dates.append(r) }
    }
    for g in record.grants {
        dates.append(g.grantedAt)
        if let e = g.expirationDate { dates.append(e) }
        if let r = g.revokedAt { dates.append(r) }
    }
    for d in dates.prefix(24) {
        all.append(d)
        // Dates at the edges of 0001–9999 have no neighbour there.
        if let before = d.adding(seconds: -1) { all.append(before) }
        if let after = d.adding(seconds: 1) { all.append(after) }
    }
    return all
}

private func checkRules(_ record: CustomerRecord, catalog: Catalog, seed: UInt64) {
    for t in instants(for: record, seed: seed) {
        let infos = EntitlementRules.evaluate(record, catalog: catalog, at: t)
        let ids = infos.map(\.id)
        precondition(ids == ids.sorted() && Set(ids).count == ids.count, "entitlements not sorted and unique")
        for info in infos {
            precondition(info.isActive == (info.state == .active || info.state == .gracePeriod),
                         "isActive \(info.isActive) disagrees with state \(info.state) for \(info.id)")
            precondition((info.renewsCount ?? 0) >= 0, "negative renewsCount")
            precondition(info.transactions.allSatisfy { $0.transactionDate <= t }, "a transaction after T is listed")
            if info.isActive, let end = info.expirationDate {
                precondition(t < end || info.state == .gracePeriod, "active at or after its expirationDate")
            }
        }
        let entries = History.entries(of: record, catalog: catalog, until: t)
        precondition(zip(entries, entries.dropFirst()).allSatisfy { $0.date <= $1.date }, "history out of order")
        precondition(entries.allSatisfy { $0.date <= t }, "history entry after until")
        // The timeline's "access ended" milestones: in order, never after until, never at a
        // moment the rules call active.
        let ends = AccessEnds.of(record, catalog: catalog, until: t)
        precondition(zip(ends, ends.dropFirst()).allSatisfy { $0.date <= $1.date }, "access ends out of order")
        for end in ends {
            precondition(end.date <= t, "access ended after until")
            precondition(!(infos.first { $0.id == end.entitlement }.map { $0.isActive && end.date == t } ?? false),
                         "access ended at T while active at T")
        }
    }
}

/// `find` names the customer by its id, its email (upper-cased) and each transaction's ids, and
/// answers the same with one term (byte search) as with several (field by field).
private func checkFind(_ store: LocalStore, _ record: CustomerRecord) {
    var terms = [record.id.string]
    if case .string(let email)? = record.attributes?["email"] {
        // Upper case and back is not always the same word (ß, final sigma): then as stored.
        terms.append(email.uppercased().lowercased() == email.lowercased() ? email.uppercased() : email)
    }
    for t in record.transactions.prefix(4) { terms += [t.transactionId.string, t.originalTransactionId.string] + (t.orderId.map { [$0] } ?? []) }
    let together: FoundRecords
    do {
        together = try store.find(FindQuery(terms: terms + ["", "\u{0}x"]))
    } catch {
        fatalError("find threw on a valid store: \(error)")
    }
    for (i, term) in terms.enumerated() {
        precondition(together.matches[i].contains { $0.record.id == record.id }, "find \(term.debugDescription) misses \(record.id.debugDescription)")
        guard let alone = try? store.find(FindQuery(terms: [term])) else { fatalError("find of one term threw") }
        precondition(alone.matches[0].map(\.record.id) == together.matches[i].map(\.record.id), "the two scans disagree on \(term.debugDescription)")
        precondition(together.matches[i].map(\.kind) == together.matches[i].map(\.kind).sorted(), "kinds out of order")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    writeInput(data, size)
    let seed = hash(data, size)
    let store = LocalStore(path: storePath)

    // Validation of the whole store: a StoreError or a list of problems, nothing else.
    let problems: [StoreProblem]?
    do {
        problems = try StoreValidator.problems(path: storePath)
    } catch is StoreError {
        problems = nil
    } catch {
        fatalError("StoreValidator threw \(type(of: error)): \(error)")
    }

    let ids: [ID]
    do {
        ids = try store.customerIds()
    } catch let error as StoreError {
        precondition(problems?.isEmpty != true, "customerIds failed on a store that validated")
        // A store that is not JSON is the validator's one problem, at the empty path, with its position.
        if case .syntax(_, let syntax) = error {
            precondition(problems == [StoreProblem(path: "", message: "\(syntax)")], "a syntax error validated as \(String(describing: problems))")
        }
        return 0
    } catch {
        fatalError("customerIds threw \(type(of: error)): \(error)")
    }

    let asked = Array(ids.prefix(16)) + ["\u{0}missing"]
    let lookup: (catalog: Catalog, records: [CustomerRecord?])
    do {
        lookup = try store.read(asked)
    } catch is StoreError {
        precondition(problems?.isEmpty != true, "lookup failed on a store that validated")
        return 0
    } catch {
        fatalError("lookup threw \(type(of: error)): \(error)")
    }
    precondition(lookup.records.count == asked.count, "one record per id asked")
    precondition(lookup.records.last! == nil, "a customer that does not exist was found")
    for (id, record) in zip(asked, lookup.records).dropLast() {
        guard let record else { fatalError("customer \(id.debugDescription) listed but not found") }
        precondition(record.id == id, "looked up \(id.debugDescription), got \(record.id.debugDescription)")
        checkRules(record, catalog: lookup.catalog, seed: seed)
        if problems?.isEmpty == true { checkFind(store, record) }
        // Aliases name their customer, unless the store is invalid (an alias owned twice).
        if problems?.isEmpty == true, let alias = record.aliases.first {
            let byAlias = try? store.read([alias])
            precondition(byAlias?.records.first??.id == record.id, "alias \(alias.debugDescription) does not name its customer")
        }
    }
    return 0
}
