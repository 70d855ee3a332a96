// `store validate`: every problem of the whole store with its journal applied, one customer
// materialised at a time; and what a torn tail of the journal dropped.

import SubsJSON
import SubsSystem
import SubsModel

public enum StoreValidator {
    /// All schema problems of the store in document order (empty: valid). Throws `StoreError`
    /// for a store that is missing, unreadable or not valid JSON (those stop everything).
    /// A store that is not JSON at all has one problem, its first syntax error, at the path ""
    /// with its line and column: `store validate --json` answers the same document either way.
    public static func problems(path: String) throws -> [StoreProblem] {
        try check(path: path).problems
    }

    /// The problems, and a sentence for each thing dropped on the way (a journal's torn tail):
    /// the store reads without it, nothing acknowledged was lost, the next write removes it.
    public static func check(path: String) throws -> (problems: [StoreProblem], notes: [String]) {
        let journaled: JournaledStore
        do {
            journaled = try JournaledStore.scan(path: path, ids: [], collectAll: true)
        } catch StoreError.syntax(let where_, let error) where where_ == path {
            return ([StoreProblem(path: "", message: "\(error)")], [])
        }
        var notes: [String] = []
        if let torn = journaled.tear {
            notes.append("\(torn.journal): \(torn.tear.reason); dropped from line \(torn.tear.line) on (the next write removes it)")
        }
        // A store truncated or rewritten during the checks is refused, not half-reported.
        return (try journaled.store.file.reading { try problems(of: journaled) }, notes)
    }

    private static func problems(of journaled: JournaledStore) throws -> [StoreProblem] {
        let store = journaled.store
        var problems = store.topLevelProblems()
        var decoder = RecordDecoder()
        let catalog = try store.catalog(into: &decoder)
        problems += decoder.problems

        let all = journaled.all
        let customerIds = Set(all.map(\.id))
        var aliasOwner: [ID: ID] = [:]
        // Customers decoded a batch at a time on all cores (never all of them in memory at once);
        // the store-wide alias rules then in store order.
        let batchSize = 4096
        store.file.restartRelease()
        for batchStart in stride(from: 0, to: all.count, by: batchSize) {
            let batch = Array(all[batchStart..<min(batchStart + batchSize, all.count)])
            let decoded = try batch.concurrentMap { customer -> (CustomerRecord?, [StoreProblem]) in
                var customerDecoder = RecordDecoder()
                let record = try journaled.record(customer, catalog: catalog, into: &customerDecoder)
                return (record, customerDecoder.problems)
            }
            if let end = batch.last(where: { !$0.inJournal })?.span.range.upperBound { store.file.release(upTo: end) }
            for (customer, (record, customerProblems)) in zip(batch, decoded) {
                let span = customer.span
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
