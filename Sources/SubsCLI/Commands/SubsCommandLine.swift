// subs's command line (SPEC section 1): the program's words and its commands, one line each, in
// the order help, the completions and the man page list them. Each command's spec — its help,
// options, exit statuses, examples and the code that runs it — is in the command's own file.

extension CommandLineSpec {
    public static let subs = CommandLineSpec(
        version: "0.1.0",
        abstract: "Inspect and manage customers' subscription status (entitlements)",
        discussion: """
            subs reads a local JSON store (or a remote REST endpoint) and tells which entitlements \
            a customer holds, why, and until when. Exit statuses make it usable in scripts; \
            --format json pipes into jq.
            """,
        topUsage: "subs [options] COMMAND [ARGS]",
        globalOptions: GlobalOptionTable.entries.map(\.spec),
        commands: [
            CheckCommand.spec,
            GrantCommand.grant,
            GrantCommand.revoke,
            HistoryCommand.spec,
            RenewCountCommand.spec,
            FindCommand.spec,
            AuditCommand.spec,
            StoreInitCommand.spec,
            StoreValidateCommand.spec,
            StoreCompactCommand.spec,
            ServeCommand.spec,
            CommandsCommand.spec,
            CompletionCommand.spec,
            HelpCommand.spec,
            CompleteCommand.spec,
        ],
        groups: [
            CommandGroup(name: "store", abstract: "Create, validate or compact the store", commands: [.storeInit, .storeValidate, .storeCompact]),
        ])
}
