// What `grant` and `revoke` answer, in every format: what was written, and the entitlement's
// status after it.

import SubsJSON
import SubsModel

/// What `grant`/`revoke` wrote, and the entitlement's status after it, in every format.
struct GrantResult: CommandResult {
    var outcomes: [Outcome]
    var entitlement: ID
    var at: Instant
    var dryRun: Bool
    var isGrant: Bool
    var asArray: Bool

    struct Outcome {
        var customer: ChangedCustomer
        var status: EntitlementInfo?
        /// The first USER, as given, that named this customer (its id or an alias).
        var requestedId: ID
    }

    var document: JSONOutput {
        let documents = outcomes.map { o -> JSONValue in
            .object(JSONObject([
                ("customerId", .string(o.customer.record.id.string)),
                ("requestedId", .string(o.requestedId.string)),
                ("requestDate", Documents.date(at)),
                ("dryRun", .bool(dryRun)),
                ("grants", .array(o.customer.grants.map(Documents.grant))),
                ("entitlement", o.status.map(Documents.entitlement) ?? .null),
            ]))
        }
        return asArray ? .array(documents) : documents.first.map { .document($0) } ?? .array([])
    }

    /// customerId, requestedId, the command's columns, error: the shape of every command's TSV. A
    /// write is all or nothing, so a written row's error is empty (a failed write prints nothing).
    var rows: Rows {
        let values = outcomes.flatMap { o in
            o.customer.grants.map { g in
                [o.customer.record.id.string, o.requestedId.string, g.entitlement.string, g.id.string,
                 g.expirationDate.map(ISODate.format) ?? "", String(dryRun), o.status?.state.rawValue ?? "",
                 String(o.status?.isActive ?? false), ""]
            }
        }
        return Rows(headers: ["customerId", "requestedId", "entitlement", "grantId", "expirationDate", "dryRun", "state",
                              "isActive", "error"],
                    values: values)
    }

    func table(_ style: OutputStyle) -> String {
        outcomes.map { o in
            let id = Terminal.escape(o.customer.record.id)
            let e = Terminal.escape(entitlement)
            let verb = isGrant ? (dryRun ? "would grant" : "granted") : (dryRun ? "would revoke" : "revoked")
            let created = o.customer.created ? " (new customer)" : ""
            let lines = o.customer.grants.map { g -> String in
                let until = isGrant ? (g.expirationDate.map { " until \(style.date($0))" } ?? " for life") : ""
                return "\(id)\(created): \(verb) \(e)\(until) (\(Terminal.escape(g.id)))"
            }
            // A dry run changed nothing: it says what the write would leave, never "is now".
            let state = o.status.map { "\(id): \(e) \(dryRun ? "would be" : "is now") \($0.state.rawValue)\($0.isActive ? "" : " (inactive)")" }
                ?? "\(id): \(dryRun ? "no source of \(e) would be left" : "no source of \(e) left")"
            return (lines + [state]).joined(separator: "\n") + "\n"
        }.joined()
    }
}
