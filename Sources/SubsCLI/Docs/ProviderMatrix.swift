// The provider × capability matrix, made from what each provider's sources say of themselves
// (ProviderDescriptor.offers: capabilities, whyNotOffered, searchableKinds): the README's table,
// the man page's PROVIDERS list, docs/providers.md's capability lines and `commands --json` all
// read it, so none can say what the code does not. What an API refuses is phrased by
// RefusedOperations, which the exit status 64 texts read too.

import SubsModel
import SubsSource
import SubsProviders

enum ProviderMatrix {
    /// Every API of every registered provider, in `--provider` order.
    static let offers = RefusedOperations.offers

    /// "id", "every kind", or the kinds it can search.
    static func findBy(_ kinds: SearchKinds) -> String {
        if kinds == .all { return "every kind of term" }
        var out: [String] = []
        if kinds.contains(.ids) { out.append("id") }
        if kinds.contains(.emails) { out.append("email") }
        if kinds.contains(.transactions) { out.append("transaction or order id") }
        if kinds.contains(.attributes) { out.append("{flag:--attribute}") }
        return out.isEmpty ? "nothing" : RefusedOperations.listed(out)
    }

    /// "yes", "no", or "yes: one customer a write, no --dry-run".
    static func grants(_ offer: APIOffer) -> String {
        guard offer.capabilities.contains(.grants) else { return "no" }
        var limits: [String] = []
        if !offer.capabilities.contains(.lifetimeGrants) { limits.append("with an end") }
        if !offer.capabilities.contains(.batchWrites) { limits.append("one customer a write") }
        if !offer.capabilities.contains(.dryRun) { limits.append("no {flag:--dry-run}") }
        return limits.isEmpty ? "yes" : "yes: " + limits.joined(separator: ", ")
    }

    static func at(_ offer: APIOffer) -> String {
        offer.capabilities.contains(.evaluationAtAnyInstant) ? "replays the records" : "projects today's record"
    }

    static func yesNo(_ offer: APIOffer, _ capability: SourceCapabilities) -> String {
        offer.capabilities.contains(capability) ? "yes" : "no"
    }

    /// Where the docs describe each API (README links; a new API falls back to docs/providers.md).
    static let docs: [String: (label: String, path: String)] = [
        "subs": ("reference", "docs/reference.md"),
        "RevenueCat API v1": ("RevenueCat", "docs/providers.md#using-subs-with-revenuecat"),
        "RevenueCat API v2": ("API v2", "docs/providers.md#revenuecat-api-v2"),
        "Qonversion API v3": ("Qonversion", "docs/providers.md#using-subs-with-qonversion"),
        "Qonversion API v4": ("API v4", "docs/providers.md#qonversion-rest-api-v4-history-and-renew-count"),
        "IAPHUB": ("IAPHUB", "docs/providers.md#using-subs-with-iaphub"),
    ]

    /// The README's table (markdown, markup resolved).
    static var readmeTable: String {
        var rows = ["| provider | selected with | history | renew-count | find by | grant, revoke | {flag:--at} | docs |",
                    "|---|---|---|---|---|---|---|---|"]
        for offer in offers {
            let link = docs[offer.api.title] ?? ("providers", "docs/providers.md")
            rows.append("| " + [offer.api.title, offer.api.selectedWith, yesNo(offer, .history), yesNo(offer, .renewalCounts),
                                 findBy(offer.searchableKinds), grants(offer), at(offer),
                                 "[\(link.label)](\(link.path))"].joined(separator: " | ") + " |")
        }
        rows.append("")
        rows.append("Every provider answers check. What an API does not offer is exit status {exit:not-offered} with a "
                    + "sentence naming what does ([docs/providers.md](docs/providers.md#what-each-api-offers) quotes them); "
                    + "retrying cannot help.")
        return rows.map { ProseMarkup.render($0, for: .markdown, flags: CommandLineSpec.subs.flagNames) }.joined(separator: "\n") + "\n"
    }

    /// What one API offers, in a sentence (with markup).
    static func offered(_ offer: APIOffer) -> String {
        var parts = ["check"]
        if offer.capabilities.contains(.history) { parts.append("history") }
        if offer.capabilities.contains(.renewalCounts) { parts.append("renew-count") }
        var text = "Offers " + RefusedOperations.listed(parts) + "; find by " + findBy(offer.searchableKinds)
        let grant = grants(offer)
        if grant != "no" { text += "; grant and revoke" + (grant == "yes" ? "" : " (" + grant.dropFirst(5) + ")") }
        text += "; {flag:--at} " + at(offer) + "."
        return text
    }

    /// docs/providers.md's capability lines (markdown, markup resolved): each API, what it offers,
    /// and under it each refusal with the source's own sentence.
    static var capabilityLines: String {
        offers.map { offer in
            var lines = ["- **\(offer.api.title)** (\(offer.api.selectedWith)). " + offered(offer)]
            for refusal in offer.refusals {
                lines.append("  - " + RefusedOperations.phrase(refusal.operation) + ": exit status {exit:not-offered}, \u{201C}"
                             + refusal.why + "\u{201D}")
            }
            return lines.map { ProseMarkup.render($0, for: .markdown, flags: CommandLineSpec.subs.flagNames) }.joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }

    /// The man page's list: one item per API (plain text with markup, resolved by ManPage).
    static var manItems: [(head: String, body: String)] {
        offers.map { offer in
            var body = "Selected with " + offer.api.selectedWith + ". " + offered(offer)
            if !offer.refusals.isEmpty {
                body += " Not offered, exit status {exit:not-offered}: " + offer.refusals.map { refusal in
                    RefusedOperations.phrase(refusal.operation) + " (" + refusal.why + ")"
                }.joined(separator: "; ") + "."
            }
            return (offer.api.title, body)
        }
    }
}
