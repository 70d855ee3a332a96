// Every error a command may end with, and the exit status it stands for (SPEC section 1 table):
// the library's errors by their kind, a `subs serve` refusal by its code (the status the same
// command gives on a local store, SPEC section 6), and the command line's own errors, which carry
// theirs. How an error is worded on standard error is Commands.describe's.

import SubsModel
import SubsProviders
import SubsRemote
import SubsSource
import SubsStore
import SubsSystem

/// An error of the command line's own that knows its status: a usage error (64), a bad config
/// file (78), a command's failure with the status it chose.
protocol ExitStatusError: Error {
    var exitCode: ExitCode { get }
    /// The message, as `subs: error: MESSAGE` says it.
    var message: String { get }
}

/// A failure a command reports with a given status.
struct CommandFailure: ExitStatusError {
    var code: ExitCode
    var message: String
    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    var exitCode: ExitCode { code }
}

extension ExitCode {
    /// The status `error` stands for; an error no case names is a bug in subs (70).
    init(for error: Error) {
        self = ExitCode.known(error) ?? .internalError
    }

    /// The status of an error subs knows; nil for any other (a bug in subs).
    static func known(_ error: Error) -> ExitCode? {
        switch error {
        case let own as ExitStatusError: return own.exitCode
        case let store as StoreError: return ExitCode(for: store)
        case let change as ChangeError: return ExitCode(for: change)
        // What the provider or API version cannot do is a usage error, never 69: a script that
        // retries on 69 ("unreachable, try later") would retry it forever.
        case is NotOffered: return .usage
        case let remote as RemoteError: return ExitCode(for: remote)
        case let refusal as SubsAPIError: return ExitCode(for: refusal)
        case is WrongBaseURL: return .configError
        case let secret as SecretFileError: return ExitCode(for: secret)
        case let provider as ProviderError: return ExitCode(for: provider.category)
        default: return nil
        }
    }

    init(for error: StoreError) {
        switch error {
        case .missing, .unreadable: self = .noInput
        case .permissionDenied: self = .permissionDenied
        case .syntax, .invalid: self = .dataError
        case .cannotWrite, .alreadyExists: self = .cannotWrite
        case .lockTimeout: self = .temporaryFailure
        }
    }

    /// A grant ending in the past is a wrong request; anything else a write did not find.
    init(for error: ChangeError) {
        if case .expirationNotInFuture = error { self = .usage } else { self = .notFound }
    }

    init(for error: RemoteError) {
        switch error {
        case .unavailable, .timeout, .notCached, .libcurlMissing: self = .unavailable
        case .rateLimited: self = .temporaryFailure
        case .protocolError, .answersTooLarge: self = .protocolError
        case .unauthorized: self = .permissionDenied
        case .notFound: self = .notFound
        case .insecureURL, .invalidURL, .apiKeyEmpty, .apiKeyInvalid, .apiKeyUnreadable, .cache: self = .configError
        }
    }

    /// A key, token or config file refused (another user's, others may write or read it) or
    /// not readable for want of permission: 77; missing, a directory: configuration (78).
    init(for error: SecretFileError) {
        self = error.isPermissionProblem ? .permissionDenied : .configError
    }

    /// A platform's refusal, by its kind: every platform's errors end alike.
    init(for category: ProviderErrorCategory) {
        switch category {
        case .notFound: self = .notFound
        case .refused: self = .dataError
        case .permission: self = .permissionDenied
        }
    }

    /// The status of a `subs serve` error answer: the one the same command gives on a local store.
    init(for refusal: SubsAPIError) {
        switch refusal.code {
        // A value the command refuses (an end not in the future, a bad field), a body too large,
        // an Idempotency-Key reused for another request: the request is wrong, as a usage error.
        case "invalid_request", "payload_too_large", "idempotency_key_reused": self = .usage
        case "customer_not_found", "entitlement_not_found", "grant_not_found": self = .notFound
        case "unauthorized", "forbidden": self = .permissionDenied
        case "invalid_store": self = .dataError
        case "store_unreadable": self = .noInput
        case "store_unwritable": self = .cannotWrite
        case "busy": self = .temporaryFailure
        case "internal": self = .internalError
        // This API's JSON, but an answer it does not define for the request (405…).
        default: self = .protocolError
        }
    }
}
