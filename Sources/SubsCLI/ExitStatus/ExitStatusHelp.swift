// The exit statuses `subs help COMMAND` lists: what each status means for that command, then
// the statuses every command shares. The full table (ExitCode.meanings) is in `subs help` and
// man subs; these are its words for one command, so a script writer reads them where they look.
// A command's own words are in its spec (CommandSpec.exitStatuses); what a provider does not
// offer comes from RefusedOperations, never from a list written here.

import SubsProviders

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

    /// A 64 line naming the APIs that refuse what a command asks: each part names what is
    /// refused (`grant`, `{flag:--dry-run}`) and the operations behind it.
    static func notOffered(_ parts: [(String, [SourceOperation])]) -> (ExitCode, String) {
        let refused = parts.compactMap { what, operations -> String? in
            let titles = operations.flatMap(RefusedOperations.refusing).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            return titles.isEmpty ? nil : what + " on " + RefusedOperations.listed(titles)
        }
        let which = refused.isEmpty ? "" : " (" + refused.joined(separator: "; ") + ")"
        return (.usage, "Usage error; or not offered by the provider or API version" + which
                    + ": the message names what does. Retrying cannot help")
    }
}

/// The exit statuses of one command: its own, then, for a command that reads customers, 64 and
/// the failures of the store and the remote.
public struct CommandExitStatuses: Sendable {
    /// What each status means for this command, in order.
    var own: [(ExitCode, String)]
    /// Whether it reads customers (a store or a remote), and so may meet their failures;
    /// `completion`, `help` and `commands` do not.
    var readsCustomers: Bool

    /// A command that lists nothing of its own: success and a usage error.
    public init(_ own: [(ExitCode, String)] = [(.success, "Success"), (.usage, "Usage error")], readsCustomers: Bool = true) {
        self.own = own
        self.readsCustomers = readsCustomers
    }

    /// Every status the command may end with and what it means there (`commands --json`).
    var all: [(ExitCode, String)] {
        guard readsCustomers else { return own }
        return own + ([ExitStatusHelp.usage] + ExitStatusHelp.failures).filter { code, _ in !own.contains { $0.0 == code } }
    }

    /// `subs help COMMAND`'s rows: its own statuses, 64, then the failures in one row (65-78).
    var lines: [(String, String)] {
        var rows = own.map { (String($0.0.rawValue), $0.1) }
        guard readsCustomers else { return rows }
        if !own.contains(where: { $0.0 == .usage }) {
            rows.append((String(ExitStatusHelp.usage.0.rawValue), ExitStatusHelp.usage.1))
        }
        let failures = ExitStatusHelp.failures
        let codes = failures.map(\.0.rawValue)
        rows.append(("\(codes.min() ?? 0)-\(codes.max() ?? 0)", "The store or the remote failed: "
                        + failures.map { "\($0.0.rawValue) \($0.1)" }.joined(separator: ", ") + "; see 'subs help'"))
        return rows
    }
}
