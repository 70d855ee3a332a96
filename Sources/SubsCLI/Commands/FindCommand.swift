// `subs find TERM...`: the customers an email, a store's order or transaction id, an id or
// alias, or (--attribute) an attribute's value names, with how each matched and what it has.

import SubsJSON
import SubsModel
import SubsSource

enum FindCommand {
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
                failure = CommandFailure(Commands.exitCode(for: unread),
                    "the customers \(term) may match were not read: \(unread.budgetReason); it is not known to match nothing")
            } else if result.matches.isEmpty {
                failure = CommandFailure(.notFound, "no customer matches \(term)")
            } else {
                continue
            }
            status = status.combined(with: Commands.report(failure, context))
        }
        guard !invocation.global.quiet else { return status }
        let result = FindOutput(results: answer.results,
                                asArray: terms.count > 1 || invocation.positionals.contains("-"))
        context.writeOut(try Output.render(result, style: Commands.style(invocation, context)))
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

/// What `find` found, in every format: JSON one document per term (an array with several terms
/// or `-`), JSONL one per line, TSV one row per match and one row per term without a match (its
/// `error` column says so, as check's does for a customer not found), the table one row per match.
struct FindOutput: CommandResult {
    var results: [FindResult]
    var asArray: Bool

    var json: JSONOutput {
        let documents = results.map(\.document)
        return asArray ? .array(documents) : documents.first.map { .document($0) } ?? .array([])
    }

    var tsv: TextTable {
        TextTable(headers: ["term", "customerId", "matchedBy", "email", "activeEntitlements", "error"],
                  rows: results.flatMap { result -> [[Cell]] in
                      guard !result.matches.isEmpty else {
                          // Not read is not "not found": the code check gives a customer left unanswered.
                          let code = result.unread.map { Missing.unanswered(ID(result.term), $0).code } ?? "customer_not_found"
                          return [[result.term, "", "", "", "", code].map { Cell($0) }]
                      }
                      return result.matches.map { m in
                          [result.term, m.customerId.string, m.matchedBy.rawValue, m.email ?? "",
                           m.activeEntitlements.strings.joined(separator: ","), ""].map { Cell($0) }
                      }
                  })
    }

    /// CUSTOMER, EMAIL, MATCHED BY, ACTIVE; with several terms a TERM column first. Terms that
    /// matched nothing have no row (stderr says so).
    func table(_ style: OutputStyle) -> String {
        let several = results.count > 1
        let rows = results.flatMap { result in
            result.matches.map { m -> [Cell] in
                let active = m.activeEntitlements.isEmpty ? Cell("-", .dim) : Cell(m.activeEntitlements.strings.joined(separator: ","), .green)
                return (several ? [Cell(result.term)] : [])
                    + [Cell(m.customerId), Cell(m.email ?? "-"), Cell(m.matchedBy.rawValue), active]
            }
        }
        guard !rows.isEmpty else { return "" }
        return TextTable(headers: (several ? ["term"] : []) + ["customer", "email", "matched by", "active"], rows: rows)
            .render(style)
    }
}
