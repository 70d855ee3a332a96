// What each exit status means (SPEC section 1): the one table that `subs help` (the summaries),
// the man page's EXIT STATUS section and docs/reference.md's table (the full sentences), the
// README's line, `subs commands --json` and the {exit:NAME} markup of all prose are made from.

extension ExitCode {
    struct Meaning: Sendable {
        var code: ExitCode
        /// The names {exit:NAME} markup and `commands --json` use; the first is the status's own.
        var names: [String]
        /// One line: `subs help`, the README.
        var summary: String
        /// The full sentences (with markup): the man page, docs/reference.md.
        var meaning: String
    }

    /// The status named `name` in prose markup (`not-offered` is 64).
    static func named(_ name: String) -> ExitCode? {
        meanings.first { $0.names.contains(name) }?.code
    }

    /// Every status subs ends with, in order.
    static let meanings: [Meaning] = {
        [
            Meaning(code: .success, names: ["success"], summary: "Success",
                    meaning: "Success."),
            Meaning(code: .requirementMissing, names: ["requirement-missing"],
                    summary: "check {flag:--require}: a customer lacks a required entitlement",
                    meaning: "check {flag:--require}: at least one customer lacks a required entitlement."),
            Meaning(code: .notFound, names: ["not-found"],
                    summary: "Not found: a customer, an entitlement, a manual grant to revoke, a find term",
                    meaning: "Not found: a customer, an entitlement (check {flag:--require}, renew-count, grant), "
                        + "or for revoke an active manual grant; a find term that matches nothing."),
            Meaning(code: .usage, names: ["usage", "not-offered"],
                    summary: "Usage error, or an operation the provider or API version does not offer "
                        + "(the message names what does): retrying cannot help",
                    meaning: "Usage error: an unknown option or command (with a did-you-mean), a bad value, a missing "
                        + "argument; a request subs serve refuses as invalid; check {flag:--require} on a platform's record "
                        + "projected to {flag:--at} without {flag:--allow-projection}. "
                        + "Also an operation the chosen provider or API version does not offer, with a sentence naming "
                        + "what does: " + RefusedOperations.summary + "; and a grant or revoke with {flag:--offline}. "
                        + "A find term that is empty, holds a control character or is over 4096 bytes, or that the "
                        + "provider cannot search, is a usage error too. "
                        + "Retrying cannot help, so none of these is {exit:unavailable}."),
            Meaning(code: .dataError, names: ["data"], summary: "Invalid store or input",
                    meaning: "Data error: the store is not valid JSON or not a valid store (the message names the line "
                        + "and column, or the JSON path); bad input on standard input; a request the remote provider "
                        + "refused (an HTTP 4xx other than 401, 403, 404 and 429, such as Qonversion's 422), with its message."),
            Meaning(code: .noInput, names: ["no-input"], summary: "No store, or it cannot be read",
                    meaning: "The store file does not exist or cannot be read, or another program truncated or rewrote "
                        + "it while subs read it."),
            Meaning(code: .unavailable, names: ["unavailable"], summary: "Remote unreachable: worth retrying later",
                    meaning: "Remote unavailable: cannot connect, server errors after retries, no answer within the "
                        + "command's {flag:--timeout} (with several customers: some were not reached), {flag:--offline} without "
                        + "a cached answer, or libcurl (which remote access loads when it starts) not installed. "
                        + "Worth retrying later, and it means nothing else."),
            Meaning(code: .internalError, names: ["internal"], summary: "Internal error",
                    meaning: "Internal error: a bug in subs; the message says what failed."),
            Meaning(code: .cannotWrite, names: ["cannot-write"], summary: "Cannot write the store (left unchanged)",
                    meaning: "Cannot write the store (read-only, disk full); the store is left unchanged. "
                        + "Also store init over an existing store."),
            Meaning(code: .cannotWriteOutput, names: ["cannot-write-output"], summary: "Cannot write the output",
                    meaning: "Cannot write the output: standard output is full or closed, with one line on standard "
                        + "error. A grant or revoke was already written to the store."),
            Meaning(code: .temporaryFailure, names: ["temporary"], summary: "Store lock busy, or rate limited after retries",
                    meaning: "Temporary failure: the store's write lock stayed busy past SUBS_LOCK_TIMEOUT, or the "
                        + "remote still rate limited (HTTP 429) after retries."),
            Meaning(code: .protocolError, names: ["protocol"], summary: "Remote protocol error",
                    meaning: "Remote protocol error: an answer that is not what the API defines, of which nothing of "
                        + "the customer can be read (one malformed item among others is a warning), or answers past "
                        + "the 256 MiB a command holds of them."),
            Meaning(code: .permissionDenied, names: ["permission"], summary: "Permission denied (HTTP 401/403, a file)",
                    meaning: "Permission denied: HTTP 401 or 403 (a key that may not do what was asked); a file this "
                        + "user may not read or write (the store, the API key file); an API key, token or config file "
                        + "that another user owns or that others may write (the key and token files: or read), or a "
                        + "lock file another user owns, refused with the chmod or chown that fixes it."),
            Meaning(code: .configError, names: ["config"], summary: "Configuration error",
                    meaning: "Configuration error: a bad config file or environment variable; an {flag:--api-key-file} "
                        + "that does not exist, is a directory or is not one line; a remote base URL that is not the "
                        + "API's (a 404 that is not its own not-found answer)."),
            Meaning(code: .interrupted, names: ["interrupted"], summary: "Interrupted",
                    meaning: "Interrupted by SIGINT (not once a write has been committed: the command then finishes)."),
            Meaning(code: .brokenPipe, names: ["broken-pipe"],
                    summary: "The reader of standard output went away (a closed pipe): nothing more is printed",
                    meaning: "Standard output is a pipe whose reader went away (subs check - < ids | head -1): "
                        + "silent, with the status a shell shows for a program killed by SIGPIPE, as cat or grep "
                        + "give under set -o pipefail."),
        ]
    }()
}
