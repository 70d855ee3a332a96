// The exit statuses `subs help COMMAND` lists: what each status means for that command, then
// the statuses every command shares. The full table (SPEC section 1) is in `subs help` and
// man subs; these are its words for one command, so a script writer reads them where they look.

enum ExitStatusHelp {
    /// Statuses every command that reads customers may end with, after its own.
    static let shared: [(String, String)] = [
        ("64", "Usage error; or something this provider or API version does not offer (the message names "
            + "what does). Retrying cannot help"),
        ("65-78", "The store or the remote failed: 65 invalid store, 66 no store, 69 remote unreachable "
            + "(retry later), 75 busy or rate limited, 76 remote protocol error, 77 permission denied, "
            + "78 configuration; see 'subs help'"),
    ]

    /// The command's own statuses.
    static func own(_ command: CommandName) -> [(String, String)] {
        switch command {
        case .check:
            return [("0", "Every customer found (with --require: each one has every required entitlement)"),
                    ("1", "--require: a customer lacks an active ENTITLEMENT; each one is named on standard error with why"),
                    ("3", "A customer not found (the others are still printed), or a --require entitlement no product unlocks")]
        case .grant:
            return [("0", "Written (with --dry-run: printed, nothing written)"),
                    ("3", "A customer not found (without --create), or an entitlement no product unlocks; nothing written"),
                    ("73", "The store cannot be written; it is left unchanged")]
        case .revoke:
            return [("0", "Every customer's manual grants of ENTITLEMENT revoked"),
                    ("3", "A customer not found, or no active manual grant to revoke; nothing written"),
                    ("73", "The store cannot be written; it is left unchanged")]
        case .history:
            return [("0", "The history printed, even when empty"),
                    ("3", "A customer not found, or an --entitlement no product unlocks")]
        case .renewCount:
            return [("0", "The counts printed"),
                    ("3", "A customer not found, an ENTITLEMENT no product unlocks, or one the customer never had")]
        case .storeInit:
            return [("0", "The store was created"),
                    ("73", "A store already exists there, or the file cannot be written")]
        case .storeValidate:
            return [("0", "The store is valid"),
                    ("65", "Not valid: one line per problem, with its path"),
                    ("66", "No store at the path, or it cannot be read")]
        case .serve:
            return [("0", "Stopped by SIGINT or SIGTERM after the requests in flight"),
                    ("64", "A non-loopback --listen without a token, or a bad option"),
                    ("69", "The address cannot be listened on")]
        default:
            // completion, help, and a command added without its own list.
            return [("0", "Success"), ("64", "Usage error")]
        }
    }

    /// The command's statuses and the shared ones it does not already explain.
    static func lines(for command: CommandName) -> [(String, String)] {
        let own = own(command)
        if command == .completion || command == .help { return own }
        return own + shared.filter { code, _ in !own.contains { $0.0 == code } }
    }
}
