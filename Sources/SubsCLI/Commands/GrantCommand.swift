// `subs grant USER... ENTITLEMENT` and `subs revoke USER... ENTITLEMENT`: manual grants, written
// safely through the seam, answered with the entitlement's status after the write.

import SubsJSON
import SubsModel
import SubsStore
import SubsSource

extension CommandName {
    static let grant = CommandName("grant")
    static let revoke = CommandName("revoke")
}

extension CommandLineSpec.Options {
    static let duration = OptionSpec("duration", kind: .duration, valueName: "DURATION",
                                     help: "Grant for DURATION from now (P7D, P3M, P1Y)")
    static let grantUntil = OptionSpec("until", kind: .date, valueName: "DATE", help: "Grant until DATE")
    static let lifetime = OptionSpec("lifetime", help: "Grant without an end")
    static let create = OptionSpec("create", help: "Create customers that do not exist")
}

enum GrantCommand {
    private typealias Options = CommandLineSpec.Options

    static let grant = CommandSpec(
        .grant, abstract: "Grant an entitlement manually (promotional)",
        discussion: "Every argument before the last is a customer; the last is the "
            + "entitlement. Several customers are written all or nothing.",
        arguments: [.users, .entitlement],
        options: [Options.duration, Options.grantUntil, Options.lifetime, Options.reason, Options.actor,
                  Options.create, Options.dryRun],
        exactlyOneOf: [["duration", "until", "lifetime"]],
        exitStatuses: CommandExitStatuses([
            (.success, "Written (with {flag:--dry-run}: printed, nothing written)"),
            (.notFound, "A customer not found (without {flag:--create}), or an entitlement no product unlocks; nothing written"),
            ExitStatusHelp.notOffered([("grant", [.grants]), ("{flag:--lifetime}", [.lifetimeGrants]),
                                       ("{flag:--dry-run}", [.dryRun]), ("several customers", [.batchWrites])]),
            (.cannotWrite, "The store cannot be written; it is left unchanged"),
        ]),
        examples: [
            Example("subs grant alice premium --duration P1M --reason goodwill", "A month of premium for alice"),
            Example("subs grant - early_access --duration P3M < ids.txt", "Grant to every customer listed in ids.txt"),
        ],
        paged: true, run: { try run($0, $1) })

