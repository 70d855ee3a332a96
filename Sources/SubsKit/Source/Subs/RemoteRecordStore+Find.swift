// `find` through `subs serve` (provider `subs`): `GET /v1/customers?search=TERM` names the
// customers; their records are then read like `check` reads them, so that the status is computed
// here with the rules at the server's requestDate, or at --at.

import SubsJSON

extension RemoteRecordStore {
    public func find(_ query: FindQuery) throws -> FoundRecords {
        var remarks = Remarks()
        defer { pending.add(remarks) }
        var perTerm: [[(id: ID, kind: MatchKind)]] = []
        for term in query.terms {
            // The API's paths start with /v1; a base URL given with it already has it.
            var target = (client.endpoint.url.base.hasSuffix("/v1") ? "" : "/v1") + "/customers?search=" + RemoteURL.segment(term)
            for key in query.attributes { target += "&attribute=" + RemoteURL.segment(key) }
            let answer = try client.get(target, cachePolicy: cachePolicy, refusal: SubsAPIError.refusal)
            remarks.note(from: answer)
            // Errors read as the local store's (SubsAPIError): a store the server cannot read is 65/66 here too.
            guard answer.response.status == 200 else { throw SubsAPIError.failure(answer) }
            guard let document = try? JSON.parse(answer.response.body), let result = FindResult(document: document) else {
                throw RemoteError.protocolError(url: answer.url, reason: "the answer is not a find document {\"term\", \"matches\"}")
            }
            guard JSON.bytesEqual(result.term, term) else {
                throw RemoteError.protocolError(url: answer.url, reason: "the answer is about another term")
            }
            perTerm.append(result.matches.map { ($0.customerId, $0.matchedBy) })
        }
        // Each customer read once, however many terms named it.
        var ids: [ID] = []
        var seen: Set<ID> = []
        for match in perTerm.joined() where seen.insert(match.id).inserted { ids.append(match.id) }
        guard !ids.isEmpty else { return FoundRecords(catalog: Catalog([]), matches: perTerm.map { _ in [] }) }
        let lookup = try lookup(ids, remarks: &remarks)
        var records: [ID: CustomerRecord] = [:]
        for (index, (id, record)) in zip(ids, lookup.records).enumerated() where lookup.unanswered[index] == nil {
            if let record { records[id] = record } else {
                remarks.warn("customer '\(id)' was found by the search but was gone when it was read")
            }
        }
        // The command's budget is one for the search and the reading of what it found.
        if let spent = lookup.unanswered.values.first {
            let count = lookup.unanswered.count
            remarks.note("\(count) customer\(count == 1 ? "" : "s") found by the search not shown: \(spent.budgetReason)")
        }
        // A term that named a customer left unread is not known to match nothing.
        let unreadIds = Dictionary(lookup.unanswered.map { (ids[$0.key], $0.value) }) { a, _ in a }
        var unread: [Int: RemoteError] = [:]
        for (index, matches) in perTerm.enumerated() {
            unread[index] = matches.lazy.compactMap { unreadIds[$0.id] }.first
        }
        return FoundRecords(catalog: lookup.catalog, requestDate: lookup.requestDate, matches: perTerm.map { matches in
            matches.compactMap { match in records[match.id].map { (record: $0, kind: match.kind) } }
        }, unread: unread)
    }
}
