// The one place that turns the options into a source: the local store, or the chosen provider's
// descriptor (SubsProviders/Providers.swift) — a new provider changes nothing here.

import SubsModel
import SubsStore
import SubsRemote
import SubsSource
import SubsProviders

enum SourceFactory {
    static func make(_ invocation: Invocation, _ context: Context) throws -> CustomerSource {
        if let override = context.sourceOverride { return try override() }
        let provider = invocation.global.provider.descriptor
        if let remote = invocation.global.remote ?? provider.defaultBaseURL {
            return try remoteSource(remote, provider, invocation, context)
        }
        if let required = provider.remoteRequired { throw UsageError(required) }
        return RecordSource(records: LocalStore(path: Commands.storePath(invocation, context),
                                                lockTimeout: invocation.global.lockWait,
                                                writePause: invocation.global.writePause),
                            clock: context.clock)
    }

    /// Whether the answers come from a remote API (`--remote`, or a platform that needs none).
    static func isRemote(_ invocation: Invocation) -> Bool {
        invocation.global.remote != nil || invocation.global.provider.descriptor.isAlwaysRemote
    }

    /// `--remote URL` with `--provider`: the client (key, timeout, cache) and the provider's source.
    private static func remoteSource(_ remote: String, _ provider: ProviderDescriptor, _ invocation: Invocation,
                                     _ context: Context) throws -> CustomerSource {
        let env = context.environment
        // --api-key-file already holds SUBS_API_KEY_FILE or the config file's key when not given.
        let loaded = try APIKey.load(flagFile: invocation.global.apiKeyFile, environmentFile: nil,
                                     environmentValue: invocation.global.apiKey)
        let endpoint = RemoteEndpoint(provider: provider.name, url: try RemoteURL(remote), apiKey: loaded.key,
                                      scheme: provider.keyScheme)
        // A cache directory or entry another user owns or may write is not used: one warning.
        // --cache-max 0: no cache at all (nothing stored, nothing answered from it).
        let cache = invocation.global.cacheMax == 0 ? nil : ResponseCache.defaultDirectory(xdgCacheHome: EnvironmentSpec.xdgCacheHome.value(in: env),
                                                   home: EnvironmentSpec.home.value(in: env)).map {
            ResponseCache(directory: $0, clock: context.clock, maxBytes: invocation.global.cacheMax,
                          onDistrust: { context.writeErr(Terminal.message("subs: warning: \($0)") + "\n") })
        }
        // The command's one budget of time and bytes, from here to its last request.
        // What the command holds is measured on the heap too, except under the test hook that
        // lowers the bound (an in-process test shares its heap with its fakes).
        let budget = RemoteBudget(seconds: invocation.global.timeout, byteLimit: invocation.global.answerBytes,
                                  measuresHeap: invocation.global.answerBytes == RemoteBudget.defaultByteLimit)
        let client = RemoteClient(endpoint: endpoint, transport: provider.pace(context.http), timeout: invocation.global.timeout,
                                  version: CommandLineSpec.subs.version, cache: cache, clock: context.clock, budget: budget)
        let now = context.clock.now()
        let policy: CachePolicy = invocation.global.offline ? .offline
            : invocation.global.maxAge.flatMap { now.adding($0).map { .maxAge(Double($0.seconds - now.seconds)) } } ?? .network
        // The platforms answer nothing without a key: say so before asking them.
        if provider.needsKey, loaded.key == nil {
            throw CommandFailure(.configError, "provider \(provider.name) needs an API key: --api-key-file, SUBS_API_KEY_FILE or SUBS_API_KEY")
        }
        return try provider.makeSource(ProviderSetup(client: client, cachePolicy: policy, clock: context.clock,
                                                     settings: invocation.global.providerSettings))
    }
}
