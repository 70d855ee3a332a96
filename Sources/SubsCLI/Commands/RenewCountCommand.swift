// `subs renew-count USER [ENTITLEMENT]`: how many times the subscriptions renewed. USER `-`
// reads the ids from standard input.

import SubsJSON
import SubsModel
import SubsRemote

extension CommandName {
    static let renewCount = CommandName("renew-count")
}

enum RenewCountCommand {
    static let spec = CommandSpec(
        .renewCount, abstract: "Show how many times subscriptions renewed",
        discussion: "With ENTITLEMENT, the table format prints the bare number.",
        arguments: [ArgumentSpec("USER", kind: .customer, help: "A customer id or alias; '-' reads ids from standard input"),
                    ArgumentSpec("ENTITLEMENT", kind: .entitlement, arity: .optional, help: "Only this entitlement")],
        exitStatuses: CommandExitStatuses([
            (.success, "The counts printed"),
            (.notFound, "A customer not found, an ENTITLEMENT no product unlocks, or one the customer never had"),
            ExitStatusHelp.notOffered([("renew-count", [.renewCount])]),
        ]),
        examples: [Example("n=$(subs renew-count alice premium)", "Renewals of alice's premium"),
                   Example("subs renew-count - premium < ids.txt", "Renewals of premium for every id in ids.txt")],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        guard let user = invocation.positionals.first else {
            throw UsageError("renew-count: missing USER", command: .renewCount)
        }
        let wanted = invocation.positionals.count > 1 ? ID(invocation.positionals[1]) : nil
        let users = try Commands.users([user], context)
        let source = try Commands.source(invocation, context)
        try source.require(.renewalCounts)

        var status = ExitCode.success
        var counts: [Asked<RenewCounts>] = []
        var unanswered: [(id: ID, error: RemoteError)] = []
        let nearby = NearbyCustomers(source)
        for (id, answer) in zip(users, try source.renewalCounts(of: users, at: invocation.global.at)) {
            if let spent = answer.unanswered[0] {
                unanswered.append((id, spent))
                counts.append(.missing(Missing.unanswered(id, spent)))
                continue
            }
            Commands.say(answer.notes, context)
            Commands.warn(answer.warnings, context)
            let incomplete = Commands.incompleteReason(complete: answer.complete, answer.incompleteReason)
            if let incomplete { Commands.say(["incomplete renewal counts: \(incomplete)"], context) }
            if let wanted, let known = answer.knownEntitlements { try Commands.checkEntitlementExists(wanted, known: known) }
            var missing: Missing?
            var shown: [EntitlementInfo] = []
            if let customer = answer.statuses.first ?? nil {
                shown = customer.entitlements
                if let wanted {
                    if let e = customer.entitlements.first(where: { $0.id == wanted }) {
                        shown = [e]
                    } else {
                        missing = Missing(requestedId: id, customerId: customer.record.id, code: "entitlement_not_found",
                                          message: "customer \(Terminal.quoted(customer.record.id, escaping: false)) never had entitlement \(Terminal.quoted(wanted, escaping: false))")
                    }
                }
                if missing == nil {
                    counts.append(.found(RenewCounts(customerId: customer.record.id, requestedId: id, requestDate: answer.requestDate,
                                                     incompleteReason: incomplete, entitlements: shown,
                                                     acrossChains: customer.renewalsAcrossChains)))
                }
            } else {
                missing = Missing.customer(id, FindHint.notFound(id, source: source, nearby: nearby))
            }
            if let missing {
                let failure = CommandFailure(.notFound, missing.message)
                status = status.combined(with: Commands.report(failure, context))
                counts.append(.missing(missing))
            }
        }
        status = status.combined(with: Commands.reportUnanswered(unanswered, of: users.count, context))
        guard !invocation.global.quiet else { return status }
        let result = RenewCountResult(counts: counts, entitlement: wanted, asArray: user == "-")
        Commands.write(result, invocation, context)
        return status
    }
}
