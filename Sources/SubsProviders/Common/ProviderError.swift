// What a platform answered instead of what was asked, as a kind the command line maps to its exit
// status once (SPEC section 1): a platform's error type says what went wrong in its own words and
// which kind it is, so that no command knows a platform's error type, and a new platform's errors
// need no change outside its folder.

/// The kind of a platform's refusal; each has one exit status.
public enum ProviderErrorCategory: Equatable, Sendable {
    /// No such customer, entitlement or resource (exit 3).
    case notFound
    /// The platform refused what was sent: an HTTP 4xx other than 401, 403, 404 and 429 (exit 65).
    case refused
    /// The key may not do this: HTTP 401/403, or a key of the wrong kind checked before sending (exit 77).
    case permission
}

/// An error a platform's source throws for what the platform answered.
public protocol ProviderError: Error, CustomStringConvertible {
    var category: ProviderErrorCategory { get }
}
