// The man page's prose: what CommandLineSpec cannot say (rules, documents, statuses, files).
// Plain text; ManPage escapes it and puts one sentence on each line, as mdoc wants.

import SubsModel
import SubsProviders

enum ManProse {
    static let date = "November 22, 2026"

    static let description = [
        """
        subs reads a local JSON store (or a remote REST endpoint with --remote) and reports which \
        entitlements a customer holds, in which state, why, and until when. \
        Support staff use it to look a customer up, scripts use its exit status, and its JSON output \
        pipes into jq.
        """,
        """
        Global options may appear before or after the command name. \
        Options take their value as --name value or --name=value; a value that starts with a dash \
        must use the second form. \
        An option given twice keeps its last value, except the repeatable ones. \
        The argument -- ends option parsing, so that later arguments are taken as they are.
        """,
        """
        USER is a customer id or one of its aliases. \
        A USER of - reads customer ids from standard input, one per line; blank lines and lines \
        starting with # are skipped. \
        A - that reads no id is exit status {exit:usage} for grant, revoke and check --require, so that a \
        gate never passes on an empty list; otherwise it gives an empty result. \
        Arguments that are not valid UTF-8 are exit status {exit:usage}. \
        Ids on standard input are read a line at a time (LF or CRLF); a NUL or another control byte, \
        a line that is not UTF-8, a line longer than 4096 bytes or more than 100000 ids is exit status {exit:data} \
        at once, naming the line, so that an endless input never fills memory. \
        For grant and revoke the last argument is the entitlement and every argument before it is a customer.
        """,
        """
        find TERM matches, in this order, a customer id or alias, an email attribute, a transactionId, \
        originalTransactionId or orderId, and with --attribute KEY that attribute's value (a string, or a \
        number as written in the store). \
        Ids, transaction and order ids and attribute values match exactly; an email matches in any case: \
        both sides are lowercased with Unicode's default lowercase mapping, without further folding or \
        normalisation (a sharp s does not match ss). \
        A term is not empty, holds no control character and is at most 4096 bytes long, else exit status {exit:usage} \
        ({exit:data} for a term read from standard input). \
        The platforms search less: revenuecat (API v1), qonversion and iaphub look a customer up by id only, \
        so a term that looks like an email (an @ and a dot after it) or a store's order or transaction id \
        (GPA., an Apple order id such as MK3Q9Z7X1T, 12 to 20 digits, Stripe in_, sub_, si_, pi_ or ch_, \
        Amazon amzn1.), or --attribute, is exit status {exit:not-offered} with a sentence saying so, and nothing is sent. \
        When check, history or renew-count cannot find a USER that looks like one of these, the error \
        suggests subs find. \
        With a RevenueCat v2 base URL, find searches emails, app user ids, Apple, Google Play and Amazon \
        transaction ids and Apple order ids through its search parameter, not --attribute or Stripe ids \
        (exit status {exit:not-offered}); there matchedBy is customerId or email when the customer shows it, else \
        inferred from the term's shape (orderId, transactionId, or alias).
        """,
        """
        DATE is 2026-03-01T12:00:00Z, with fractional seconds or a +hh:mm offset if wanted, or \
        2026-03-01 (midnight UTC), or now. \
        DURATION is an ISO 8601 duration such as P1D, P2W, P1M, P3M, P1Y, PT12H or P1Y2M3DT4H. \
        Months and years are calendar arithmetic in UTC, clamped to the last day of the month, so \
        January 31 plus P1M is the last day of February. \
        A DURATION holds whole, unsigned numbers with uppercase designators; a near miss such as \
        PT0.5S or -P1D is refused with the reason. \
        Every date lies in the years 0001 to 9999: a DATE, or now plus a DURATION, outside them is \
        exit status {exit:usage} (SUBS_NOW outside them is {exit:config}), and a store date plus a product's grace or \
        billing retry period that leaves them is a data error, {exit:data}.
        """,
        """
        Settings come from, in order of precedence: options on the command line, environment \
        variables, the config file, and defaults. \
        An empty environment variable counts as unset. \
        The config file holds key = value lines whose keys are the long names of the options \
        \(ConfigFile.keys.dropLast().joined(separator: ", ")) and \(ConfigFile.keys.last ?? ""). \
        A # at the start of a line or after a blank starts a comment, a value may be put in quotes \
        (a # inside them is part of the value; an opened quote must close), a byte order mark at the \
        start of the file is skipped, and a path starting with ~/ is taken from the home directory. \
        An unknown key or a bad value, in the file or in an environment variable, is exit status {exit:config} \
        naming the file and line or the variable. \
        Lines end with LF or CRLF; a file larger than 64 KiB is exit status {exit:config}. \
        A default config file that exists but cannot be read gets a warning and is ignored; one named \
        with --config or SUBS_CONFIG must be readable. \
        Files that hold a secret or decide where one goes (the API key file, the token file of \
        serve and the config file) must be owned by the user running subs or by root and must not be \
        writable by group or others, and the key and token files not readable by them either (chmod \
        600): anything else, the default config file too, is refused with exit status {exit:permission} and one line \
        naming the file and the chmod or chown that fixes it. \
        The --help and --version options, help and completion work whatever the environment and the \
        config file hold.
        """,
        """
        An answer from the cache, whether asked for with --offline or --max-age or given because the \
        server cannot be reached, says so on standard error with its age, and is judged at the local \
        clock, not at the date it was fetched: its requestDate is now, and an entitlement whose end \
        has passed since is expired, so check --require fails on it. \
        A fresh answer keeps the server's requestDate. \
        {flag:--timeout} is the time budget of the whole command: every request of it, every retry and every \
        wait share it. What did not fit is said: history and renew-count answer with what was read, \
        complete false and the reason; in a batch each customer not reached is an element with error \
        code timeout, one line on standard error names them, and the exit status is {exit:unavailable}. \
        The remote answers a command holds are bounded to 256 MiB in all, checked while they arrive. \
        The cache is bounded by {flag:--cache-max} (SUBS_CACHE_MAX): the oldest entries go first, and a \
        listing that did not reach its end keeps none of its pages. \
        grant and revoke with --offline against a remote API are exit status {exit:not-offered} before any request: \
        a write needs the server. \
        A 404 whose body is not the API's own not-found answer (an HTML page, an empty body, another \
        API's JSON), and any 404 of RevenueCat's GET /subscribers/{id}, which creates unknown app \
        users, means the base URL is wrong: exit status {exit:config}, naming the URL asked and the form the \
        base URL should have. \
        The platforms answer for now only: with --at, subs projects the current record to T, marks \
        the check document projected, and never makes an entitlement active before its first purchase \
        or start date, nor at or after its expiration. \
        check --require refuses to gate on such a projection, exit status {exit:usage}, unless \
        --allow-projection is given. \
        One malformed entitlement, product or purchase in a platform's answer never hides the rest: it \
        is left out with a warning on standard error naming its JSON path, and the rest is answered; \
        an answer of which nothing can be read is exit status {exit:protocol}. \
        A value subs does not know (a state, a period type, a store) becomes unknown, never a guess.
        """,
    ]

