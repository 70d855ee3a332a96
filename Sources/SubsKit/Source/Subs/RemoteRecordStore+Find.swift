// `find` through `subs serve` (provider `subs`): `GET /v1/customers?search=TERM` answers what the
// find table shows — each match's id, how it matched, its email and its active entitlements,
// evaluated by the server with the same rules at its clock, or at --at (`&at=`) — so a term
// costs one request (one per page of 10 000 matches or 1 MiB: the answer's `next` names the
// following page). No customer is read on its own. The pages share the command's budget (the
// client's): a page it has no time or bytes left for is not asked, and a note says so.

import SubsJSON

extension RemoteRecordStore {
    /// The most matches one page may hold (the server's bound; it may send fewer, by bytes).
    static let searchPageLimit = 10_000
    /// Pages read for one term at most: a server that never names a last page is a protocol
    /// error, not a loop without end (1 000 pages hold a billion bytes of matches).
    static let searchPageCap = 1_000

    public func findResults(_ query: FindQuery, at t: Instant?, now: Instant) throws -> (results: [FindResult], requestDate: Instant) {
        var remarks = Remarks()
        defer { pending.add(remarks) }
        var results: [FindResult] = []
        var served: Instant?
        for term in query.terms {
            // The API's paths start with /v1; a base URL given with it already has it.
            var target = (client.endpoint.url.base.hasSuffix("/v1") ? "" : "/v1") + "/customers?search=" + RemoteURL.segment(term)
            for key in query.attributes { target += "&attribute=" + RemoteURL.segment(key) }
            if let t { target += "&at=" + RemoteURL.segment(ISODate.format(t)) }
            target += "&limit=\(Self.searchPageLimit)"
            var matches: [FindMatch] = []
            var cursor: String?
            var pages = 0
            /// What ended the reading of the term's pages before the last: its matches shown are not all.
            var unread: RemoteError?
            repeat {
                pages += 1
                let page = target + (cursor.map { "&cursor=" + RemoteURL.segment($0) } ?? "")
                let answer: RemoteAnswer
                do {
                    answer = try client.get(page, cachePolicy: cachePolicy, refusal: SubsAPIError.refusal)
                } catch let spent as RemoteError where spent.isBudgetSpent && pages > 1 {
                    // The command's budget: the pages read are shown, and what was not, said.
                    remarks.note("the search for '\(term)' was read for \(pages - 1) page\(pages == 2 ? "" : "s") only "
                                 + "(\(matches.count) match\(matches.count == 1 ? "" : "es")): \(spent.budgetReason)")
                    unread = spent
                    break
                }
                remarks.note(from: answer)
                // Errors read as the local store's (SubsAPIError): a store the server cannot read is 65/66 here too.
                guard answer.response.status == 200 else { throw SubsAPIError.failure(answer) }
                guard let document = try? JSON.parse(answer.response.body), let result = FindResult(document: document) else {
                    throw RemoteError.protocolError(url: answer.url, reason: "the answer is not a find document {\"term\", \"matches\"}")
                }
                guard JSON.bytesEqual(result.term, term) else {
                    throw RemoteError.protocolError(url: answer.url, reason: "the answer is about another term")
                }
                if served == nil, answer.cacheAge == nil { served = answer.response.header("Date").flatMap(HTTPDate.parse) }
                matches += result.matches
                switch document["next"] {
                case nil, .null?:
                    cursor = nil
                case .string(let next)? where !next.isEmpty && next != cursor && !result.matches.isEmpty && pages < Self.searchPageCap:
                    cursor = next
                default:
                    // A next page named by an empty page, or the page itself again, or past the
                    // cap, would never end.
                    throw RemoteError.protocolError(url: answer.url, reason: pages < Self.searchPageCap
                        ? "the answer's next page is not a cursor that goes on"
                        : "the search named a next page after \(Self.searchPageCap) pages")
                }
            } while cursor != nil
            results.append(FindResult(term: term, matches: matches, unread: unread))
        }
        return (results, t ?? served ?? now)
    }
}
