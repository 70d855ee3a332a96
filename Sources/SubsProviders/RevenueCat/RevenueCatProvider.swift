// Provider `revenuecat`: API v1 at its default base URL, API v2 when the base URL names a project
// (`…/v2/projects/PROJECT_ID`): a v2 key answers v2 requests only.

extension ProviderDescriptor {
    public static let revenueCat = ProviderDescriptor(name: "revenuecat", defaultBaseURL: RevenueCatSource.defaultBaseURL, manual: """
        With {flag:--provider} revenuecat, subs speaks RevenueCat's REST API v1, at \
        https://api.revenuecat.com/v1 unless {flag:--remote} names another base URL, with the API key as a \
        bearer token; grant and revoke need a secret key. \
        check maps each entitlement of the subscriber answer; a subscriber that RevenueCat created \
        empty on the lookup itself is a customer not found, exit status {exit:not-found}. \
        A Google Play prepaid plan (period_type prepaid) keeps periodType prepaid and never renews: \
        renewState nonRenewable, willRenew false. \
        The API has no renewal counts, so renew-count is exit status {exit:not-offered}, and no transaction list: \
        history shows the purchase, cancellation, billing issue and refund dates the answer holds, with a note. \
        {flag:--at} re-evaluates the current record at DATE instead of replaying history, and says so in a note. \
        grant and revoke change one customer at a time, have no {flag:--dry-run} (exit status {exit:not-offered}), \
        and are never retried. \
        A {flag:--remote} that names a project, https://api.revenuecat.com/v2/projects/PROJECT_ID, speaks \
        RevenueCat's API v2 with a v2 secret key: history and renew-count from its subscriptions, purchases \
        and store transactions, and find by email and store transaction or order id; it sends no grants.
        """, apis: [
            ProviderAPI(title: "RevenueCat API v1", baseURL: RevenueCatSource.defaultBaseURL,
                        selectedWith: "{flag:--provider revenuecat}"),
            ProviderAPI(title: "RevenueCat API v2", baseURL: "https://api.revenuecat.com/v2/projects/PROJECT_ID",
                        selectedWith: "{flag:--provider revenuecat} {flag:--remote https://api.revenuecat.com/v2/projects/PROJECT_ID}"),
        ]) { setup in
        if RevenueCatV2Source.isVersion2(setup.client.endpoint.url.base) {
            return RevenueCatV2Source(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
        }
        return RevenueCatSource(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
    }
}
