// `subs check USER...`: the entitlement status of one or more customers.

import SubsKit

enum CheckCommand {
    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let required = invocation.texts(CommandLineSpec.Options.require)
        let users = try Commands.users(invocation.positionals, context, requiringIds: !required.isEmpty, command: .check)
        let source = try Commands.source(invocation, context)
        try refuseGatingOnAProjection(required, source: source, invocation)
        let answer = try source.statuses(of: users, at: invocation.global.at)
        Commands.say(answer.notes, context)
        Commands.warn(answer.warnings, context)
        if let known = answer.knownEntitlements { try checkRequiredEntitlementsExist(required, known: known) }

        var status = ExitCode.success
        var found: [CustomerStatus] = []
        for (id, customer) in zip(users, answer.statuses) {
            guard let customer else {
                status = status.combined(with: Commands.report(FindHint.notFound(id, source: source), context))
                continue
            }
            found.append(customer)
        }
        for customer in found {
            for entitlement in required where !customer.entitlements.contains(where: { $0.id == entitlement && $0.isActive }) {
                status = status.combined(with: .requirementMissing)
            }
        }
        guard !invocation.global.quiet else { return status }
        let asArray = users.count > 1 || invocation.positionals.contains("-")
        let result = CheckResult(statuses: found, activeOnly: invocation.flag(CommandLineSpec.Options.active), asArray: asArray)
        context.writeOut(try Output.render(result, style: Commands.style(invocation, context)))
        return status
    }

    /// A platform answers for now only: with `--at` subs projects today's record, which says
    /// nothing reliable about T (a renewal, a refund, a purchase since then), so a gate must not
    /// pass or fail on it unless asked to. Said before anything is sent.
    private static func refuseGatingOnAProjection(_ required: [String], source: CustomerSource, _ invocation: Invocation) throws {
        guard !required.isEmpty, let at = invocation.global.at, !invocation.flag(CommandLineSpec.Options.allowProjection),
              !source.capabilities.contains(.evaluationAtAnyInstant) else { return }
        throw CommandFailure(.usage, "--require will not gate on a projection: provider \(invocation.global.provider) answers "
                             + "for now only, so the status at \(ISODate.format(at)) would be its current record projected "
                             + "to that date (add --allow-projection to gate on it anyway)")
    }

    /// A typo in `--require` must not look like a customer without access: no product unlocks it.
    private static func checkRequiredEntitlementsExist(_ required: [String], known: Set<String>) throws {
        for entitlement in required where !known.contains(entitlement) {
            var message = "no product unlocks entitlement \(Terminal.quoted(entitlement, escaping: false))"
            if let near = EditDistance.closest(to: entitlement, among: known.sorted()) {
                message += " (did you mean \(Terminal.quoted(near, escaping: false))?)"
            }
            throw CommandFailure(.notFound, message)
        }
    }
}

/// The statuses `check` found, in every format.
struct CheckResult: CommandResult {
    var statuses: [CustomerStatus]
    var activeOnly: Bool
    /// Several USERs or `-`: JSON is an array even for one customer.
    var asArray: Bool

    var json: JSONOutput {
        let documents = statuses.concurrentMap { Documents.check($0, activeOnly: activeOnly) }
        return asArray ? .array(documents) : documents.first.map { .document($0) } ?? .array([])
    }

    private func shown(_ status: CustomerStatus) -> [EntitlementInfo] {
        activeOnly ? status.entitlements.filter(\.isActive) : status.entitlements
    }

    var tsv: TextTable {
        TextTable(headers: ["customerId", "entitlement", "isActive", "state", "renewState", "expirationDate",
                            "productId", "source", "periodType", "grantType", "renewsCount"],
                  rows: statuses.flatMap { status in
                      shown(status).map { e in
                          [status.record.id, e.id, e.isActive ? "true" : "false", e.state.rawValue, e.renewState.rawValue,
                           e.expirationDate.map(ISODate.format) ?? "", e.productId ?? "", e.source.rawValue,
                           e.periodType.rawValue, e.grantType.rawValue, e.renewsCount.map(String.init) ?? ""].map { Cell($0) }
                      }
                  })
    }

    func table(_ style: OutputStyle) -> String {
        statuses.concurrentMap { table($0, style: style) }.joined(separator: "\n")
    }

    private func table(_ status: CustomerStatus, style: OutputStyle) -> String {
        var out = Terminal.escape(status.record.id)
        if style.color { out = "\u{1B}[1m\(out)\u{1B}[0m" }
        if !status.record.aliases.isEmpty {
            out += "  (aliases: \(status.record.aliases.map(Terminal.escape).joined(separator: ", ")))"
        }
        out += "\n"
        let entitlements = shown(status)
        if entitlements.isEmpty {
            return out + (activeOnly ? "no active entitlements\n" : "no entitlements\n")
        }
        let rows = entitlements.map { e -> [Cell] in
            [Cell(e.id), Cell(e.state.rawValue, Style.of(e.state)), Cell(e.isActive ? "yes" : "no"),
             Cell(e.renewState.rawValue), Cell(style.date(e.expirationDate)), Cell(e.productId ?? "-"),
             Cell(e.source.rawValue), Cell(e.periodType.rawValue)]
        }
        out += TextTable(headers: ["entitlement", "state", "active", "renewal", "expires", "product", "source", "period"],
                         rows: rows).render(style)
        let why = entitlements.compactMap { Explanation.sentence(for: $0) }
        if !why.isEmpty {
            out += "\n" + why.map { Terminal.escape($0) + "\n" }.joined()
        }
        return out
    }
}