    static let revoke = CommandSpec(
        .revoke, abstract: "Revoke the manual grants of an entitlement",
        discussion: "Revokes the customer's active manual grants of ENTITLEMENT; "
            + "purchases are not affected. Nothing to revoke is exit {exit:not-found}.",
        arguments: [.users, .entitlement],
        options: [Options.reason, Options.actor, Options.dryRun],
        exitStatuses: CommandExitStatuses([
            (.success, "Every customer's manual grants of ENTITLEMENT revoked"),
            (.notFound, "A customer not found, or no active manual grant to revoke; nothing written"),
            ExitStatusHelp.notOffered([("revoke", [.grants]), ("{flag:--dry-run}", [.dryRun]), ("several customers", [.batchWrites])]),
            (.cannotWrite, "The store cannot be written; it is left unchanged"),
        ]),
        examples: [Example("subs revoke alice premium --reason 'granted by mistake'", "Take back alice's manual premium")],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let isGrant = invocation.command == .grant
        guard invocation.positionals.count >= 2, let entitlement = invocation.positionals.last.map({ ID($0) }) else {
            throw UsageError("\(invocation.command.rawValue): needs USER... and ENTITLEMENT", command: invocation.command)
        }
        // A write must reach the server; the cache can only answer reads. Refused before any
        // request, and before stdin is read.
        if invocation.global.offline && SourceFactory.isRemote(invocation) {
            throw UsageError("\(invocation.command.rawValue): --offline answers reads from the cache only; "
                             + "a write needs the server (drop --offline)", command: invocation.command)
        }
        let users = try Commands.users(Array(invocation.positionals.dropLast()), context,
                                       requiringIds: true, command: invocation.command)
        let now = context.clock.now()
        // --actor, else SUBS_ACTOR (the parser fills it in), else USER.
        let actor = invocation.text(Options.actor) ?? EnvironmentSpec.user.value(in: context.environment)
        let reason = invocation.text(Options.reason)
        let dryRun = invocation.flag(Options.dryRun)

        let change: CustomerChange
        if isGrant {
            change = .grant(entitlement: entitlement, expirationDate: try expiration(invocation, now: now),
                            reason: reason, actor: actor, createMissing: invocation.flag(Options.create))
        } else {
            change = .revoke(entitlement: entitlement, reason: reason, actor: actor)
        }
        let source = try Commands.source(invocation, context)
        // What the source cannot do, and a grant ending in the past: refused before any request.
        let answer: ChangeAnswer
        do {
            answer = try source.checkedApply(change, to: users, now: now, at: invocation.global.at, dryRun: dryRun)
        } catch ChangeError.customersNotFound(let ids) {
            throw notFound(ids, isGrant: isGrant, source: source)
        }
        Commands.say(answer.notes, context)
        Commands.warn(answer.warnings, context)
        // A local write leaves its audit lines beside the store (serve writes its own).
        var status = ExitCode.success
        if !dryRun && !SourceFactory.isRemote(invocation) {
            let entries = AuditCommand.entries(of: answer, change: change, actor: actor, now: now, context: context)
            do {
                try AuditLog(storePath: Commands.storePath(invocation, context)).append(entries)
            } catch {
                status = .cannotWrite
                context.writeErr(Terminal.message("subs: error: the change was written, but its audit line was not: \(error)") + "\n")
            }
        }
        let at = answer.requestDate
        // The first USER, as given, that named each customer: by bytes (SPEC section 7), in one pass.
        var firstAsked: [ID: (position: Int, user: ID)] = [:]
        for (position, user) in users.enumerated() where firstAsked[user] == nil { firstAsked[user] = (position, user) }
        let outcomes = answer.customers.map { changed in
            let record = changed.change.record
            let asked = ([record.id] + record.aliases).compactMap { firstAsked[$0] }.min { $0.position < $1.position }
            return GrantResult.Outcome(customer: changed.change, status: changed.status, requestedId: asked?.user ?? record.id)
        }
        if !isGrant {
            for outcome in outcomes where outcome.status?.isActive == true && outcome.status?.sourceKind != .grant {
                let through = outcome.status?.productId.map { " (\($0))" } ?? ""
                context.writeErr(Terminal.message("subs: note: \(outcome.customer.record.id) keeps \(entitlement) through a purchase\(through)") + "\n")
            }
        }
        guard !invocation.global.quiet else { return status }
        let asArray = users.count > 1 || invocation.positionals.contains("-")
        let result = GrantResult(outcomes: outcomes, entitlement: entitlement, at: at, dryRun: dryRun,
                                 isGrant: isGrant, asArray: asArray)
        Commands.write(result, invocation, context)
        return status
    }

    /// Customers a write did not find: each with its nearest ids and aliases, and for a grant
    /// the option that creates them (revoke has none: there is nothing to take back).
    static func notFound(_ ids: [ID], isGrant: Bool, source: CustomerSource) -> CommandFailure {
        let nearby = NearbyCustomers(source)
        var message: String
        if ids.count == 1 {
            message = "customer \(Terminal.quoted(ids[0], escaping: false)) not found\(nearby.suggestion(for: ids[0]) ?? "")"
        } else {
            let named = ids.map { Terminal.quoted($0, escaping: false) + (nearby.suggestion(for: $0) ?? "") }
            message = "customers \(named.joined(separator: ", ")) not found"
        }
        message += "; nothing written"
        if isGrant { message += "; add --create to create \(ids.count == 1 ? "it" : "them")" }
        return CommandFailure(.notFound, message)
    }


    /// Exactly one of --duration, --until, --lifetime (the parser checks the "exactly one" and
    /// the values; only now + duration is left to compute).
    static func expiration(_ invocation: Invocation, now: Instant) throws -> Instant? {
        if let duration = invocation.duration(Options.duration) {
            // SPEC section 7: an expiration past year 9999 is refused, nothing written.
            guard let end = now.adding(duration) else {
                throw UsageError("option '--duration': \(ISODate.format(now)) plus \(duration) is past year 9999",
                                 command: .grant)
            }
            return end
        }
        return invocation.instant(Options.grantUntil)
    }
}
