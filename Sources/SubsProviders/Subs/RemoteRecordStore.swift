// Provider `subs`: records from a `subs serve` endpoint (SPEC section 6). The server answers a
// customer's record and the catalog; `RecordSource` runs the same rules over them as over the
// local file, so both print the same for the same data.

import SubsJSON
import SubsModel
import SubsStore
import SubsRemote
import SubsSource

public struct RemoteRecordStore: RecordStore {
    public let client: RemoteClient
    public let cachePolicy: CachePolicy
    /// What the client said of the answers (cache age), until the answer built from them says it.
    let pending = PendingRemarks()

    public init(client: RemoteClient, cachePolicy: CachePolicy) {
        self.client = client
        self.cachePolicy = cachePolicy
    }

    /// What the base URL of `subs serve` looks like (said when a 404 shows it is not one).
    public static let expectedBaseURL = "be the address of subs serve, as in http://127.0.0.1:8787 (with or without /v1)"

    /// The API's paths start with /v1; a base URL given with it (`http://host:8787/v1`) already has it.
    private var v1: String {
        client.endpoint.url.base.hasSuffix("/v1") ? "" : "/v1"
    }

    public func lookup(_ ids: [ID]) throws -> CustomerLookup {
        var remarks = Remarks()
        // Said even when a later customer fails, as the cache note of an earlier one is true.
        defer { pending.add(remarks) }
        return try lookup(ids, remarks: &remarks)
    }

    func lookup(_ ids: [ID], remarks: inout Remarks) throws -> CustomerLookup {
        var catalog = Catalog([])
        var requestDate: Instant?
        var fromCache = false
        if ids.isEmpty {
            throw NotOffered("the subs REST API answers customers, not the catalog alone")
        }
        // One request per customer, all within the command's budget; the records are kept.
        let batch = try BudgetedBatch.each(ids, budget: client.budget, releasing: false) { id -> CustomerRecord? in
            let answer = try client.get(v1 + "/customers/" + RemoteURL.segment(id.string), customer: id.string, cachePolicy: cachePolicy,
                                        refusal: SubsAPIError.refusal)
            remarks.note(from: answer)
            switch answer.response.status {
            case 200: break
            case 404 where SubsAPIError.from(answer)?.code == "customer_not_found": return nil
            default: throw SubsAPIError.failure(answer)
            }
            let decoded = try decode(answer)
            catalog = decoded.catalog
            requestDate = decoded.requestDate
            if answer.cacheAge != nil { fromCache = true }
            return decoded.record
        }
        // A cached record is judged at the local clock (nil: the caller's), not at the date it
        // was fetched: access that ended since is over.
        return CustomerLookup(catalog: catalog, records: batch.answers.map { $0 ?? nil }, requestDate: fromCache ? nil : requestDate,
                              unanswered: batch.unanswered)
    }

    public func apply(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws -> ChangeResult {
        guard !dryRun else {
            throw NotOffered("the subs REST API has no dry run: nothing was sent (run the dry run against the store itself)")
        }
        guard ids.count == 1, let id = ids.first else {
            throw NotOffered("the subs REST API changes one customer per request (a batch could not be all or nothing)")
        }
        let path: String
        var body: [(String, JSONValue)]
        switch change {
        case .grant(let entitlement, let expiration, let reason, let actor, let create):
            path = "\(v1)/customers/\(RemoteURL.segment(id.string))/grants"
            body = [("entitlement", .string(entitlement.string)),
                    ("expirationDate", expiration.map { .string(ISODate.format($0)) } ?? .null)]
            if let reason { body.append(("reason", .string(reason))) }
            if let actor { body.append(("grantedBy", .string(actor))) }
            if create { body.append(("create", .bool(true))) }
        case .revoke(let entitlement, let reason, let actor):
            path = "\(v1)/customers/\(RemoteURL.segment(id.string))/entitlements/\(RemoteURL.segment(entitlement.string))/revoke"
            body = []
            if let reason { body.append(("reason", .string(reason))) }
            if let actor { body.append(("revokedBy", .string(actor))) }
        }
        // The key makes a retried POST safe: the server answers a repeat without writing again.
        let key = (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
        let answer = try client.send("POST", path, headers: [(name: "Idempotency-Key", value: key)],
                                     body: Array(JSONWriter.compact(.object(JSONObject(body))).utf8),
                                     refusal: SubsAPIError.refusal)
        guard answer.response.status == 200 || answer.response.status == 201 else {
            // A customer the server does not have is the local store's miss, so the CLI words it
            // as it does locally (its hint names --create, not the API's body field).
            if answer.response.status == 404, SubsAPIError.from(answer)?.code == "customer_not_found" {
                throw ChangeError.customersNotFound([id])
            }
            throw SubsAPIError.failure(answer)
        }
        let decoded = try decode(answer)
        guard let record = decoded.record else { throw protocolError(answer, "no customer in the answer") }
        let grants: [Grant]
        if case .grant = change { grants = record.grants.suffix(1) } else {
            // One revoke stamps every grant it ends with one instant, the latest of the entitlement's
            // (the answer's requestDate is made later and may fall on the next second).
            let ofEntitlement = record.grants.filter { $0.entitlement == change.entitlement }
            let latest = ofEntitlement.compactMap(\.revokedAt).max()
            grants = ofEntitlement.filter { latest != nil && $0.revokedAt == latest }
        }
        let created = answer.response.header(StoredRecord.createdHeader) == "true"
        return ChangeResult(catalog: decoded.catalog,
                            customers: [ChangedCustomer(record: record, grants: grants, created: created)])
    }

    public func takeRemarks() -> Remarks { pending.take() }

    public var provider: String { "subs" }

    public func customerIds() throws -> [ID] {
        throw NotOffered("the subs REST API does not list customers")
    }

    private func decode(_ answer: RemoteAnswer) throws -> (record: CustomerRecord?, catalog: Catalog, requestDate: Instant) {
        let body: JSONValue
        do { body = try JSON.parse(answer.response.body) } catch {
            throw protocolError(answer, "the answer is not JSON: \(error)")
        }
        guard case .string(let dateText)? = body["requestDate"], let requestDate = ISODate.parse(dateText) else {
            throw protocolError(answer, "requestDate missing or not a date")
        }
        guard let customer = body["customer"]?.objectValue, case .string(let id)? = customer["id"],
              let products = body["products"] else {
            throw protocolError(answer, "customer or products missing")
        }
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(products)
        var fields = customer
        fields["id"] = nil
        let record = decoder.customer(id: ID(id), .object(fields), catalog: catalog, path: JSONPath.member("customers", id))
        guard decoder.problems.isEmpty, let record else {
            throw protocolError(answer, decoder.problems.first.map { "\($0.path): \($0.message)" } ?? "invalid customer")
        }
        return (record, catalog, requestDate)
    }

    private func protocolError(_ answer: RemoteAnswer, _ reason: String) -> RemoteError {
        .protocolError(url: answer.url, reason: reason)
    }
}
