// What each provider's API refuses (exit status 64, "not-offered"), read off its source
// (ProviderDescriptor.offers): the 64 sentence of the exit status table and the 64 lines of
// `subs help COMMAND` name them from here; ProviderMatrix's docs use the same phrases.

import SubsProviders

enum RefusedOperations {
    /// Every API of every registered provider, in `--provider` order.
    static let offers: [APIOffer] = ProviderDescriptor.registered.flatMap(\.offers)

    /// How prose names an operation (with markup).
    static func phrase(_ operation: SourceOperation) -> String {
        switch operation {
        case .history: return "history"
        case .renewCount: return "renew-count"
        case .grants: return "grant and revoke"
        case .lifetimeGrants: return "grant {flag:--lifetime}"
        case .dryRun: return "{flag:--dry-run}"
        case .batchWrites: return "a grant or revoke of several customers"
        }
    }

    /// The titles of the APIs that refuse `operation` ("RevenueCat API v2 and IAPHUB").
    static func refusing(_ operation: SourceOperation) -> [String] {
        offers.filter { $0.refusals.contains { $0.operation == operation } }.map(\.api.title)
    }

    /// For the exit status table: each API and what it refuses.
    static var summary: String {
        offers.filter { !$0.refusals.isEmpty }.map { offer in
            offer.api.title + ": " + offer.refusals.map { phrase($0.operation) }.joined(separator: ", ")
        }.joined(separator: "; ")
    }

    /// "a", "a and b", "a, b and c".
    static func listed(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
