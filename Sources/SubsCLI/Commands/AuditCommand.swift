// `subs audit [--since DATE] [--actor NAME] [--customer ID]`: the store's audit log
// (STORE.audit.jsonl, SPEC section 5 rev. 4), oldest first — who wrote what, when, from where.

#if canImport(Glibc)
import Glibc
#endif
import SubsModel
import SubsSource
import SubsStore

extension CommandName {
    static let audit = CommandName("audit")
}

extension CommandLineSpec.Options {
    static let auditSince = OptionSpec("since", kind: .date, valueName: "DATE", help: "Only the writes from DATE on")
    static let auditActor = OptionSpec("actor", kind: .nonEmptyText, valueName: "NAME",
                                       help: "Only the writes of NAME (a serve token's name, or a local --actor)")
    static let auditCustomer = OptionSpec("customer", kind: .customer, valueName: "ID", help: "Only the writes to customer ID")
}

enum AuditCommand {
    private typealias Options = CommandLineSpec.Options

    static let spec = CommandSpec(
        .audit, abstract: "Show who wrote what to the store, oldest first",
        discussion: "Reads STORE.audit.jsonl, beside the store: one line per grant or revoke, local or through subs serve, "
            + "with its time, actor (the serve token's name, or {flag:--actor} and the local user), action, customer, "
            + "entitlement, reason, request id, Idempotency-Key and result. The lines are only ever appended. "
            + "A server's log is GET /v1/audit (admin scope).",
        options: [Options.auditSince, Options.auditActor, Options.auditCustomer],
        exitStatuses: CommandExitStatuses([
            (.success, "The lines printed, even none"),
            (.usage, "With {flag:--remote}: the log is the server's (GET /v1/audit)"),
            (.dataError, "A line of the log that is not an audit line (a torn last line is skipped)"),
            (.noInput, "The audit log cannot be read"),
        ]),
        examples: [Example("subs audit --actor dana --since 2026-11-01", "What dana changed this month")],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        if SourceFactory.isRemote(invocation) {
            throw UsageError("audit: reads the store's own audit log; a server's is GET /v1/audit (admin scope)", command: .audit)
        }
        let path = AuditLog.path(forStore: Commands.storePath(invocation, context))
        let since = invocation.instant(Options.auditSince)
        let actor = invocation.text(Options.auditActor).map { Array($0.utf8) }
        let customer = invocation.text(Options.auditCustomer).map { ID($0) }
        let entries: [AuditEntry]
        do {
            entries = try AuditLog.read(path: path) { entry in
                (since.map { entry.time >= $0 } ?? true) && (customer.map { entry.customer == $0 } ?? true)
                    && (actor.map { Array(entry.actor.utf8) == $0 } ?? true)
            }
        } catch let error as AuditLogError {
            if case .badLine = error { throw CommandFailure(.dataError, error.description) }
            throw CommandFailure(.noInput, error.description)
        }
        if !invocation.global.quiet { Commands.write(AuditResult(path: path, entries: entries), invocation, context) }
        return .success
    }

    /// The audit lines of a local write the store committed (grant, revoke): one per customer.
    static func entries(of answer: ChangeAnswer, change: CustomerChange, actor: String?, now: Instant,
                        context: Context) -> [AuditEntry] {
        let user = localUser(context)
        var action = "grant", reason: String?
        switch change {
        case .grant(_, _, let why, _, _): reason = why
        case .revoke(_, let why, _): (action, reason) = ("revoke", why)
        }
        return answer.customers.map { changed in
            let grants = changed.change.grants.map(\.id.string).joined(separator: " ")
            let result = (changed.change.created ? "created, " : "") + (action == "grant" ? "granted " : "revoked ") + grants
            return AuditEntry(time: now, actor: actor ?? user ?? "unknown", user: user, via: "cli", action: action,
                              customer: changed.change.record.id, entitlement: change.entitlement, reason: reason, result: result)
        }
    }

    /// Who runs the command: the account's name (not $USER, which anyone may set).
    private static func localUser(_ context: Context) -> String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }
}
