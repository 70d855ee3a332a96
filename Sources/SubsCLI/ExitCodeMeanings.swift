// What each exit status means (SPEC section 1): the one table `subs help` (its one-line
// summaries) and the man page's EXIT STATUS section (the full sentences) are generated from.

extension ExitCode {
    struct Meaning: Sendable {
        var code: ExitCode
        /// One line for `subs help`; nil: left out of the overview (141 is never seen in a terminal).
        var summary: String?
        /// The man page's sentence.
        var meaning: String
    }

    /// Every status subs ends with, in order.
    static let meanings: [Meaning] = [
        Meaning(code: .success, summary: "Success",
                meaning: "Success."),
        Meaning(code: .requirementMissing, summary: "check --require: a customer lacks a required entitlement",
                meaning: "check --require: at least one customer lacks a required entitlement."),
        Meaning(code: .notFound, summary: "Not found: a customer, an entitlement, a manual grant to revoke",
                meaning: "Not found: a customer, an entitlement, or for revoke an active manual grant; a find term that matches nothing."),
        Meaning(code: .usage, summary: "Usage error, or an operation the provider or API version does not offer (the message names what does)",
                meaning: "Usage error: unknown option or command, bad value, missing argument; a request subs serve refuses as invalid; check --require on a platform's record projected to --at without --allow-projection; or an operation the chosen provider or API version does not offer (history or renew-count on Qonversion v3 or IAPHUB, renew-count on RevenueCat v1, a --dry-run or batch write on a platform, a write with --offline): the message names what does. a find term that is refused, or that the provider cannot search. Retrying cannot help."),
        Meaning(code: .dataError, summary: "Invalid store or input",
                meaning: "Data error: the store is not valid JSON or not a valid store; bad input on standard input; a request the remote provider refused (an HTTP 4xx other than 401, 403, 404 and 429, such as Qonversion's 422)."),
        Meaning(code: .noInput, summary: "No store, or it cannot be read",
                meaning: "The store file does not exist or cannot be read, or it was truncated or rewritten by another program while subs read it."),
        Meaning(code: .unavailable, summary: "Remote unreachable: worth retrying later",
                meaning: "Remote unavailable (cannot connect, server errors after retries, --offline without a cached answer; libcurl, which remote access loads when it starts, not installed): worth retrying later, and nothing else."),
        Meaning(code: .internalError, summary: "Internal error",
                meaning: "Internal error."),
        Meaning(code: .cannotWrite, summary: "Cannot write the store (left unchanged)",
                meaning: "Cannot write the store (read-only, disk full); the store is left unchanged."),
        Meaning(code: .cannotWriteOutput, summary: "Cannot write the output",
                meaning: "Cannot write the output: standard output is full or closed. A write to the store was already done."),
        Meaning(code: .temporaryFailure, summary: "Store lock busy, or rate limited after retries",
                meaning: "Temporary failure: the store lock stayed busy past the lock timeout, or rate limited after retries."),
        Meaning(code: .protocolError, summary: "Remote protocol error",
                meaning: "Remote protocol error: an answer that is not what the API defines, of which nothing of the customer can be read (one malformed item among others is a warning)."),
        Meaning(code: .permissionDenied, summary: "Permission denied (HTTP 401/403, a file)",
                meaning: "Permission denied: HTTP 401 or 403; a file this user may not read or write (the store, the API key file); an API key, token or config file that another user owns or that others may write (the key and token files: or read); a lock file another user owns."),
        Meaning(code: .configError, summary: "Configuration error",
                meaning: "Configuration error: a bad config file or environment variable; an --api-key-file that does not exist, is a directory or is not one line; a remote base URL that is not the API's (a 404 that is not its own not-found answer)."),
        Meaning(code: .interrupted, summary: "Interrupted",
                meaning: "Interrupted by SIGINT (not once a write has been committed: the command then finishes)."),
        Meaning(code: .brokenPipe, summary: nil,
                meaning: "Standard output is a pipe whose reader went away (subs check alice | head -1): nothing is printed, and the status is the one a shell shows for a program killed by SIGPIPE."),
    ]
}
