// `store validate`: every problem of the whole store, one customer materialised at a time.

import SubsJSON

public enum StoreValidator {
    /// All schema problems of the store in document order (empty: valid). Throws `StoreError`
    /// for a store that is missing, unreadable or not valid JSON (those stop everything).
    public static func problems(path: String) throws -> [StoreProblem] {
        let store = try ScannedStore.scan(path: path, ids: [], collectAll: true)
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems

        let customerIds = Set(store.index.all.map(\.id))
        var aliasOwner: [String: String] = [:]
        for span in store.index.all {
            var customerDecoder = RecordDecoder()
            let record = try store.customer(span, catalog: catalog, into: &customerDecoder)
            problems += customerDecoder.problems
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
        return problems
    }
}
