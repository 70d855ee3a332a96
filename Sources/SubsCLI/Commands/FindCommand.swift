// `subs find TERM...`: the customers an email, a store's order or transaction id, an id or
// alias, or (--attribute) an attribute's value names, with how each matched and what it has.

import SubsJSON
import SubsModel
import SubsSource

extension CommandName {
    static let find = CommandName("find")
}

extension CommandLineSpec.Options {
    static let attribute = OptionSpec("attribute", kind: .text, valueName: "KEY", repeatable: true,
                                      help: "Also match the value of attribute KEY (exact)")
}

enum FindCommand {
    static let spec = CommandSpec(
        .find, abstract: "Find customers by email, order or transaction id, id or alias",
        discussion: "Each TERM matches, in this order: a customer id or alias (exact); an email "
            + "attribute (any case); a transactionId, originalTransactionId or orderId (exact); with "
            + "--attribute KEY, that attribute's value (exact). Every customer found is listed once, with "
            + "how it matched and its active entitlements. A term that matches nothing is exit {exit:not-found}.",
        arguments: [ArgumentSpec("TERM", kind: .customer, arity: .oneOrMore,
                                 help: "An email, an order or transaction id (Apple MK3Q9Z7X1T, Google GPA.3312-...), "
                                     + "or a customer id or alias; '-' reads terms from standard input, one per line")],
        options: [CommandLineSpec.Options.attribute],
        examples: [
            Example("subs find alice@example.com", "Who wrote in from this address?"),
            Example("subs find MN9C3VJ6HW", "The customer behind an App Store order id"),
            Example("subs find --attribute familyId fam_3921 --json", "By an attribute of your own"),
        ],
        paged: true, run: { try run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let attributes = invocation.texts(CommandLineSpec.Options.attribute)
        // Whitespace pasted around a term (from a ticket, a spreadsheet cell) is not part of it.
        let typed = invocation.positionals.map { $0 == "-" ? $0 : trimmed($0) }
        // Terms typed on the command line are usage errors; terms on stdin are bad input (65).
        if let problem = FindQuery(terms: typed.filter { $0 != "-" }, attributes: attributes).problem {
            throw UsageError(problem, command: .find)
        }
        let terms = try Commands.terms(typed, context).map(trimmed)
        let query = FindQuery(terms: terms, attributes: attributes)
        if let problem = query.problem { throw CommandFailure(.dataError, "standard input: \(problem)") }

        let source = try Commands.source(invocation, context)
        let answer: FindAnswer
        do {
            try source.requireSearchable(query)
            answer = try source.find(query, at: invocation.global.at)
        } catch let refused as NotSearchable {
            throw CommandFailure(.usage, refused.reason)
        }
        Commands.say(answer.notes, context)
        Commands.warn(answer.warnings, context)
        var status = ExitCode.success
        for result in answer.results {
            let term = Terminal.quoted(result.term, escaping: false)
            let failure: CommandFailure
            if result.matches.isEmpty, let unread = result.unread {
                // Customers it found were not read (the remote budget ended first): the term is
                // then not known to match nothing, and is never "not found". (A term shown with
                // some of its matches is found; the source's note says what was not read.)
                failure = CommandFailure(ExitCode(for: unread),
                    "the customers \(term) may match were not read: \(unread.budgetReason); it is not known to match nothing")
            } else if result.matches.isEmpty {
                failure = CommandFailure(.notFound, "no customer matches \(term)")
            } else {
                continue
            }
            status = status.combined(with: Commands.report(failure, context))
        }
        guard !invocation.global.quiet else { return status }
        let result = FindResults(results: answer.results,
                                asArray: terms.count > 1 || invocation.positionals.contains("-"))
        Commands.write(result, invocation, context)
        return status
    }

    /// `term` without the whitespace around it (spaces, tabs, no-break spaces…); inside, kept.
    static func trimmed(_ term: String) -> String {
        var scalars = Substring(term).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
