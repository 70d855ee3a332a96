// Hidden `subs __complete customers|entitlements [PREFIX]`: ids for the shell completion
// scripts. Quiet on failure: a completion must never print errors into the user's prompt.

import SubsModel

extension CommandName {
    static let complete = CommandName("__complete")
}

enum CompleteCommand {
    static let spec = CommandSpec(
        .complete, abstract: "List customer or entitlement ids for shell completion",
        arguments: [ArgumentSpec("KIND", kind: .choice(["customers", "entitlements"]), help: "What to list"),
                    ArgumentSpec("PREFIX", kind: .text, arity: .optional, help: "Only ids starting with PREFIX")],
        hidden: true, readsClock: false, silent: true, run: { run($0, $1) })

    static func run(_ invocation: Invocation, _ context: Context) -> ExitCode {
        let what = invocation.positionals.first ?? ""
        let prefix = invocation.positionals.count > 1 ? invocation.positionals[1] : ""
        let candidates: [ID]
        do {
            let source = try Commands.source(invocation, context)
            switch what {
            case "customers": candidates = try source.customerIds()
            case "entitlements": candidates = try source.entitlementIds()
            default: return .usage
            }
        } catch {
            return ExitCode(for: error)
        }
        // By bytes, as ids compare: the prefix typed is matched as written.
        let matching = candidates.filter { $0.hasPrefix(prefix) && !$0.string.contains(where: { $0.isNewline }) }
        context.writeOut(matching.map { $0.string + "\n" }.joined())
        return .success
    }
}
