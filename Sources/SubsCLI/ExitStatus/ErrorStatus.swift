// The exit status of a `subs serve` error answer: the one the same command gives on a local
// store (SPEC section 6 table), so that a script behaves alike against a file and a server.

import SubsKit

extension Commands {
    static func exitCode(for refusal: SubsAPIError) -> ExitCode {
        switch refusal.code {
        // A value the command refuses (an end not in the future, a bad field), a body too large,
        // an Idempotency-Key reused for another request: the request is wrong, as a usage error.
        case "invalid_request", "payload_too_large", "idempotency_key_reused": return .usage
        case "customer_not_found", "entitlement_not_found", "grant_not_found": return .notFound
        case "unauthorized": return .permissionDenied
        case "invalid_store": return .dataError
        case "store_unreadable": return .noInput
        case "store_unwritable": return .cannotWrite
        case "busy": return .temporaryFailure
        case "internal": return .internalError
        // This API's JSON, but an answer it does not define for the request (405…).
        default: return .protocolError
        }
    }
}
