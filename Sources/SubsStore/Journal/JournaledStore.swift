// The store as every reader sees it (SPEC section 5 rev. 4): the store's scan, with the journal's
// changes applied — a customer the journal names is read from its latest after-image, every
// other one from the store. The journal is opened before the store (see `JournalFile`).

import SubsJSON
import SubsModel

/// A customer found in the store, or in the journal's after-images.
package struct LocatedCustomer {
    package let span: CustomerSpan
    package let inJournal: Bool
    package var id: ID { span.id }
}

package struct JournaledStore {
    package let store: ScannedStore
    let overlay: JournalOverlay
    /// The journal's customers, scanned like a store; nil when the journal changes nothing.
    let journal: ScannedStore?

    /// Opens the journal, then scans the store (see `ScannedStore.scan`), then applies the journal.
    static func scan(path: String, ids: [ID], collectAll: Bool = false, decodeEarly: Bool = false) throws -> JournaledStore {
        let resolved = try StoreFiles.resolvedPath(path)
        let journalFile = try JournalFile.open(storePath: resolved)
        let store = try ScannedStore.scan(path: path, ids: ids, collectAll: collectAll, decodeEarly: decodeEarly)
        return try applying(journalFile, to: store, ids: ids, collectAll: collectAll)
    }

    /// `store` with the journal (opened before it was) applied.
    static func applying(_ journalFile: JournalFile?, to store: ScannedStore, ids: [ID], collectAll: Bool) throws -> JournaledStore {
        let fd = store.file.duplicateDescriptor()
        defer { if let fd { close(fd) } }
        let overlay = try JournalOverlay.load(journalFile, storeFD: fd, storePath: store.path)
        // The journal's lines were scanned as they were read: a reader of a few customers scans
        // again only the records that may be theirs (every one when all are wanted).
        let only = collectAll || ids.isEmpty ? nil : overlay.candidates(for: ids)
        guard !overlay.isEmpty, only?.isEmpty != true else { return JournaledStore(store: store, overlay: overlay, journal: nil) }
        let held = MappedFile(holding: overlay.document(of: only), path: overlay.journalPath ?? store.path)
        let journal = try ScannedStore.scan(held: held, ids: ids, collectAll: collectAll)
        return JournaledStore(store: store, overlay: overlay, journal: journal)
    }

    /// The customer the i-th requested id names: by key first (the journal's, then the store's),
    /// else by alias, which must then belong to one customer only; nil when none.
    func customer(forRequest i: Int, id: ID) throws -> LocatedCustomer? {
        if let journal, let span = journal.index.byKey[i] { return LocatedCustomer(span: span, inJournal: true) }
        if let span = store.index.byKey[i], !overlay.overrides(span.id) { return LocatedCustomer(span: span, inJournal: false) }
        var owners = store.index.byAlias[i].filter { !overlay.overrides($0.id) }.map { LocatedCustomer(span: $0, inJournal: false) }
        if let journal { owners += journal.index.byAlias[i].map { LocatedCustomer(span: $0, inJournal: true) } }
        if owners.count > 1 {
            let names = owners.map { "'\($0.id)'" }.joined(separator: ", ")
            throw StoreError.invalid(path: store.path, problems: [StoreProblem(
                path: "customers", message: "alias '\(id)' belongs to several customers: \(names)")])
        }
        return owners.first
    }

    /// The customer whose key is the i-th requested id (no alias); nil when none.
    func customerByKey(forRequest i: Int) -> LocatedCustomer? {
        if let journal, let span = journal.index.byKey[i] { return LocatedCustomer(span: span, inJournal: true) }
        if let span = store.index.byKey[i], !overlay.overrides(span.id) { return LocatedCustomer(span: span, inJournal: false) }
        return nil
    }

    /// Where a located customer's bytes are.
    func source(_ customer: LocatedCustomer) -> ScannedStore {
        customer.inJournal ? journal! : store
    }

    func record(_ customer: LocatedCustomer, catalog: Catalog, into decoder: inout RecordDecoder) throws -> CustomerRecord? {
        try source(customer).customer(customer.span, catalog: catalog, into: &decoder)
    }

    func value(_ customer: LocatedCustomer) throws -> JSONValue {
        try source(customer).value(customer.span.range)
    }

    /// Every customer (with `collectAll`): the store's that the journal leaves alone, in store
    /// order, then the journal's.
    /// A customer the journal changed keeps its place; one it created comes after the store's
    /// (where a fold of the journal puts it); one it removed is gone.
    var all: [LocatedCustomer] {
        guard let journal else { return store.index.all.map { LocatedCustomer(span: $0, inJournal: false) } }
        var fromJournal: [ID: CustomerSpan] = [:]
        for span in journal.index.all { fromJournal[span.id] = span }
        var result: [LocatedCustomer] = []
        var placed: Set<ID> = []
        for span in store.index.all {
            guard overlay.overrides(span.id) else { result.append(LocatedCustomer(span: span, inJournal: false)); continue }
            if let changed = fromJournal[span.id], placed.insert(span.id).inserted {
                result.append(LocatedCustomer(span: changed, inJournal: true))
            }
        }
        for span in journal.index.all where !placed.contains(span.id) {
            result.append(LocatedCustomer(span: span, inJournal: true))
        }
        return result
    }

    /// Every alias (with `collectAll`), customer by customer in the order of `all`.
    var allAliases: [ID] {
        var byStoreCustomer: [Int: [ID]] = [:]
        for (alias, customer) in store.index.allAliases { byStoreCustomer[customer, default: []].append(alias) }
        var byJournalCustomer: [ID: [ID]] = [:]
        if let journal {
            for (alias, customer) in journal.index.allAliases { byJournalCustomer[journal.index.all[customer].id, default: []].append(alias) }
        }
        var storeIndex: [Int: Int] = [:]   // key offset → index in store.index.all
        for (i, span) in store.index.all.enumerated() { storeIndex[span.keyOffset] = i }
        return all.flatMap { customer -> [ID] in
            customer.inJournal ? byJournalCustomer[customer.id] ?? [] : storeIndex[customer.span.keyOffset].flatMap { byStoreCustomer[$0] } ?? []
        }
    }

    /// What a torn tail of the journal dropped (`store validate` reports it).
    var tear: (journal: String, tear: JournalTear)? {
        guard let tear = overlay.tear, let path = overlay.journalPath else { return nil }
        return (path, tear)
    }
}

#if canImport(Glibc)
import Glibc
#endif
