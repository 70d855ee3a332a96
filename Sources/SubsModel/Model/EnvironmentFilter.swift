// Which purchases count (`check --environment`): the rules and every source filter by it, so it
// is the model's.

/// Which purchases count toward an entitlement (`check --environment`); grants always count.
public enum EnvironmentFilter: String, Sendable, CaseIterable {
    case production, sandbox, any

    /// The one environment that counts; nil for any.
    public var environment: PurchaseEnvironment? {
        switch self {
        case .production: return .production
        case .sandbox: return .sandbox
        case .any: return nil
        }
    }

    public func counts(isSandbox: Bool, isGrant: Bool) -> Bool {
        switch self {
        case .any: return true
        case .production: return isGrant || !isSandbox
        case .sandbox: return isGrant || isSandbox
        }
    }
}
