// The product catalog of a store: what each product is and which entitlements it unlocks.

public enum ProductType: String, Sendable, CaseIterable {
    case subscription, nonConsumable, consumable
}

public struct Product: Equatable, Sendable {
    public var id: ID
    public var type: ProductType
    public var entitlements: [ID]
    /// Subscriptions only; nil = no grace period.
    public var gracePeriod: ISODuration?
    /// Subscriptions only; defaults to P60D.
    public var billingRetryPeriod: ISODuration
    /// Whether the store states billingRetryPeriod (the default is not checked against far dates).
    package var billingRetryPeriodIsStored = false

    public static let defaultBillingRetryPeriod = ISODuration(days: 60)

    public init(id: ID, type: ProductType, entitlements: [ID],
                gracePeriod: ISODuration? = nil,
                billingRetryPeriod: ISODuration = Product.defaultBillingRetryPeriod) {
        self.id = id
        self.type = type
        self.entitlements = entitlements
        self.gracePeriod = gracePeriod
        self.billingRetryPeriod = billingRetryPeriod
    }
}

public struct Catalog: Equatable, Sendable {
    /// Products in store order.
    public var products: [Product]
    private var byId: [ID: Int]
    /// Per product (same order): its entitlements without repeats, computed once.
    private var unlocks: [[ID]]

    public init(_ products: [Product]) {
        self.products = products
        var byId: [ID: Int] = [:]
        for (i, p) in products.enumerated() { byId[p.id] = i }
        self.byId = byId
        unlocks = products.map { product in
            var seen = Set<ID>()
            return product.entitlements.filter { seen.insert($0).inserted }
        }
    }

    /// The entitlements a product unlocks, each once; [] for a product not in the catalog.
    public func entitlements(unlockedBy productId: ID) -> [ID] {
        byId[productId].map { unlocks[$0] } ?? []
    }

    public subscript(id: ID) -> Product? { byId[id].map { products[$0] } }

    /// Every entitlement id some product unlocks, sorted by bytes.
    public var entitlementIds: [ID] {
        Array(Set(products.flatMap(\.entitlements))).sorted()
    }
}
