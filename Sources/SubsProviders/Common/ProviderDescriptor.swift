// A provider is one folder under Source/ and one registration line (Providers.swift): its
// descriptor says what the command line needs to know of it — its name, its default base URL,
// how its key is sent, whether it needs one, how its requests are paced — and makes its source.
// What a source can do (history, grants…) is its `capabilities`, since it depends on the API
// version the base URL names.

import SubsModel
import SubsRemote
import SubsSource

/// A setting only one provider reads: a global option (`--iaphub-platform`, which the config
/// file and its environment variable may also set) or an environment variable alone
/// (`SUBS_IAPHUB_ENVIRONMENT`). The command line declares, checks and documents it from here;
/// its value reaches the source through `ProviderSetup.settings`.
public struct ProviderSetting: Sendable {
    /// The option's long name without dashes, also its config file key; nil: environment only.
    public var option: String?
    public var environment: String
    /// The words it takes; nil: any text that is not empty.
    public var choices: [String]?
    /// How the value is shown in help (`PLATFORM`).
    public var valueName: String
    /// Used when nothing sets it; documented in help and the man page.
    public var defaultValue: String?
    /// An option's help is a phrase (`--help` style); an environment variable's a sentence.
    public var help: String

    public init(option: String? = nil, environment: String, choices: [String]? = nil, valueName: String = "VALUE",
                defaultValue: String? = nil, help: String) {
        self.option = option
        self.environment = environment
        self.choices = choices
        self.valueName = valueName
        self.defaultValue = defaultValue
        self.help = help
    }

    /// Where its value is kept in `ProviderSetup.settings`.
    public var key: String { option ?? environment }
}

/// What a provider's source is made from: the client of its base URL and the options that apply.
public struct ProviderSetup {
    public var client: RemoteClient
    public var cachePolicy: CachePolicy
    public var clock: any Clock
    /// The values of the provider settings that were set, by `ProviderSetting.key`, checked.
    public var settings: [String: String]

    public init(client: RemoteClient, cachePolicy: CachePolicy, clock: any Clock, settings: [String: String] = [:]) {
        self.client = client
        self.cachePolicy = cachePolicy
        self.clock = clock
        self.settings = settings
    }

    /// The value of `setting`: what was set, else its default.
    public func value(of setting: ProviderSetting) -> String? {
        settings[setting.key].flatMap { $0.isEmpty ? nil : $0 } ?? setting.defaultValue
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
    /// The options and environment variables only this provider reads.
    public var settings: [ProviderSetting]
    /// Its paragraph in the man page: where it asks, with which key, what maps to what, what it
    /// cannot do (sentences, with {flag:…} and {exit:…} markup the CLI resolves;
    /// docs/providers.md has the field-by-field tables).
    public var manual: String
    /// The APIs it speaks, each selected by its base URL (ProviderAPI.swift): what each offers is
    /// asked of the source `makeSource` makes for it.
    public var apis: [ProviderAPI]
    public var makeSource: @Sendable (ProviderSetup) throws -> CustomerSource

    public init(name: String, defaultBaseURL: String? = nil, remoteRequired: String? = nil, keyScheme: APIKeyScheme = .bearer,
                needsKey: Bool = true, pace: @escaping @Sendable (HTTPTransport) -> HTTPTransport = { $0 },
                settings: [ProviderSetting] = [], manual: String, apis: [ProviderAPI],
                makeSource: @escaping @Sendable (ProviderSetup) throws -> CustomerSource) {
        self.name = name
        self.settings = settings
        self.manual = manual
        self.apis = apis
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