    /// The PROVIDERS section: each registered provider's own paragraph (ProviderDescriptor.manual).
    static var providers: [String] {
        ProviderDescriptor.registered.map(\.manual)
    }

    static let providersIntro = """
        {flag:--provider} names the API subs speaks, and the base URL ({flag:--remote}, or the platform's \
        default) which of its versions. \
        What each API offers, and the sentence each says for what it does not (exit status \
        {exit:not-offered}, never {exit:unavailable}: retrying cannot help), follow the providers' paragraphs.
        """

    /// One sentence per state, keyed by the enum so that a new state cannot be left out.
    static func state(_ state: EntitlementState) -> String {
        switch state {
        case .active: return "The entitlement is active: a subscription before its expiration, a purchase, or a current grant."
        case .gracePeriod: return "A renewal payment failed and the product's grace period has not ended; still active."
        case .billingRetry: return "A renewal payment failed and the store is still retrying after the grace period; inactive."
        case .paused: return "The subscription is paused until its auto-resume date; inactive. Once that date has passed without a renewal the state is expired and autoResumeDate is null."
        case .expired: return "The subscription or grant ended; inactive."
        case .revoked: return "Refunded or revoked (for a subscription: the period in force was refunded, or its family-sharing access withdrawn); inactive."
        case .unknown: return "A remote provider answered a state or product type this version of subs does not know; inactive."
        }
    }

    static let stateIntro = """
        Status is evaluated at an instant T, the --at date or now. \
        Records dated after T do not exist yet. \
        Each entitlement is described by one source: a subscription chain, a non-consumable purchase \
        or a manual grant; when several exist, the active one that ends last describes it. \
        The state of an entitlement is one of:
        """

