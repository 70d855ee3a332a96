// The APIs a provider speaks, as the generated docs (the README's matrix, the man page,
// docs/providers.md, `subs commands --json`) list them. What each can do is not written here:
// it is asked of the very source the API's base URL makes — its `capabilities`, its
// `whyNotOffered` sentences and its `searchableKinds` — so the docs cannot say what the code does not.

import SubsModel
import SubsRemote
import SubsSource

/// One API of a provider: RevenueCat's v1 and v2 are two, selected by the base URL.
public struct ProviderAPI: Sendable {
    /// How the docs name it ("RevenueCat API v1").
    public var title: String
    /// A base URL that selects it: the provider's default, or one of the form the docs show.
    public var baseURL: String
    /// How a user selects it, as prose with markup ("{flag:--provider revenuecat}").
    public var selectedWith: String

    public init(title: String, baseURL: String, selectedWith: String) {
        self.title = title
        self.baseURL = baseURL
        self.selectedWith = selectedWith
    }
}

/// What one API offers, read off its source: for the generated docs and `commands --json`.
public struct APIOffer: Sendable {
    public var provider: String
    public var api: ProviderAPI
    public var capabilities: SourceCapabilities
    public var searchableKinds: SearchKinds
    /// Each operation a command could ask that this API refuses (exit 64), with the source's
    /// own sentence: only what a user can meet (no --dry-run line where grants are refused at all).
    public var refusals: [(operation: SourceOperation, why: String)]
}

/// What a command may ask of a source that a source may lack (the raw value is its
/// `subs commands --json` key).
public enum SourceOperation: String, CaseIterable, Sendable {
    case history
    case renewCount
    case grants
    case lifetimeGrants
    case dryRun
    case batchWrites

    public var capability: SourceCapabilities {
        switch self {
        case .history: return .history
        case .renewCount: return .renewalCounts
        case .grants: return .grants
        case .lifetimeGrants: return .lifetimeGrants
        case .dryRun: return .dryRun
        case .batchWrites: return .batchWrites
        }
    }
}

extension ProviderDescriptor {
    /// What each of this provider's APIs offers, from the source its base URL makes (with a
    /// client that sends nothing: describing an API asks no server).
    public var offers: [APIOffer] {
        apis.map { api in
            let source: CustomerSource
            do {
                source = try describedSource(api)
            } catch {
                preconditionFailure("provider \(name): \(api.title)'s base URL \(api.baseURL) makes no source: \(error)")
            }
            return APIOffer(provider: name, api: api, capabilities: source.capabilities,
                            searchableKinds: source.searchableKinds, refusals: Self.refusals(of: source))
        }
    }

    /// The source `api`'s base URL makes, over a transport that refuses every request.
    public func describedSource(_ api: ProviderAPI) throws -> CustomerSource {
        let endpoint = RemoteEndpoint(provider: name, url: try RemoteURL(api.baseURL), apiKey: nil, scheme: keyScheme)
        let clock = FixedClock(Instant(seconds: 0))
        let client = RemoteClient(endpoint: endpoint, transport: SendsNothing(), timeout: 1, version: "describe",
                                  cache: nil, clock: clock)
        return try makeSource(ProviderSetup(client: client, cachePolicy: .offline, clock: clock))
    }

    /// The operations `source` refuses, as checkWrite meets them: without grants, the grant
    /// options are never reached, so only "grant and revoke" is said.
    static func refusals(of source: CustomerSource) -> [(operation: SourceOperation, why: String)] {
        SourceOperation.allCases.compactMap { operation in
            guard !source.capabilities.contains(operation.capability) else { return nil }
            let isGrantOption = [.lifetimeGrants, .dryRun, .batchWrites].contains(operation)
            if isGrantOption && !source.capabilities.contains(.grants) { return nil }
            return (operation, source.whyNotOffered(operation.capability))
        }
    }
}

/// A transport for describing a source: it must never be asked.
private struct SendsNothing: HTTPTransport {
    func send(_ request: RemoteRequest) throws -> RemoteResponse {
        throw TransportError.other("a source made to be described sends nothing")
    }
}
