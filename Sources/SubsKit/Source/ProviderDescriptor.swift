// A provider is one folder under Source/ and one registration line (Providers.swift): its
// descriptor says what the command line needs to know of it — its name, its default base URL,
// how its key is sent, whether it needs one, how its requests are paced — and makes its source.
// What a source can do (history, grants…) is its `capabilities`, since it depends on the API
// version the base URL names.

/// What a provider's source is made from: the client of its base URL and the options that apply.
public struct ProviderSetup {
    public var client: RemoteClient
    public var cachePolicy: CachePolicy
    public var clock: any Clock
    /// The store environment asked for (`SUBS_IAPHUB_ENVIRONMENT`); nil: production.
    public var environment: String?
    /// The app store whose product ids are asked for (`--iaphub-platform`).
    public var platform: String?

    public init(client: RemoteClient, cachePolicy: CachePolicy, clock: any Clock, environment: String? = nil, platform: String? = nil) {
        self.client = client
        self.cachePolicy = cachePolicy
        self.clock = clock
        self.environment = environment
        self.platform = platform
    }
}

public struct ProviderDescriptor: Sendable {
    /// The `--provider` word.
    public var name: String
    /// The API's one address for everyone, used without --remote; nil: it has none.
    public var defaultBaseURL: String?
    /// Said (exit 64) when neither --remote nor a default base URL names the API; nil: the local
    /// store answers then.
    public var remoteRequired: String?
    public var keyScheme: APIKeyScheme
    /// The platforms answer nothing without a key: asked for before any request.
    public var needsKey: Bool
    /// The transport its rate limit needs (the given one when it has none to keep to).
    public var pace: @Sendable (HTTPTransport) -> HTTPTransport
    public var makeSource: @Sendable (ProviderSetup) throws -> CustomerSource

    public init(name: String, defaultBaseURL: String? = nil, remoteRequired: String? = nil, keyScheme: APIKeyScheme = .bearer,
                needsKey: Bool = true, pace: @escaping @Sendable (HTTPTransport) -> HTTPTransport = { $0 },
                makeSource: @escaping @Sendable (ProviderSetup) throws -> CustomerSource) {
        self.name = name
        self.defaultBaseURL = defaultBaseURL
        self.remoteRequired = remoteRequired
        self.keyScheme = keyScheme
        self.needsKey = needsKey
        self.pace = pace
        self.makeSource = makeSource
    }

    /// Whether the answers come from a remote API even without --remote.
    public var isAlwaysRemote: Bool { defaultBaseURL != nil || remoteRequired != nil }
}
