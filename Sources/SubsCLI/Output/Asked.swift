// A USER as asked, found or not, and what stands for one not found: the elements every
// per-customer result keeps one of per USER, in order.

import SubsModel
import SubsRemote

/// One USER as asked: found, or not (SPEC section 4: JSON arrays, JSONL and TSV keep one
/// element, line or row per USER asked, in order).
enum Asked<Found> {
    case found(Found)
    case missing(Missing)

    var found: Found? {
        if case .found(let value) = self { return value }
        return nil
    }
}

/// What stands for a USER that was not found: `{"requestedId", "customerId": null, "error"}`.
struct Missing: Error {
    var requestedId: ID
    /// The canonical id when the customer was found but what was asked of it was not
    /// (`renew-count - ENTITLEMENT`); nil when the customer itself is missing.
    var customerId: ID?
    /// `customer_not_found`, `entitlement_not_found`: the codes of the subs REST API.
    var code: String
    /// The sentence said on stderr too.
    var message: String

    /// A customer of a batch the command's remote budget left unanswered (SPEC section 7 rev. 4):
    /// `timeout`, or `answers_too_large` when the command's answers reached their byte bound.
    static func unanswered(_ id: ID, _ error: RemoteError) -> Missing {
        let code: String
        if case .answersTooLarge = error { code = "answers_too_large" } else { code = "timeout" }
        return Missing(requestedId: id, customerId: nil, code: code, message: "not answered: \(error.budgetReason)")
    }

    static func customer(_ id: ID) -> Missing {
        Missing(requestedId: id, customerId: nil, code: "customer_not_found",
                message: "customer \(Terminal.quoted(id, escaping: false)) not found")
    }

    /// A customer not found, with the words said on stderr (a did-you-mean, a find hint).
    static func customer(_ id: ID, _ failure: CommandFailure) -> Missing {
        Missing(requestedId: id, customerId: nil, code: "customer_not_found", message: failure.message)
    }
}
