// The one place that turns the options into a source: the local store today; each remote
// provider is one more case here and a source type in SubsKit — no command file changes.

import SubsKit

enum SourceFactory {
    static func make(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        if let override = context.sourceOverride { return try override() }
        if let remote = invocation.global.remote ?? defaultRemote(invocation.global.provider) {
            return try remoteSource(remote, invocation, context)
        }
        if invocation.global.provider == .iaphub { throw UsageError(IAPHUBSource.remoteRequired) }
        return RecordSource(records: LocalStore(path: Commands.storePath(invocation, context),
                                                lockTimeout: invocation.global.lockTimeout,
                                                writePause: invocation.global.writePause),
                            clock: context.clock)
    }

    /// Whether the answers come from a remote API (`--remote`, or a platform that needs none).
    static func isRemote(_ invocation: Invocation) -> Bool {
        invocation.global.remote != nil || defaultRemote(invocation.global.provider) != nil
            || invocation.global.provider == .iaphub
    }

    /// The base URL of a provider whose API has one address for everyone (no --remote needed).
    private static func defaultRemote(_ provider: Provider) -> String? {
        switch provider {
        case .revenuecat: return RevenueCatSource.defaultBaseURL
        case .qonversion: return QonversionSource.defaultBaseURL
        case .subs, .iaphub: return nil
        }
    }

    /// `--remote URL` with `--provider`: the client (key, timeout, cache) and the provider's source.
    private static func remoteSource(_ remote: String, _ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        let env = context.environment
        // --api-key-file already holds SUBS_API_KEY_FILE or the config file's key when not given.
        let loaded = try APIKey.load(flagFile: invocation.global.apiKeyFile, environmentFile: nil,
                                     environmentValue: invocation.global.apiKey)
        for warning in loaded.warnings { context.writeErr(Terminal.message("subs: warning: \(warning)") + "\n") }
        let provider = invocation.global.provider
        let iaphub = provider == .iaphub
        let endpoint = RemoteEndpoint(provider: provider.rawValue, url: try RemoteURL(remote), apiKey: loaded.key,
                                      scheme: iaphub ? .apiKey : .bearer)
        // A cache directory or entry another user owns or may write is not used: one warning.
        let cache = ResponseCache.defaultDirectory(xdgCacheHome: EnvironmentSpec.xdgCacheHome.value(in: env),
                                                   home: EnvironmentSpec.home.value(in: env)).map {
            ResponseCache(directory: $0, clock: context.clock,
                          onDistrust: { context.writeErr(Terminal.message("subs: warning: \($0)") + "\n") })
        }
        let client = RemoteClient(endpoint: endpoint, transport: iaphub ? IAPHUBSource.pacedTransport(context.http) : context.http, timeout: invocation.global.timeout,
                                  version: CLI.version, cache: cache, clock: context.clock)
        let now = context.clock.now()
        let policy: CachePolicy = invocation.global.offline ? .offline
            : invocation.global.maxAge.flatMap { now.adding($0).map { .maxAge(Double($0.seconds - now.seconds)) } } ?? .network
        // The platforms answer nothing without a key: say so before asking them.
        if provider != .subs, loaded.key == nil {
            throw CommandFailure(.configError, "provider \(provider.rawValue) needs an API key: --api-key-file, SUBS_API_KEY_FILE or SUBS_API_KEY")
        }
        switch provider {
        case .subs:
            return RecordSource(records: RemoteRecordStore(client: client, cachePolicy: policy), clock: context.clock)
        case .revenuecat:
            // The API version is the base URL's: a v2 key answers v2 requests only.
            if RevenueCatV2Source.isVersion2(endpoint.url.base) {
                return RevenueCatV2Source(client: client, cachePolicy: policy, clock: context.clock)
            }
            return RevenueCatSource(client: client, cachePolicy: policy, clock: context.clock)
        case .qonversion:
            // The API version is the base URL's last segment; the default stays v3 (project keys).
            if QonversionV4Source.isV4(endpoint.url) {
                return QonversionV4Source(client: client, cachePolicy: policy, clock: context.clock)
            }
            return QonversionSource(client: client, cachePolicy: policy, clock: context.clock)
        case .iaphub:
            return IAPHUBSource(client: client, cachePolicy: policy, environment: invocation.global.iaphubEnvironment,
                                platform: invocation.global.iaphubPlatform, clock: context.clock)
        }
    }
}
