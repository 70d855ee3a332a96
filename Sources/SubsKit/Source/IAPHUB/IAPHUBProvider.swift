// Provider `iaphub`: no address without an app id (--remote names the app), the server API key
// sent as `ApiKey`, and requests paced to IAPHUB's limit.

extension ProviderDescriptor {
    public static let iaphub = ProviderDescriptor(
        name: "iaphub", remoteRequired: IAPHUBSource.remoteRequired, keyScheme: .apiKey,
        pace: { IAPHUBSource.pacedTransport($0) }
    ) { setup in
        IAPHUBSource(client: setup.client, cachePolicy: setup.cachePolicy, environment: setup.environment,
                     platform: setup.platform, clock: setup.clock)
    }
}
