// The status routes of the subs REST API (SPEC section 6 rev. 4): a customer's entitlements,
// history and renewal counts, answered with the documents `check`, `history` and `renew-count`
// print (`Documents`, in the model: one builder for both ends), pretty-printed as
// `--format json` prints them, so a body is byte for byte what the command prints on the store.
// They read the customer from the same served version the record route splices, decode it and
// run the rules of SPEC section 3 at `at` (default: the server's clock).

import SubsJSON
import SubsHTTP
import SubsModel
import SubsStore

extension SubsAPI {
    /// What a status route answers instead of a document: a refusal, a customer not found.
    struct Refused: Error {
        var answer: HTTPResponse
    }

    /// The customer as served, decoded; a failure holds the answer (404, the store's errors).
    private func decoded(_ id: ID) -> Result<(record: CustomerRecord, catalog: Catalog), Refused> {
        do {
            guard let stored = try served.customer(id) else { return .failure(Refused(answer: Self.customerNotFound(id))) }
            return .success(try stored.decoded(path: store.path, catalogs: catalogs))
        } catch {
            return .failure(Refused(answer: failure(error)))
        }
    }

    static func customerNotFound(_ id: ID) -> HTTPResponse {
        .error(status: 404, code: "customer_not_found", message: "customer '\(id)' not found")
    }

    /// A document as `--format json` prints it: pretty, 2-space indent, a newline.
    static func document(_ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array((JSONWriter.pretty(value) + "\n").utf8))
    }

    /// GET /v1/customers/{id}/entitlements: check's document.
    func entitlements(_ id: ID, _ query: QueryParameters) -> HTTPResponse {
        let at: Instant?, environment: EnvironmentFilter
        switch (query.instant("at", now: clock.now()), query.environment()) {
        case (.success(let instant), .success(let filter)): (at, environment) = (instant, filter)
        case (.failure(let refusal), _), (_, .failure(let refusal)): return .invalidRequest(refusal.message)
        }
        let customer: (record: CustomerRecord, catalog: Catalog)
        switch decoded(id) {
        case .success(let found): customer = found
        case .failure(let refused): return refused.answer
        }
        let status = EntitlementRules.status(of: customer.record, requestedAs: id, catalog: customer.catalog,
                                             at: at ?? clock.now(), counting: environment)
        return Self.document(Documents.check(status, activeOnly: false))
    }

    /// GET /v1/customers/{id}/history: history's document, entries up to `until` (else `at`,
    /// else now), from `since` on, of `entitlement` when given.
    func history(_ id: ID, _ query: QueryParameters) -> HTTPResponse {
        let now = clock.now()
        let at: Instant?, since: Instant?, until: Instant?, entitlement: ID?
        switch (query.instant("at", now: now), query.instant("since", now: now), query.instant("until", now: now), query.id("entitlement")) {
        case (.success(let a), .success(let s), .success(let u), .success(let e)): (at, since, until, entitlement) = (a, s, u, e)
        case (.failure(let refusal), _, _, _), (_, .failure(let refusal), _, _), (_, _, .failure(let refusal), _),
             (_, _, _, .failure(let refusal)):
            return .invalidRequest(refusal.message)
        }
        let requestDate = at ?? now
        let end = until ?? requestDate
        if let since, since > end {
            return .invalidRequest("since: \(ISODate.format(since)) is after until \(ISODate.format(end))")
        }
        let customer: (record: CustomerRecord, catalog: Catalog)
        switch decoded(id) {
        case .success(let found): customer = found
        case .failure(let refused): return refused.answer
        }
        if let entitlement, let refused = Self.unknownEntitlement(entitlement, catalog: customer.catalog) { return refused }
        let entries = History.selected(History.entries(of: customer.record, catalog: customer.catalog, until: end),
                                       since: since, entitlement: entitlement)
        return Self.document(Documents.history(customerId: customer.record.id, requestedId: id, requestDate: requestDate,
                                               provider: "store", incompleteReason: nil, entries: entries))
    }

    /// GET /v1/customers/{id}/renew-count: renew-count's document (`entitlement`: that one's count).
    func renewCount(_ id: ID, _ query: QueryParameters) -> HTTPResponse {
        let at: Instant?, entitlement: ID?
        switch (query.instant("at", now: clock.now()), query.id("entitlement")) {
        case (.success(let a), .success(let e)): (at, entitlement) = (a, e)
        case (.failure(let refusal), _), (_, .failure(let refusal)): return .invalidRequest(refusal.message)
        }
        let customer: (record: CustomerRecord, catalog: Catalog)
        switch decoded(id) {
        case .success(let found): customer = found
        case .failure(let refused): return refused.answer
        }
        if let entitlement, let refused = Self.unknownEntitlement(entitlement, catalog: customer.catalog) { return refused }
        let status = EntitlementRules.status(of: customer.record, requestedAs: id, catalog: customer.catalog, at: at ?? clock.now())
        var shown = status.entitlements
        if let entitlement {
            shown = shown.filter { $0.id == entitlement }
            guard !shown.isEmpty else {
                return .error(status: 404, code: "entitlement_not_found",
                              message: "customer '\(status.record.id)' never had entitlement '\(entitlement)'")
            }
        }
        return Self.document(Documents.renewCount(customerId: status.record.id, requestedId: id, requestDate: status.requestDate,
                                                  incompleteReason: nil, entitlement: entitlement, entitlements: shown,
                                                  acrossChains: status.renewalsAcrossChains))
    }

    /// 404 `entitlement_not_found` for an entitlement no product unlocks, with the nearest one.
    static func unknownEntitlement(_ entitlement: ID, catalog: Catalog) -> HTTPResponse? {
        let known = catalog.entitlementIds
        guard !known.contains(entitlement) else { return nil }
        var message = "no product unlocks entitlement '\(entitlement)'"
        if let near = EditDistance.closest(to: entitlement, among: known) { message += " (did you mean '\(near)'?)" }
        return .error(status: 404, code: "entitlement_not_found", message: message)
    }
}