    static let fields: [(String, String)] = [
        ("id", "The entitlement id."),
        ("isActive", "Whether the customer has access at T."),
        ("state", "One of the states above."),
        ("renewState", "willRenew, canceled (auto-renew turned off), billingIssue, nonRenewable (purchases and grants) or unknown."),
        ("willRenew", "Whether the entitlement continues past the current period: renewState is willRenew, no pause is scheduled, and a pending product change still unlocks it."),
        ("periodType", "normal, trial, intro, promotional (grants), prepaid (a Google Play prepaid plan, which never renews by itself), or unknown for a provider's value subs does not know."),
        ("source", "appstore, playstore, stripe, amazon, manual (grants) or unknown."),
        ("grantType", "purchase, familySharing, offerCode or manual."),
        ("productId", "The product that describes the entitlement; null for grants."),
        ("startedDate", "The earliest non-revoked purchase of the chain, the purchase date, or the grant date."),
        ("trialStartDate", "When the chain's trial started, or null."),
        ("firstPurchaseDate", "The first paid transaction, or null (during a free trial)."),
        ("lastPurchaseDate", "The latest transaction, trials included, or the grant date."),
        ("expirationDate", "When access ends without renewal: the grace end while a billing issue is open on a product with a grace period, else the end of the period; null for purchases and lifetime grants. For every active entitlement requestDate is before it."),
        ("accessEndDate", "When access ended or ends, the date the check table's UNTIL shows: the refund or revocation date of a revoked source (unless its period had already ended), else expirationDate (for a pause, the end of the period it began at); null when access never ends. A script that compares it with now (jq: select(.accessEndDate > (now | todate))) never counts a refunded, revoked or paused customer as covered."),
        ("gracePeriodExpirationDate", "End of the grace period while a billing issue is open, or null."),
        ("billingIssueDetectedAt", "When the open billing issue was detected, or null."),
        ("billingRetryEndDate", "While a billing issue is open, until when the store retries the payment (the end of the paid period plus the billing retry period), or null."),
        ("autoRenewDisableDate", "When auto-renew was turned off, or null."),
        ("autoResumeDate", "When a scheduled pause ends, or null."),
        ("pauseEndedDate", "For a subscription whose pause ended without a renewal (expired), when that pause ended; else null."),
        ("renewalProductId", "The product the subscription changes to at its next renewal, or null."),
        ("renewsCount", "Paid renewals of the chain: paid transactions minus one, at least 0; null where the provider has none."),
        ("isSandbox", "Whether the describing transaction is a sandbox one."),
        ("lastActivatedOfferCode", "The latest offer code used, or null."),
        ("grantId", "The id of the describing grant, or null."),
        ("grantedBy", "Who made the describing grant, and grantReason why, or null."),
        ("refundedAt", "When the period in force (or the purchase) was refunded, or null; a family-sharing withdrawal and a revoked grant are not refunds."),
        ("revokedAt", "When the describing source was revoked (refunded, family-sharing access withdrawn, grant revoked), or null."),
        ("revokedBy", "Who revoked the describing grant, and revokeReason why, or null."),
        ("transactions", "The chain's transactions up to T, oldest first, revoked ones included; [] for grants."),
        ("otherActiveSources", "The active sources other than the one that describes the entitlement (a lifetime purchase beside a renewing subscription, two stores), each with productId, source, expirationDate and renewState; [] when none."),
    ]

