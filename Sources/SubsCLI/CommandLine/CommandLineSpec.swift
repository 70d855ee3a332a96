// The one description of subs's command line (SPEC section 1). Parsing, help, the shell
// completions and the man page's command and option lists are all generated from it.

import SubsModel

public enum CommandLineSpec {
    public static let abstract = "Inspect and manage customers' subscription status (entitlements)"
    public static let discussion = """
        subs reads a local JSON store (or a remote REST endpoint) and tells which entitlements \
        a customer holds, why, and until when. Exit statuses make it usable in scripts; \
        --format json pipes into jq.
        """
    public static let topUsage = "subs [options] COMMAND [ARGS]"

    /// One entry each in GlobalOptionTable, with how the value is stored.
    public static let globalOptions: [OptionSpec] = GlobalOptionTable.entries.map(\.spec)

    static let user = ArgumentSpec("USER", kind: .customer, arity: .oneOrMore,
                                   help: "A customer id or alias; '-' reads ids from standard input, "
                                       + "one per line (blank lines and # comments skipped)")
    static let entitlement = ArgumentSpec("ENTITLEMENT", kind: .entitlement,
                                          help: "An entitlement id")

    /// The commands' own options, named so that commands read their values through these
    /// entries (`invocation.instant(Options.grantUntil)`), never through strings.
    public enum Options {
        static let require = OptionSpec("require", kind: .entitlement, valueName: "ENTITLEMENT", repeatable: true,
                                        help: "Exit {exit:requirement-missing} if any listed customer lacks an active ENTITLEMENT")
        static let active = OptionSpec("active", help: "Show only active entitlements")
        static let allowProjection = OptionSpec("allow-projection",
                                                help: "Let --require gate on a platform's record projected to --at")
        static let environment = OptionSpec("environment", kind: .choice(EnvironmentFilter.allCases.map(\.rawValue)),
                                            valueName: "ENV", defaultValue: "any",
                                            help: "Which purchases count: production, sandbox or any; grants always count")
        static let wide = OptionSpec("wide", help: "Tables add the id columns (transactions, grants, products)")
        static let duration = OptionSpec("duration", kind: .duration, valueName: "DURATION",
                                         help: "Grant for DURATION from now (P7D, P3M, P1Y)")
        static let grantUntil = OptionSpec("until", kind: .date, valueName: "DATE", help: "Grant until DATE")
        static let lifetime = OptionSpec("lifetime", help: "Grant without an end")
        static let reason = OptionSpec("reason", kind: .nonEmptyText, valueName: "TEXT",
                                       help: "Why, recorded with the change")
        static let actor = OptionSpec("actor", kind: .nonEmptyText, valueName: "NAME", environment: "SUBS_ACTOR",
                                      defaultValue: "$SUBS_ACTOR, then $USER", help: "Who made the change")
        static let create = OptionSpec("create", help: "Create customers that do not exist")
        static let dryRun = OptionSpec("dry-run", help: "Print the result, write nothing")
        static let entitlement = OptionSpec("entitlement", kind: .entitlement, valueName: "ID",
                                            help: "Only entries concerning entitlement ID")
        static let since = OptionSpec("since", kind: .date, valueName: "DATE", help: "Only entries from DATE on")
        static let historyUntil = OptionSpec("until", kind: .date, valueName: "DATE", defaultValue: "--at, else now",
                                             help: "Only entries up to DATE")
        static let limit = OptionSpec("limit", kind: .count, valueName: "N", help: "Keep the N most recent entries")
        static let demo = OptionSpec("demo", help: "Fill it with demo customers")
        static let listen = OptionSpec("listen", kind: .hostPort, valueName: "HOST:PORT",
                                       defaultValue: "127.0.0.1:8787", help: "Address to listen on")
        static let tokenFile = OptionSpec("token-file", kind: .file, valueName: "PATH",
                                          help: "File holding the bearer token clients must send")
        static let attribute = OptionSpec("attribute", kind: .text, valueName: "KEY", repeatable: true,
                                          help: "Also match the value of attribute KEY (exact)")
    }

