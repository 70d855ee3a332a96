// `subs history USER...`: everything that happened to a customer, oldest first.

import SubsJSON
import SubsModel
import SubsRemote
import SubsSource

extension CommandName {
    static let history = CommandName("history")
}

extension CommandLineSpec.Options {
    static let entitlement = OptionSpec("entitlement", kind: .entitlement, valueName: "ID",
                                        help: "Only entries concerning entitlement ID")
    static let since = OptionSpec("since", kind: .date, valueName: "DATE", help: "Only entries from DATE on")
    static let historyUntil = OptionSpec("until", kind: .date, valueName: "DATE", defaultValue: "--at, else now",
                                         help: "Only entries up to DATE")
    static let limit = OptionSpec("limit", kind: .count, valueName: "N", help: "Keep the N most recent entries")
}

enum HistoryCommand {
    private typealias Options = CommandLineSpec.Options

    static let spec = CommandSpec(
        .history, abstract: "Show everything that happened to customers, in time order",
        discussion: "With several USERs, one timeline per customer (JSON: an array with one element per USER "
            + "asked, in order); an unknown customer is exit status {exit:not-found} and does not stop the others.",
        arguments: [.users],
        options: [Options.entitlement, Options.since, Options.historyUntil, Options.limit, Options.wide],
        exitStatuses: CommandExitStatuses([
            (.success, "The history printed, even when empty"),
            (.notFound, "A customer not found, or an {flag:--entitlement} no product unlocks"),
            ExitStatusHelp.notOffered([("history", [.history])]),
        ]),
        examples: [
            Example("subs history erin", "Why erin lost access: the timeline, with when access ended"),
            Example("subs history alice --since 2026-01-01 --format jsonl", "This year's events, one JSON object per line"),
        ],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        // An empty window is a mistake in the command, not a customer without history.
        if let since = invocation.instant(Options.since), let until = invocation.instant(Options.historyUntil), since > until {
            throw UsageError("history: --since \(ISODate.format(since)) is after --until \(ISODate.format(until))",
                             command: .history)
        }
        let users = try Commands.users(invocation.positionals, context)
        let source = try Commands.source(invocation, context)
        try source.require(.history)
        let entitlement = invocation.text(Options.entitlement).map { ID($0) }
        let since = invocation.instant(Options.since)
        let limit = invocation.count(Options.limit)

        var status = ExitCode.success
        var histories: [Asked<CustomerHistory>] = []
        var unanswered: [(id: ID, error: RemoteError)] = []
        let nearby = NearbyCustomers(source)
        for id in users {
            let asked: HistoryAnswer?
            do {
                asked = try source.history(of: id, at: invocation.global.at, until: invocation.instant(Options.historyUntil))
            } catch let spent as RemoteError where spent.isBudgetSpent && users.count > 1 {
                // The customers reached are shown; those the remote budget left no room for say so.
                unanswered.append((id, spent))
                histories.append(.missing(Missing.unanswered(id, spent)))
                continue
            }
            guard let answer = asked else {
                let failure = FindHint.notFound(id, source: source, nearby: nearby)
                status = status.combined(with: Commands.report(failure, context))
                histories.append(.missing(Missing.customer(id, failure)))
                continue
            }
            Commands.say(answer.notes, context)
            Commands.warn(answer.warnings, context)
            let incomplete = Commands.incompleteReason(complete: answer.complete, answer.incompleteReason)
            if let incomplete { Commands.say(["incomplete history: \(incomplete)"], context) }
            // A typo in --entitlement is an error with a did-you-mean, not an empty history.
            if let entitlement, let known = answer.knownEntitlements {
                try Commands.checkEntitlementExists(entitlement, known: known)
            }
            var entries = History.selected(answer.entries, since: since, entitlement: entitlement)
            var ends = answer.accessEnds
            if let since { ends = ends.filter { $0.date >= since } }
            if let entitlement { ends = ends.filter { $0.entitlement == entitlement } }
            if let limit, entries.count > limit {
                entries = Array(entries.suffix(limit))
                // Milestones inside the kept stretch of time only.
                let from = entries.first?.date
                ends = ends.filter { end in from.map { end.date >= $0 } ?? false }
            }
            histories.append(.found(CustomerHistory(
                customerId: answer.customerId, requestedId: id, requestDate: answer.requestDate,
                provider: answer.provider, incompleteReason: incomplete, entries: entries,
                accessEnds: ends, timeline: Timeline(answer.entries, catalog: answer.catalog))))
        }
        status = status.combined(with: Commands.reportUnanswered(unanswered, of: users.count, context))
        guard !invocation.global.quiet else { return status }
        let result = HistoryResult(histories: histories, asArray: users.count > 1 || invocation.positionals.contains("-"),
                                   judgedAt: Commands.judgedAt(invocation, context))
        // Written entry by entry: a history of a whole listing is never held as one document.
        Commands.write(result, invocation, context)
        return status
    }
}
