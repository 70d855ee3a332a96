// The exit statuses `subs help COMMAND` lists: what each status means for that command, then
// the statuses every command shares. The full table (ExitCode.meanings) is in `subs help` and
// man subs; these are its words for one command, so a script writer reads them where they look.
// What a provider does not offer comes from RefusedOperations, never from a list written here.

import SubsKit

enum ExitStatusHelp {
    /// The failures of the store and the remote every command that reads customers may meet,
    /// in one help line after its own statuses.
    static let failures: [(ExitCode, String)] = [
        (.dataError, "invalid store"), (.noInput, "no store"), (.unavailable, "remote unreachable (retry later)"),
        (.temporaryFailure, "busy or rate limited"), (.protocolError, "remote protocol error"),
        (.permissionDenied, "permission denied"), (.configError, "configuration"),
    ]

    static let usage: (ExitCode, String) = (.usage, "Usage error; or something this provider or API version does not "
                                                + "offer (the message names what does). Retrying cannot help")

    /// A 64 line naming the APIs that refuse what `command` asks.
    static func notOffered(_ parts: [(String, [SourceOperation])]) -> (ExitCode, String) {
        let refused = parts.compactMap { what, operations -> String? in
            let titles = operations.flatMap(RefusedOperations.refusing).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return titles.isEmpty ? nil : what + " on " + RefusedOperations.listed(titles)
        }
        let which = refused.isEmpty ? "" : " (" + refused.joined(separator: "; ") + ")"
        return (.usage, "Usage error; or not offered by the provider or API version" + which
                    + ": the message names what does. Retrying cannot help")
    }

    /// The command's own statuses.
    static func own(_ command: CommandName) -> [(ExitCode, String)] {
        switch command {
        case .check:
            return [(.success, "Every customer found (with {flag:--require}: each one has every required entitlement)"),
                    (.requirementMissing, "{flag:--require}: a customer lacks an active ENTITLEMENT; each one is named on standard error with why"),
                    (.notFound, "A customer not found (the others are still printed), or a {flag:--require} entitlement no product unlocks")]
        case .grant:
            return [(.success, "Written (with {flag:--dry-run}: printed, nothing written)"),
                    (.notFound, "A customer not found (without {flag:--create}), or an entitlement no product unlocks; nothing written"),
                    notOffered([("grant", [.grants]), ("{flag:--lifetime}", [.lifetimeGrants]),
                                ("{flag:--dry-run}", [.dryRun]), ("several customers", [.batchWrites])]),
                    (.cannotWrite, "The store cannot be written; it is left unchanged")]
        case .revoke:
            return [(.success, "Every customer's manual grants of ENTITLEMENT revoked"),
                    (.notFound, "A customer not found, or no active manual grant to revoke; nothing written"),
                    notOffered([("revoke", [.grants]), ("{flag:--dry-run}", [.dryRun]), ("several customers", [.batchWrites])]),
                    (.cannotWrite, "The store cannot be written; it is left unchanged")]
        case .history:
            return [(.success, "The history printed, even when empty"),
                    (.notFound, "A customer not found, or an {flag:--entitlement} no product unlocks"),
                    notOffered([("history", [.history])])]
        case .renewCount:
            return [(.success, "The counts printed"),
                    (.notFound, "A customer not found, an ENTITLEMENT no product unlocks, or one the customer never had"),
                    notOffered([("renew-count", [.renewCount])])]
        case .storeInit:
            return [(.success, "The store was created"),
                    (.cannotWrite, "A store already exists there, or the file cannot be written")]
        case .storeValidate:
            return [(.success, "The store is valid"),
                    (.dataError, "Not valid: one line per problem, with its path"),
                    (.noInput, "No store at the path, or it cannot be read")]
        case .serve:
            return [(.success, "Stopped by SIGINT or SIGTERM after the requests in flight"),
                    (.usage, "A non-loopback {flag:--listen} without a token, or a bad option"),
                    (.unavailable, "The address cannot be listened on")]
        default:
            // completion, help, commands, and a command added without its own list.
            return [(.success, "Success"), (.usage, "Usage error")]
        }
    }

    /// Commands that read no customers: their own statuses only.
    static let standalone: Set<CommandName> = [.completion, .help, .commands]

    /// Every status `command` may end with and what it means there (`commands --json`).
    static func statuses(for command: CommandName) -> [(ExitCode, String)] {
        let own = own(command)
        if standalone.contains(command) { return own }
        return own + ([usage] + failures).filter { code, _ in !own.contains { $0.0 == code } }
    }

    /// `subs help COMMAND`'s rows: its own statuses, 64, then the failures in one row (65-78).
    static func lines(for command: CommandName) -> [(String, String)] {
        let own = own(command)
        var rows = own.map { (String($0.0.rawValue), $0.1) }
        if standalone.contains(command) { return rows }
        if !own.contains(where: { $0.0 == .usage }) { rows.append((String(usage.0.rawValue), usage.1)) }
        let codes = failures.map(\.0.rawValue)
        rows.append(("\(codes.min() ?? 0)-\(codes.max() ?? 0)", "The store or the remote failed: "
                        + failures.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ") + "; see 'subs help'"))
        return rows
    }
}