    public static let commands: [CommandSpec] = [
        CommandSpec(.check, abstract: "Show the entitlement status of one or more customers",
                    discussion: "Shows every entitlement each customer holds a source for at the "
                        + "evaluation time, and why it is in its state. A customer without any "
                        + "entitlement is found (exit {exit:success}); an unknown customer is exit {exit:not-found}.",
                    arguments: [user],
                    options: [Options.require, Options.active, Options.allowProjection, Options.environment, Options.wide],
                    examples: [
                        Example("subs check alice", "Why has alice lost premium?"),
                        Example("subs check alice --require premium -q", "CI gate: exit {exit:success} only if alice has premium"),
                        Example("subs check alice bob --json | jq '.[].activeEntitlements'",
                                "Active entitlements of two customers"),
                    ]),
        CommandSpec(.grant, abstract: "Grant an entitlement manually (promotional)",
                    discussion: "Every argument before the last is a customer; the last is the "
                        + "entitlement. Several customers are written all or nothing.",
                    arguments: [user, entitlement],
                    options: [Options.duration, Options.grantUntil, Options.lifetime, Options.reason, Options.actor,
                              Options.create, Options.dryRun],
                    exactlyOneOf: [["duration", "until", "lifetime"]],
                    examples: [
                        Example("subs grant alice premium --duration P1M --reason goodwill",
                                "A month of premium for alice"),
                        Example("subs grant - early_access --duration P3M < ids.txt",
                                "Grant to every customer listed in ids.txt"),
                    ]),
        CommandSpec(.revoke, abstract: "Revoke the manual grants of an entitlement",
                    discussion: "Revokes the customer's active manual grants of ENTITLEMENT; "
                        + "purchases are not affected. Nothing to revoke is exit {exit:not-found}.",
                    arguments: [user, entitlement],
                    options: [Options.reason, Options.actor, Options.dryRun],
                    examples: [Example("subs revoke alice premium --reason 'granted by mistake'",
                                       "Take back alice's manual premium")]),
        CommandSpec(.history, abstract: "Show everything that happened to customers, in time order",
                    discussion: "With several USERs, one timeline per customer (JSON: an array with one element per USER "
                        + "asked, in order); an unknown customer is exit status {exit:not-found} and does not stop the others.",
                    arguments: [user],
                    options: [Options.entitlement, Options.since, Options.historyUntil, Options.limit, Options.wide],
                    examples: [Example("subs history erin", "Why erin lost access: the timeline, with when access ended"),
                               Example("subs history alice --since 2026-01-01 --format jsonl",
                                       "This year's events, one JSON object per line")]),
        CommandSpec(.renewCount, abstract: "Show how many times subscriptions renewed",
                    discussion: "With ENTITLEMENT, the table format prints the bare number.",
                    arguments: [ArgumentSpec("USER", kind: .customer,
                                             help: "A customer id or alias; '-' reads ids from standard input"),
                                ArgumentSpec("ENTITLEMENT", kind: .entitlement, arity: .optional,
                                             help: "Only this entitlement")],
                    examples: [Example("n=$(subs renew-count alice premium)", "Renewals of alice's premium"),
                               Example("subs renew-count - premium < ids.txt", "Renewals of premium for every id in ids.txt")]),
        CommandSpec(.find, abstract: "Find customers by email, order or transaction id, id or alias",
                    discussion: "Each TERM matches, in this order: a customer id or alias (exact); an email "
                        + "attribute (any case); a transactionId, originalTransactionId or orderId (exact); with "
                        + "--attribute KEY, that attribute's value (exact). Every customer found is listed once, with "
                        + "how it matched and its active entitlements. A term that matches nothing is exit {exit:not-found}.",
                    arguments: [ArgumentSpec("TERM", kind: .customer, arity: .oneOrMore,
                                             help: "An email, an order or transaction id (Apple MK3Q9Z7X1T, Google GPA.3312-...), "
                                                 + "or a customer id or alias; '-' reads terms from standard input, one per line")],
                    options: [Options.attribute],
                    examples: [
                        Example("subs find alice@example.com", "Who wrote in from this address?"),
                        Example("subs find MN9C3VJ6HW", "The customer behind an App Store order id"),
                        Example("subs find --attribute familyId fam_3921 --json", "By an attribute of your own"),
                    ]),
        CommandSpec(.storeInit, abstract: "Create a new store at the store path",
                    options: [Options.demo],
                    examples: [Example("subs --store demo.json store init --demo", "A store to try subs on")]),
        CommandSpec(.storeValidate, abstract: "Check the whole store and list every problem with its path",
                    examples: [Example("subs store validate", "Exit {exit:data} and one line per problem when invalid")]),
        CommandSpec(.serve, abstract: "Serve the local store over the subs REST API",
                    discussion: "Serves GET /v1/customers/ID, GET /v1/customers?search=TERM, POST /v1/customers/ID/grants, "
                        + "POST /v1/customers/ID/entitlements/E/revoke and GET /v1/health over HTTP/1.1. "
                        + "Binds 127.0.0.1 by default and refuses a non-loopback address without a token "
                        + "(--token-file, or the token itself in SUBS_SERVER_TOKEN). One log line per request "
                        + "on stderr; SIGINT or SIGTERM stop it after the requests in flight.",
                    options: [Options.listen, Options.tokenFile],
                    examples: [Example("subs serve --listen 127.0.0.1:8787 --token-file token.txt",
                                       "Serve the store to subs --remote clients")]),
        CommandSpec(.commands, abstract: "Describe the whole command line: with --json, as one JSON document",
                    discussion: "With {flag:--json} (or {flag:--format} json): every command with its arguments, "
                        + "options, exit statuses and examples; the global options; the environment variables; the "
                        + "config file keys; the exit statuses; and each provider's APIs with what they offer. "
                        + "It is made from the same description as help, the man page and the completions, for "
                        + "scripts and agents to discover subs; docs/reference.md describes its keys. "
                        + "The table lists the commands.",
                    examples: [Example("subs commands --json | jq -r '.commands[].name'", "Every command's name"),
                               Example("subs commands --json | jq '.providers[].apis[] | {title, notOffered}'",
                                       "What each provider's API refuses, and why")]),
        CommandSpec(.completion, abstract: "Print the shell completion script",
                    arguments: [ArgumentSpec("SHELL", kind: .choice(["bash", "zsh", "fish"]),
                                             help: "The shell")],
                    examples: [Example("source <(subs completion bash)", "Completion in the current bash")]),
        CommandSpec(.help, abstract: "Show help; same as COMMAND --help",
                    arguments: [ArgumentSpec("COMMAND", kind: .command, arity: .optional,
                                             help: "The command to describe")],
                    examples: [Example("subs help check", "check's options, exit statuses and examples")]),
        CommandSpec(.complete, abstract: "List customer or entitlement ids for shell completion",
                    arguments: [ArgumentSpec("KIND", kind: .choice(["customers", "entitlements"]),
                                             help: "What to list"),
                                ArgumentSpec("PREFIX", kind: .text, arity: .optional,
                                             help: "Only ids starting with PREFIX")],
                    hidden: true),
    ]

    public static let groups: [CommandGroup] = [
        CommandGroup(name: "store", abstract: "Create or validate the store",
                     commands: [.storeInit, .storeValidate]),
    ]

    public static func command(_ name: CommandName) -> CommandSpec {
        guard let spec = commands.first(where: { $0.name == name }) else {
            preconditionFailure("command \(name.rawValue) missing from CommandLineSpec.commands")
        }
        return spec
    }

    public static var visibleCommands: [CommandSpec] { commands.filter { !$0.hidden } }

    public static func globalOption(named long: String) -> OptionSpec? {
        globalOptions.first { $0.long == long }
    }

    /// Options valid after this command's name: its own, then the global ones.
    public static func options(for name: CommandName?) -> [OptionSpec] {
        (name.map { command($0).options } ?? []) + globalOptions
    }
}
