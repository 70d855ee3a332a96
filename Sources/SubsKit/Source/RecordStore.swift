// Where customer *records* come from (the local store now, the subs REST API next): raw records
// and the catalog. `RecordSource` runs the entitlement rules over them to answer the seam.

public protocol RecordStore {
    /// Looks customers up by id or alias — all of them in one pass over the data.
    /// Throws for failures of the whole store (missing or invalid, unreachable server);
    /// a customer that does not exist is a nil record, not an error.
    func lookup(_ ids: [ID]) throws -> CustomerLookup

    /// Applies a grant or revoke to every customer named, as one all-or-nothing write (nothing
    /// is written with `dryRun`). `now` stamps grantedAt/revokedAt.
    func apply(_ change: CustomerChange, to ids: [ID], now: Instant, dryRun: Bool) throws -> ChangeResult

    /// Every customer id (shell completion).
    func customerIds() throws -> [ID]

    /// Every customer id and alias: what a mistyped USER may have meant ("did you mean").
    func customerNames() throws -> [ID]

    /// Remarks gathered since the last call (a remote answer from the cache), for the answer to
    /// carry to stderr.
    func takeRemarks() -> Remarks

    /// Who answers, as the history document names it: `store` (the local file), `subs` (serve).
    var provider: String { get }
    /// The customers each term of `query` names (SPEC section 4, "find"), decoded and checked.
    func find(_ query: FindQuery) throws -> FoundRecords

    /// `find`'s results at T (`t`; nil: the store's clock — the server's, else `now`), and T.
    /// By default the records `find` decodes, evaluated here; a store whose server evaluates
    /// them (subs serve's search answers what the find table shows) answers them as they come.
    func findResults(_ query: FindQuery, at t: Instant?, now: Instant) throws -> (results: [FindResult], requestDate: Instant)
}

extension RecordStore {
    public func takeRemarks() -> Remarks { Remarks() }
    public func customerNames() throws -> [ID] { try customerIds() }
    public var provider: String { "store" }

    public func find(_ query: FindQuery) throws -> FoundRecords {
        throw NotOffered("this store cannot search customers")
    }

    public func findResults(_ query: FindQuery, at t: Instant?, now: Instant) throws -> (results: [FindResult], requestDate: Instant) {
        let found = try find(query)
        let at = t ?? found.requestDate ?? now
        return (found.results(query.terms, at: at), at)
    }
}

public struct CustomerLookup: Sendable {
    public var catalog: Catalog
    /// One per requested id, in order; nil when no customer has that id or alias.
    public var records: [CustomerRecord?]
    /// The answering server's clock, when the store has one (remote); nil for the local store.
    public var requestDate: Instant?
    /// The ids (by index) the command's remote budget left unread, with its error; their records are nil.
    public var unanswered: [Int: RemoteError]

    public init(catalog: Catalog, records: [CustomerRecord?], requestDate: Instant? = nil, unanswered: [Int: RemoteError] = [:]) {
        self.catalog = catalog
        self.records = records
        self.requestDate = requestDate
        self.unanswered = unanswered
    }
}
