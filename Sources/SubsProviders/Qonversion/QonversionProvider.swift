// Provider `qonversion`: the API version is the base URL's last segment; the default stays v3
// (project keys read it), v4 needs the secret key.

extension ProviderDescriptor {
    public static let qonversion = ProviderDescriptor(name: "qonversion", defaultBaseURL: QonversionSource.defaultBaseURL, manual: """
        With {flag:--provider} qonversion, subs reads Qonversion's REST API v3 at https://api.qonversion.io/v3 \
        ({flag:--remote} only for another base URL). \
        A USER starting with QON_ is a Qonversion user id; any other USER is an identity, resolved first, \
        and its QON_ id is shown as its alias. \
        The project key reads; grant and revoke need the secret key (sk_…), and a project key used for \
        them is exit status {exit:permission}. \
        Entitlements map field by field; requestDate is the Date of Qonversion's answer. \
        v3 has no transactions and no renewal counts, so history and renew-count are refused (API v4 has them), \
        renewsCount is null and transactions is empty; with {flag:--at} the current record is projected to T, \
        active when started is at or before T and expires after it, and a note says so. \
        A grant needs an expiry ({flag:--lifetime} is exit status {exit:not-offered}), keeps no reason, and names one USER; \
        {flag:--dry-run} is exit status {exit:not-offered}. \
        A {flag:--remote} whose last segment is v4 (https://api.qonversion.io/v4) speaks Qonversion's API v4, \
        which needs the secret key (any other key is exit status {exit:permission}): history lists the user's purchases \
        (every page, up to 50; past that complete is false), renew-count counts the paid purchases after \
        the first of each chain, and a grant may be {flag:--lifetime}. v4 shows no refunds or trials on a purchase.
        """, apis: [
            ProviderAPI(title: "Qonversion API v3", baseURL: QonversionSource.defaultBaseURL,
                        selectedWith: "{flag:--provider qonversion}"),
            ProviderAPI(title: "Qonversion API v4", baseURL: "https://api.qonversion.io/v4",
                        selectedWith: "{flag:--provider qonversion} {flag:--remote https://api.qonversion.io/v4}"),
        ]) { setup in
        if QonversionV4Source.isV4(setup.client.endpoint.url) {
            return QonversionV4Source(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
        }
        return QonversionSource(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
    }
}
