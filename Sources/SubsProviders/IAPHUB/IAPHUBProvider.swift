// Provider `iaphub`: no address without an app id (--remote names the app), the server API key
// sent as `ApiKey`, requests paced to IAPHUB's limit, and its two settings: which platform's
// skus to ask for and which environment.

extension ProviderDescriptor {
    public static let iaphub = ProviderDescriptor(
        name: "iaphub", remoteRequired: IAPHUBSource.remoteRequired, keyScheme: .apiKey,
        pace: { IAPHUBSource.pacedTransport($0) },
        settings: [IAPHUBSource.platformSetting, IAPHUBSource.environmentSetting],
        manual: """
        With {flag:--provider} iaphub, {flag:--remote} is required and names the IAPHUB app, as in \
        https://api.iaphub.com/v1/app/APP_ID, and the key is IAPHUB's server API key, sent as \
        Authorization: ApiKey KEY. \
        check asks GET {remote}/user/USER?environment=production&platform=ios (SUBS_IAPHUB_ENVIRONMENT, \
        {flag:--iaphub-platform}); each active product becomes one entitlement keyed by its group name, else \
        its sku, else its group id or IAPHUB product id (a product without a sku on that platform), \
        and consumables are ignored. \
        requestDate is the server's Date header, and {flag:--at} projects the current answer to that date \
        with a note on standard error. \
        history and renew-count read IAPHUB's purchase listing, GET {remote}/purchases?userId=USER \
        (every page within the timeout, up to 20; past that complete is false): each purchase one \
        transaction typed by its place in its originalPurchase chain, a refund at its refundDate, and \
        renew-count counts the paid, unrefunded renewals of each chain. \
        IAPHUB offers no manual grants, so grant and revoke are exit status {exit:not-offered}. \
        A batch check paces itself to 5 requests a second, IAPHUB's limit.
        """,
        apis: [ProviderAPI(title: "IAPHUB", baseURL: "https://api.iaphub.com/v1/app/APP_ID",
                           selectedWith: "{flag:--provider iaphub} {flag:--remote https://api.iaphub.com/v1/app/APP_ID}")]
    ) { setup in
        IAPHUBSource(client: setup.client, cachePolicy: setup.cachePolicy,
                     environment: setup.value(of: IAPHUBSource.environmentSetting),
                     platform: setup.value(of: IAPHUBSource.platformSetting), clock: setup.clock)
    }
}

extension IAPHUBSource {
    /// `--iaphub-platform`: IAPHUB's `platform` query value.
    public static let platformSetting = ProviderSetting(
        option: "iaphub-platform", environment: "SUBS_IAPHUB_PLATFORM", choices: platforms, valueName: "PLATFORM",
        defaultValue: defaultPlatform,
        help: "IAPHUB: whose store sku each product carries (IAPHUB's platform parameter; it does not filter products)")
    /// `SUBS_IAPHUB_ENVIRONMENT`: IAPHUB's `environment` query value.
    public static let environmentSetting = ProviderSetting(
        environment: "SUBS_IAPHUB_ENVIRONMENT",
        help: "The IAPHUB environment --provider iaphub asks for; default production. Any other makes isSandbox true.")
}
