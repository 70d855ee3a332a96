// The one place that turns the options into a source: the local store today; each remote
// provider is one more case here and a source type in SubsKit — no command file changes.

import SubsKit

enum SourceFactory {
    static func make(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        if let override = context.sourceOverride { return try override() }
        if let remote = invocation.global.remote {
            return try remoteSource(remote, invocation, context)
        }
        if invocation.global.provider == "iaphub" { throw UsageError(IAPHUBSource.remoteRequired) }
        return RecordSource(records: LocalStore(path: Commands.storePath(invocation, context),
                                                lockTimeout: invocation.global.lockTimeout),
                            clock: context.clock)
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
        let cache = ResponseCache.defaultDirectory(environment: env).map { ResponseCache(directory: $0, clock: context.clock) }
        let client = RemoteClient(endpoint: endpoint, transport: iaphub ? IAPHUBSource.pacedTransport(context.http) : context.http, timeout: invocation.global.timeout,
                                  version: CLI.version, cache: cache, clock: context.clock)
        let now = context.clock.now()
        let policy: CachePolicy = invocation.global.offline ? .offline
            : invocation.global.maxAge.flatMap { now.adding($0).map { .maxAge(Double($0.seconds - now.seconds)) } } ?? .network
        switch invocation.global.provider {
        case "subs":
            return RecordSource(records: RemoteRecordStore(client: client, cachePolicy: policy), clock: context.clock)
        case "iaphub":
            return IAPHUBSource(client: client, cachePolicy: policy, environment: env["SUBS_IAPHUB_ENVIRONMENT"], clock: context.clock)
        default:
            throw NotOffered("provider \(invocation.global.provider) is not available yet in this version of subs")
        }
    }
}
