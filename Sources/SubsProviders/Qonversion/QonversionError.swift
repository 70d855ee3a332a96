// What Qonversion refuses, in words a user can act on, each of a kind with one exit status:
// the secret-key cases are `.permission` (77), refused `.refused` (65), userNotFound `.notFound`
// (3). No case ever carries the key.

public enum QonversionError: ProviderError, Equatable, Sendable {
    /// A grant or revoke answered 401/403: the key is a project key (reads only).
    case writeNeedsSecretKey(url: String, status: Int)
    /// 400 or 422 (e.g. changing a paid entitlement), with Qonversion's own words.
    case refused(url: String, status: Int, message: String)
    /// A grant or revoke for a user or identity Qonversion does not know.
    case userNotFound(id: String)
    /// API v4 asked with a key that is not a secret key (checked before sending), or answered 401/403.
    case v4NeedsSecretKey(url: String)

    public var category: ProviderErrorCategory {
        switch self {
        case .writeNeedsSecretKey, .v4NeedsSecretKey: return .permission
        case .refused: return .refused
        case .userNotFound: return .notFound
        }
    }

    public var description: String {
        switch self {
        case .writeNeedsSecretKey(let url, let status):
            return "\(url): permission denied (HTTP \(status)): grant and revoke need Qonversion's secret key "
                + "(sk_…, sandbox test_sk_…) in --api-key-file; the project key only reads"
        case .refused(let url, let status, let message):
            return "\(url): Qonversion refused the request (HTTP \(status)): \(message)"
        case .v4NeedsSecretKey(let url):
            return "\(url): Qonversion's API v4 needs the project's secret key (sk_…, sandbox test_sk_…) in --api-key-file; "
                + "a project key works with API v3 only (--remote https://api.qonversion.io/v3)"
        case .userNotFound(let id):
            return "customer '\(id)' not found: Qonversion knows no such user or identity "
                + "(its API v3 cannot create users; its SDK does); nothing written"
        }
    }
}
