// `store validate`: every problem of the whole store, one customer materialised at a time.

import SubsJSON
import SubsSystem
import SubsModel

public enum StoreValidator {
    /// All schema problems of the store in document order (empty: valid). Throws `StoreError`
    /// for a store that is missing, unreadable or not valid JSON (those stop everything).
    /// A store that is not JSON at all has one problem, its first syntax error, at the path ""
    /// with its line and column: `store validate --json` answers the same document either way.
    public static func problems(path: String) throws -> [StoreProblem] {
        let store: ScannedStore
        do {
            store = try ScannedStore.scan(path: path, ids: [], collectAll: true)
        } catch StoreError.syntax(_, let error) {
            return [StoreProblem(path: "", message: "\(error)")]
        }
        // A store truncated or rewritten during the checks is refused, not half-reported.
        return try store.file.reading { try problems(of: store) }
    }

    private static func problems(of store: ScannedStore) throws -> [StoreProblem] {
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems

        let customerIds = Set(store.index.all.map(\.id))
        var aliasOwner: [ID: ID] = [:]
        // Customers decoded a batch at a time on all cores (never all of them in memory at once);
        // the store-wide alias rules then in store order.
        let batchSize = 4096
        store.file.restartRelease()
        for batchStart in stride(from: 0, to: store.index.all.count, by: batchSize) {
            let batch = Array(store.index.all[batchStart..<min(batchStart + batchSize, store.index.all.count)])
            let decoded = try batch.concurrentMap { span -> (CustomerRecord?, [StoreProblem]) in
                var customerDecoder = RecordDecoder()
                let record = try store.customer(span, catalog: catalog, into: &customerDecoder)
                return (record, customerDecoder.problems)
            }
            if let end = batch.last?.range.upperBound { store.file.release(upTo: end) }
            for (span, (record, customerProblems)) in zip(batch, decoded) {
                problems += customerProblems
                guard let record else { continue }
                let aliasesPath = JSONPath.member(JSONPath.member("customers", span.id), "aliases")
                for (i, alias) in record.aliases.enumerated() {
                    let path = JSONPath.index(aliasesPath, i)
                    if alias != record.id, customerIds.contains(alias) {
                        problems.append(StoreProblem(path: path, message: "alias '\(alias)' is also a customer id"))
                    }
                    if let owner = aliasOwner[alias], owner != record.id {
                        problems.append(StoreProblem(path: path, message: "alias '\(alias)' already belongs to customer '\(owner)'"))
                    } else {
                        aliasOwner[alias] = record.id
                    }
                }
            }
        }
        return problems
    }
}
