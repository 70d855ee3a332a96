// Provider `qonversion`: the API version is the base URL's last segment; the default stays v3
// (project keys read it), v4 needs the secret key.

extension ProviderDescriptor {
    public static let qonversion = ProviderDescriptor(name: "qonversion", defaultBaseURL: QonversionSource.defaultBaseURL) { setup in
        if QonversionV4Source.isV4(setup.client.endpoint.url) {
            return QonversionV4Source(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
        }
        return QonversionSource(client: setup.client, cachePolicy: setup.cachePolicy, clock: setup.clock)
    }
}
