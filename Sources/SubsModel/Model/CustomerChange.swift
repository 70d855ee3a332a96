// Writes through the seam: what a grant or a revoke asks for, what it did, and why it may refuse.

public enum CustomerChange: Sendable, Equatable {
    /// A manual grant of `entitlement` until `expirationDate` (nil = lifetime).
    case grant(entitlement: ID, expirationDate: Instant?, reason: String?, actor: String?, createMissing: Bool)
    /// Revokes every manual grant of `entitlement` that is still active.
    case revoke(entitlement: ID, reason: String?, actor: String?)

    public var entitlement: ID {
        switch self {
        case .grant(let e, _, _, _, _), .revoke(let e, _, _): return e
        }
    }

    /// A grant that creates the customers it names when they do not exist (`--create`).
    public var createsMissing: Bool {
        if case .grant(_, _, _, _, true) = self { return true }
        return false
    }
}

/// One change to one customer (the server's requests, committed together).
public struct ChangeRequest: Sendable {
    public var change: CustomerChange
    public var id: ID
    public init(change: CustomerChange, id: ID) {
        self.change = change
        self.id = id
    }
}

public struct ChangedCustomer: Sendable {
    /// The record after the change.
    public var record: CustomerRecord
    /// The grant records written (grant) or revoked (revoke), as they now stand.
    public var grants: [Grant]
    /// The customer did not exist and was created (`--create`).
    public var created: Bool

    package init(record: CustomerRecord, grants: [Grant], created: Bool) {
        self.record = record
        self.grants = grants
        self.created = created
    }
}

public struct ChangeResult: Sendable {
    public var catalog: Catalog
    /// One per distinct customer, in the order they were named.
    public var customers: [ChangedCustomer]

    package init(catalog: Catalog, customers: [ChangedCustomer]) {
        self.catalog = catalog
        self.customers = customers
    }
}

public enum ChangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No product unlocks the entitlement.
    case unknownEntitlement(ID, suggestion: ID?)
    case customersNotFound([ID])
    /// These customers have no active manual grant of the entitlement.
    case nothingToRevoke(entitlement: ID, customers: [ID])
    case expirationNotInFuture(Instant)

    /// Said after a suggestion that looks like what was typed: the same text in another Unicode
    /// form, which is another id (SPEC section 7).
    public static func otherSpelling(_ suggestion: ID, _ typed: ID) -> String {
        suggestion.isOtherSpelling(of: typed)
            ? " — the same letters in another Unicode form; ids are compared by their bytes" : ""
    }

    public var description: String {
        switch self {
        case .unknownEntitlement(let e, let suggestion):
            return "no product unlocks entitlement '\(e)'" + (suggestion.map { " (did you mean '\($0)'?\(ChangeError.otherSpelling($0, e)))" } ?? "")
        case .customersNotFound(let ids):
            let list = ids.map { "'\($0)'" }.joined(separator: ", ")
            // No hint here: how to create a customer depends on where this is read (the CLI's
            // grant --create, the REST API's "create": true); revoke has no such thing.
            return "customer\(ids.count == 1 ? "" : "s") \(list) not found; nothing written"
        case .nothingToRevoke(let e, let ids):
            let list = ids.map { "'\($0)'" }.joined(separator: ", ")
            return "no active manual grant of '\(e)' to revoke for \(list); nothing written"
        case .expirationNotInFuture(let date):
            return "the expiration \(ISODate.format(date)) is not in the future; nothing written"
        }
    }
}