    static let output = [
        """
        Every result is one value, rendered as a table (the default), tsv, csv (RFC 4180, \
        values unescaped when piped), json or jsonl; table and JSON never disagree. \
        Tables show dates as 2026-03-01 12:00Z, with a relative hint and colour only on a terminal, \
        and escape every control character coming from the data as \\x1b, bidirectional and invisible \
        format characters (such as U+202E) as \\u202e, and a backslash as \\\\, in tables, tsv, csv on a terminal and \
        messages alike. \
        A value quoted in an error message is cut to 80 characters. \
        Relative hints count from the instant judged (--at, else now), and a table judged at --at opens \
        with "as of DATE (--at)". Every date option accepts every form subs prints: \
        2026-03-01T12:00:00Z, 2026-03-01T12:00Z, 2026-03-01 12:00Z, 2026-03-01 and now.
        """,
        """
        The check table has the columns ENTITLEMENT; STATUS, the state in words (grace period, billing \
        retry, paused, expired, refunded, access withdrawn, revoked) and for an entitlement that gives \
        access what happens at the end of the period (active, renews; active, won't renew; active, \
        billing issue; active, pauses; active, lifetime); UNTIL, accessEndDate (when access \
        ends or ended: the end of the period, the grace end during a billing issue, the refund or revocation \
        date, for a pause the end of the period it began at; - for lifetime); PRODUCT, with its store, or manual grant; NOTES, when there is \
        something (free trial, intro offer, family sharing, offer code, sandbox, more sources); and with \
        --wide TRANSACTION, ORIGINAL and GRANT. Under it, one sentence per entitlement that is not simply \
        active and renewing says why, with dates, and names every other active source \
        (also billed by pro_yearly (App Store), renews 2027-01-10). Last, one line says what the \
        customer paid (the document's totalSpent: per currency an exact decimal amount, refunds \
        subtracted, the payments and the refunded ones counted, complete false with the reason where \
        the provider can say only part, null where it cannot): spent USD 59.94 in 6 payments, 1 refunded. \
        Transactions and history entries carry price (a decimal string, never a float) and currency.
        """,
        """
        The history table is a timeline: DATE, ENTITLEMENT and WHAT HAPPENED, one plain sentence per \
        entry in the words of check, with Access ended where access to an entitlement stopped and no \
        other source carried it on (derived from the records; never an entry of json, jsonl or tsv). \
        --wide adds PRODUCT, TRANSACTION, ORIGINAL and GRANT.
        """,
        """
        On a terminal a table fits COLUMNS and nothing is cut: free text wraps at word boundaries first; \
        then columns are left out in this order (check: NOTES, then the relative hints move under the \
        dates, then PRODUCT; history: the hints move under the dates); with --wide every column it names \
        is shown (and PRODUCT), the relative hints being dropped before any of them; below 60 columns, or \
        when nothing else fits, each row is a block of label: value lines. Sentences wrap at word \
        boundaries to COLUMNS, and so do error lines when standard error is a terminal. Piped output is \
        never cut or wrapped.
        """,
        """
        On a terminal whose height is known (LINES, else the terminal's), output taller than the screen \
        goes through a pager, run as /bin/sh -c COMMAND: --pager (SUBS_PAGER, the config file's pager), \
        else PAGER, else less -FRX, with LESS=FRX and LV=-c when unset; cat or an empty value turns it \
        off, as does --no-pager. Never when standard output is not a terminal, never with -q, never for \
        serve, completion or store init. Quitting the pager early is silent and the exit status is the \
        command's; a pager the shell cannot run (not found, not executable) is said on standard error \
        and the output is printed without it.
        """,
        """
        JSON dates are UTC with whole seconds, or null. \
        Every key listed here is always present, null when empty, so jq filters never meet a missing key. \
        One USER gives one document, or nothing on standard output when it is not found (the error is on \
        standard error). Several USERs, or -, give a json array with one element per USER asked, in order; \
        a USER not found is {"requestedId": ID, "customerId": null, "error": {"code": "customer_not_found", \
        "message": ...}} (renew-count - ENTITLEMENT: code entitlement_not_found, with the customerId). jsonl \
        prints the same elements one per line (history: one entry per line, each opening with customerId and \
        requestedId; find: one document per term). tsv has a header line, then at least one row per USER asked: \
        customerId, requestedId, the command's columns, and error (the code of a USER not found, else empty); \
        history tsv has one column per entry key.
        """,
    ]

