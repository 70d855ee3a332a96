// Provider `revenuecat`: API v1 at its default base URL, API v2 when the base URL names a project
// (`…/v2/projects/PROJECT_ID`): a v2 key answers v2 requests only.

extension ProviderDescriptor {
    public static let revenueCat = ProviderDescriptor(name: "revenuecat", defaultBaseURL: RevenueCatSource.defaultBaseURL) { setup in
        if RevenueCatV2Source.isVersion2(setup.client.endpoint.url.base) {
            return RevenueCatV2Source(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
        }
        return RevenueCatSource(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
    }
}
