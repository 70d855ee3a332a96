// `subs check USER...`: the entitlement status of one or more customers.

import SubsModel
import SubsRemote
import SubsSource

extension CommandName {
    static let check = CommandName("check")
}

extension CommandLineSpec.Options {
    static let require = OptionSpec("require", kind: .entitlement, valueName: "ENTITLEMENT", repeatable: true,
                                    help: "Exit {exit:requirement-missing} if any listed customer lacks an active ENTITLEMENT")
    static let active = OptionSpec("active", help: "Show only active entitlements")
    static let allowProjection = OptionSpec("allow-projection",
                                            help: "Let --require gate on a platform's record projected to --at")
    static let environment = OptionSpec("environment", kind: .choice(EnvironmentFilter.allCases.map(\.rawValue)),
                                        valueName: "ENV", defaultValue: "any",
                                        help: "Which purchases count: production, sandbox or any; grants always count")
}

enum CheckCommand {
    private typealias Options = CommandLineSpec.Options

    static let spec = CommandSpec(
        .check, abstract: "Show the entitlement status of one or more customers",
        discussion: "Shows every entitlement each customer holds a source for at the "
            + "evaluation time, and why it is in its state. A customer without any "
            + "entitlement is found (exit {exit:success}); an unknown customer is exit {exit:not-found}.",
        arguments: [.users],
        options: [Options.require, Options.active, Options.allowProjection, Options.environment, Options.wide],
        exitStatuses: CommandExitStatuses([
            (.success, "Every customer found (with {flag:--require}: each one has every required entitlement)"),
            (.requirementMissing, "{flag:--require}: a customer lacks an active ENTITLEMENT; each one is named on standard error with why"),
            (.notFound, "A customer not found (the others are still printed), or a {flag:--require} entitlement no product unlocks"),
        ]),
        examples: [
            Example("subs check alice", "Why has alice lost premium?"),
            Example("subs check alice --require premium -q", "CI gate: exit {exit:success} only if alice has premium"),
            Example("subs check alice bob --json | jq '.[].activeEntitlements'", "Active entitlements of two customers"),
        ],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let required = invocation.texts(Options.require).ids
        let users = try Commands.users(invocation.positionals, context, requiringIds: !required.isEmpty, command: .check)
        let environment = invocation.text(Options.environment).flatMap(EnvironmentFilter.init(rawValue:)) ?? .any
        let source = try Commands.source(invocation, context)
        try refuseGatingOnAProjection(required, source: source, invocation)
        let answer = try source.statuses(of: users, at: invocation.global.at, counting: environment)
        Commands.say(answer.notes, context)
        Commands.warn(answer.warnings, context)
        if let known = answer.knownEntitlements {
            for entitlement in required { try Commands.checkEntitlementExists(entitlement, known: known) }
        }

        var status = ExitCode.success
        var customers: [Asked<CustomerStatus>] = []
        var unanswered: [(id: ID, error: RemoteError)] = []
        let nearby = NearbyCustomers(source)
        for (index, (id, customer)) in zip(users, answer.statuses).enumerated() {
            // Never a gate passed on a customer the budget left unread: the batch fails with 69.
            if let spent = answer.unanswered[index] {
                unanswered.append((id, spent))
                customers.append(.missing(Missing.unanswered(id, spent)))
                continue
            }
            guard let customer else {
                let failure = FindHint.notFound(id, source: source, nearby: nearby)
                status = status.combined(with: Commands.report(failure, context))
                customers.append(.missing(Missing.customer(id, failure)))
                continue
            }
            customers.append(.found(customer))
            for entitlement in required {
                guard let why = gateFailure(customer, entitlement, environment: environment) else { continue }
                status = status.combined(with: .requirementMissing)
                // A CI log then says which customer failed the gate and why, batch or not.
                context.writeErr(Terminal.message("subs: \(Terminal.quoted(id, escaping: false)) lacks \(Terminal.quoted(entitlement, escaping: false)): \(why)") + "\n")
            }
        }
        status = status.combined(with: Commands.reportUnanswered(unanswered, of: users.count, context))
        guard !invocation.global.quiet else { return status }
        let asArray = users.count > 1 || invocation.positionals.contains("-")
        let result = CheckResult(customers: customers, activeOnly: invocation.flag(Options.active), asArray: asArray,
                                 judgedAt: Commands.judgedAt(invocation, context))
        Commands.write(result, invocation, context, now: answer.requestDate)
        return status
    }

    /// A platform answers for now only: with `--at` subs projects today's record, which says
    /// nothing reliable about T (a renewal, a refund, a purchase since then), so a gate must not
    /// pass or fail on it unless asked to. Said before anything is sent.
    private static func refuseGatingOnAProjection(_ required: [ID], source: CustomerSource, _ invocation: Invocation) throws {
        guard !required.isEmpty, let at = invocation.global.at, !invocation.flag(Options.allowProjection),
              !source.capabilities.contains(.evaluationAtAnyInstant) else { return }
        throw CommandFailure(.usage, "--require will not gate on a projection: provider \(invocation.global.provider.rawValue) answers "
                             + "for now only, so the status at \(ISODate.format(at)) would be its current record projected "
                             + "to that date (add --allow-projection to gate on it anyway)")
    }

    /// Why `customer` does not pass `--require entitlement`, or nil when it does.
    private static func gateFailure(_ customer: CustomerStatus, _ entitlement: ID,
                                     environment: EnvironmentFilter) -> String? {
        guard let e = customer.entitlements.first(where: { $0.id == entitlement }) else {
            return environment == .any ? "never had it" : "no \(environment.rawValue) purchase or grant of it"
        }
        guard !e.isActive else { return nil }
        return Explanation.sentence(for: e).map { String($0.dropFirst(e.id.string.count + 2)) } ?? Wording.status(e)
    }
}
