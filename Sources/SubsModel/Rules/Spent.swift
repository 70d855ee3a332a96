// What a customer of the store paid (SPEC section 4, "Money", rev. 4), as `totalSpent` counts it:
// a pure function of the record and T, beside the entitlement rules.

public enum Spent {
    /// The payments dated up to T. A payment is a transaction the customer paid for: not a
    /// free trial (a `trialStarted` without a price), not a period priced at zero, not a family
    /// member's shared access (the organiser paid). Consumables are payments too. A payment
    /// revoked by T is refunded: counted, not in the amount. A payment without `priceMicros` is
    /// counted among those of unknown price, never guessed.
    public static func spending(of customer: CustomerRecord, at t: Instant) -> Spending {
        var payments: [Payment] = []
        for transaction in customer.transactions where transaction.transactionDate <= t {
            guard transaction.ownershipType == .owner else { continue }
            if let micros = transaction.priceMicros, micros == 0 { continue }
            if transaction.priceMicros == nil, transaction.type == .trialStarted { continue }
            let refunded = transaction.revocationDate.map { $0 <= t } ?? false
            payments.append(Payment(price: transaction.price, currency: transaction.price == nil ? nil : transaction.currency,
                                    refunded: refunded, isSandbox: transaction.environment == .sandbox))
        }
        return Spending(payments: payments, unpricedReason: "the store keeps no price (priceMicros) for some payments")
    }

    /// `priceMicros` as the decimal `history` and `check` show (`9990000` USD → `"9.99"`, at least
    /// the currency's minor units); nil without a price.
    public static func priceText(_ transaction: Transaction) -> String? {
        guard let price = transaction.price else { return nil }
        guard let currency = transaction.currency else { return price.text() }
        return CurrencyCode.format(price, currency)
    }
}