    static let documents: [(String, String)] = [
        ("check", "customerId, requestedId (the id or alias as given), requestDate, projected (true when a platform's current record was projected to --at; false otherwise, and always for the store and subs serve), aliases, firstSeen, attributes, activeEntitlements, entitlements. "
            + "entitlements maps each entitlement id to an object with the fields above; each element of its "
            + "transactions holds transactionId, originalTransactionId, productId, type, transactionDate, "
            + "expirationDate, source, environment, ownershipType, offerCode, orderId and transactionRevocationDate."),
        ("history", "customerId, requestedId, requestDate, provider (store, "
            + ProviderDescriptor.registered.dropLast().map(\.name).joined(separator: ", ")
            + " or \(ProviderDescriptor.registered.last?.name ?? ""): who answered), "
            + "complete (false when the provider cannot give the whole history), incompleteReason (why, in one sentence, "
            + "also said on stderr; null when complete), entries. Each entry has date, kind (transaction, refund, event or grant), "
            + "type and entitlements; transactions add transactionId, originalTransactionId, productId, "
            + "expirationDate, source, environment, ownershipType, offerCode, price (a decimal string as the platform "
            + "gives it) and currency (null where unknown); refunds add transactionId and "
            + "productId; events add originalTransactionId and their own fields; grants add grantId, "
            + "expirationDate, grantedBy and reason, or grantId, revokedBy and revokeReason when revoked. "
            + "jsonl prints one entry per line."),
        ("find", "term (as looked for: whitespace around it trimmed) and matches, one element per customer found: customerId, "
            + "matchedBy (customerId, alias, email, displayName (the $displayName or name attribute, any case), "
            + "transactionId, originalTransactionId, orderId or attribute: the first way the customer matched, in that order), "
            + "email (the email attribute, or null) and activeEntitlements (sorted). With several terms or -, json prints an "
            + "array of these documents, one per term in the order given, and jsonl one per line; a term that matched "
            + "nothing has matches [] and makes the exit status {exit:not-found}; in tsv it keeps a row, its error column customer_not_found."),
        ("renew-count", "customerId, requestedId, requestDate, complete, incompleteReason (as in history), entitlement "
            + "(null without ENTITLEMENT), renewsCount (a number or null: the entitlement's count, or without one the "
            + "customer's renewals across all subscription chains, each counted once) and byEntitlement (each "
            + "entitlement's count). The table format prints the bare number when ENTITLEMENT is given."),
        ("grant, revoke", "customerId, requestedId (the USER as given), requestDate, dryRun, grants (the grant records written: id, entitlement, "
            + "grantedAt, expirationDate, grantedBy, reason, revokedAt, revokedBy, revokeReason) and entitlement "
            + "(its status after the write)."),
    ]

    static let files: [(String, String)] = [
        ("$XDG_DATA_HOME/subs/store.json", "The default store (~/.local/share/subs/store.json). A new store is created with mode 0600."),
        ("STORE.lock", "Sidecar lock file next to the store (next to its target when the store path is a symbolic link), held by every write except --dry-run; created with mode 0600 and opened for writing, since whoever can open it can hold it and stop every write. "
            + "One owned by a user other than the one running subs, root or the store's owner is refused (exit status {exit:permission}), and so is a symbolic link; one of the running user's that others may open is narrowed to 0600 (0660 when its group may read and write it). "
            + "Writers of one group share a store through a lock file root makes for them: install -o root -g GROUP -m 660 /dev/null STORE.lock. A failed write removes a lock file it created itself."),
        ("$XDG_CONFIG_HOME/subs/config", "The default config file (~/.config/subs/config); it may be missing."),
        ("$XDG_CACHE_HOME/subs/", "Cached remote answers: a directory with mode 0700 and files with mode 0600, never holding credentials, each bound to its request (provider, URL, customer, a digest of the key). A directory or file owned by another user or writable by others is not used (one warning)."),
    ]

    static let exitIntro = """
        With several customers the status is the most severe one seen: any error status over 3 over 1 over 0, \
        and among errors the first one met. \
        A missing customer does not stop the others from being printed. \
        Every error is one line on standard error that starts with subs: error: and says what failed.
        """

    static let examples: [(String, String)] = [
        ("subs check alice", "Support lookup: every entitlement of alice, its state, and a sentence on why."),
        ("subs history alice --entitlement premium", "Everything that happened to alice's premium, oldest first."),
        ("subs check alice --require premium -q", "CI gate: exit status {exit:success} only if alice has an active premium, {exit:requirement-missing} if not."),
        ("subs check alice --json | jq -r '.entitlements.premium.expirationDate'", "When alice's premium ends, for a script."),
        ("subs check - --format jsonl < ids.txt | jq -r 'select(.activeEntitlements | index(\"premium\")) | .customerId'",
         "The customers listed in ids.txt who have premium."),
        ("subs grant - early_access --duration P3M < ids.txt", "Batch grant: three months of early_access for every id in ids.txt, all or nothing."),
        ("subs revoke alice premium --reason 'granted by mistake'", "Take back alice's manual premium."),
        ("n=$(subs renew-count alice premium)", "How many times alice's premium renewed."),
        ("subs find alice@example.com", "Which customer wrote in from this address (any case), with what is active now."),
        ("subs find MN9C3VJ6HW --json", "The customer behind the order id of an App Store receipt."),
        ("subs --at 2026-01-01 check alice", "alice's status as it was on 1 January 2026."),
    ]
}
