// The entitlement rules of SPEC section 3: a pure function of (customer record, catalog, T).
// STUB — to be implemented (rules helper).

public enum EntitlementRules {
    /// Every entitlement the customer has a source for at T, sorted by id.
    public static func evaluate(_ customer: CustomerRecord, catalog: Catalog, at t: Instant) -> [EntitlementInfo] {
        fatalError("EntitlementRules.evaluate not implemented yet")
    }

    public static func status(of customer: CustomerRecord, catalog: Catalog, at t: Instant) -> CustomerStatus {
        CustomerStatus(record: customer, requestDate: t, entitlements: evaluate(customer, catalog: catalog, at: t))
    }
}
