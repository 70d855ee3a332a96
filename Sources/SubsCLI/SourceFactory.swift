// The one place that turns the options into a source: the local store today; each remote
// provider is one more case here and a source type in SubsKit — no command file changes.

import SubsKit

enum SourceFactory {
    static func make(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        if let override = context.sourceOverride { return try override() }
        if let remote = invocation.global.remote ?? defaultRemote(invocation.global.provider) {
            return try remoteSource(remote, invocation, context)
        }
        if invocation.global.provider == "iaphub" { throw UsageError(IAPHUBSource.remoteRequired) }
        return RecordSource(records: LocalStore(path: Commands.storePath(invocation, context),
                                                lockTimeout: invocation.global.lockTimeout),
                            clock: context.clock)
    }

    /// Whether the answers come from a remote API (`--remote`, or a platform that needs none).
    static func isRemote(_ invocation: Invocation) -> Bool {
        invocation.global.remote != nil || defaultRemote(invocation.global.provider) != nil
            || invocation.global.provider == "iaphub"
    }

    /// The base URL of a provider whose API has one address for everyone (no --remote needed).
    private static func defaultRemote(_ provider: String) -> String? {
        switch provider {
        case "revenuecat": return RevenueCatSource.defaultBaseURL
        case "qonversion": return QonversionSource.defaultBaseURL
        default: return nil
        }
    }

    /// `--remote URL` with `--provider`: the client (key, timeout, cache) and the provider's source.
    private static func remoteSource(_ remote: String, _ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        let env = context.environment
        let loaded = try APIKey.load(flagFile: invocation.global.apiKeyFile, environmentFile: env["SUBS_API_KEY_FILE"],
                                     environmentValue: env["SUBS_API_KEY"])
        for warning in loaded.warnings { context.writeErr(Terminal.message("subs: warning: \(warning)") + "\n") }
        let iaphub = invocation.global.provider == "iaphub"
        let endpoint = RemoteEndpoint(provider: invocation.global.provider, url: try RemoteURL(remote), apiKey: loaded.key,
                                      scheme: iaphub ? .apiKey : .bearer)
        // A cache directory or entry another user owns or may write is not used: one warning.
        let cache = ResponseCache.defaultDirectory(environment: env).map {
            ResponseCache(directory: $0, clock: context.clock,
                          onDistrust: { context.writeErr(Terminal.message("subs: warning: \($0)") + "\n") })
        }
        let client = RemoteClient(endpoint: endpoint, transport: iaphub ? IAPHUBSource.pacedTransport(context.http) : context.http, timeout: invocation.global.timeout,
                                  version: CLI.version, cache: cache, clock: context.clock)
        let now = context.clock.now()
        let policy: CachePolicy = invocation.global.offline ? .offline
            : invocation.global.maxAge.flatMap { now.adding($0).map { .maxAge(Double($0.seconds - now.seconds)) } } ?? .network
        let provider = invocation.global.provider
        // The platforms answer nothing without a key: say so before asking them.
        if provider != "subs", loaded.key == nil {
            throw CommandFailure(.configError, "provider \(provider) needs an API key: --api-key-file, SUBS_API_KEY_FILE or SUBS_API_KEY")
        }
        switch provider {
        case "subs":
            return RecordSource(records: RemoteRecordStore(client: client, cachePolicy: policy), clock: context.clock)
        case "revenuecat":
            return RevenueCatSource(client: client, cachePolicy: policy, clock: context.clock)
        case "qonversion":
            return QonversionSource(client: client, cachePolicy: policy, clock: context.clock)
        case "iaphub":
            return IAPHUBSource(client: client, cachePolicy: policy, environment: env["SUBS_IAPHUB_ENVIRONMENT"],
                                platform: invocation.global.iaphubPlatform, clock: context.clock)
        default:
            throw NotOffered("provider \(provider) is not available in this version of subs")
        }
    }
}
