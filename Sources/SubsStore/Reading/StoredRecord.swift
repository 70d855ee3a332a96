// A customer as the store holds it: what the subs REST API answers (serve writes it, the client
// reads it), and what a write gives back for each change.

import SubsJSON
import SubsModel

/// A customer as the store holds it, with the catalog (the subs REST API's GET answer).
public struct StoredRecord: Sendable {
    public var id: ID
    public var record: JSONValue
    public var products: JSONValue
    /// A grant with `create` made this customer.
    public var created = false

    package init(id: ID, record: JSONValue, products: JSONValue, created: Bool = false) {
        self.id = id
        self.record = record
        self.products = products
        self.created = created
    }

    /// The header of the subs REST API's answer to a grant that says `created` (serve sets it,
    /// the client reads it): both ends stand on the store, so it is said here, once.
    public static let createdHeader = "Subs-Customer-Created"
}
