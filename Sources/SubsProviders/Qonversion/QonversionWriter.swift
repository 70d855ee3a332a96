// Grant and revoke against Qonversion's API v3 or v4, which write alike: `POST
// /users/{user_id}/entitlements` with `{"id", "expires"}` and `DELETE
// /users/{user_id}/entitlements/{id}`, for the one user the USER resolves to. What differs is
// `QonversionWriteAPI`: v4 takes a grant without `expires` (lifetime) and names its fields
// otherwise. A 422 (`paid_entitlement`: the entitlement comes from a purchase) is Qonversion's
// refusal, said in its words (exit 65).

import SubsJSON
import SubsModel
import SubsRemote
import SubsSource

/// What a write needs of one API version.
struct QonversionWriteAPI {
    /// "v3" or "v4", as the notes say it.
    var version: String
    /// Whether a grant may leave out `expires` (v4).
    var grantsLifetime: Bool
    /// The entitlement a grant answers.
    var granted: ([UInt8]) throws -> QonversionEntitlement
    /// The user's entitlements, read from the network (nil: no such user).
    var entitlements: (_ userId: String, _ remarks: inout Remarks) throws -> (list: [QonversionEntitlement], requestDate: Instant)?
    var projectionNote: (Instant) -> String

    static func v3(_ source: QonversionSource) -> QonversionWriteAPI {
        QonversionWriteAPI(version: "v3", grantsLifetime: false, granted: { try QonversionWire.entitlement($0) },
                           entitlements: { userId, remarks in
                               try source.entitlements(of: userId, cachePolicy: .network, remarks: &remarks).map { ($0.list, $0.requestDate) }
                           },
                           projectionNote: QonversionSource.projectionNote)
    }

    static func v4(_ source: QonversionV4Source) -> QonversionWriteAPI {
        QonversionWriteAPI(version: "v4", grantsLifetime: true, granted: { try QonversionV4Wire.entitlement($0) },
                           entitlements: { userId, remarks in
                               try source.entitlements(of: userId, policy: .network, remarks: &remarks).map { ($0.list, $0.requestDate) }
                           },
                           projectionNote: QonversionV4Source.projectionNote)
    }
}

struct QonversionWriter {
    /// The v3 source: the client, the user's resolution, error answers (alike in v4).
    let source: QonversionSource
    let api: QonversionWriteAPI

    func apply(_ change: CustomerChange, to ids: [ID], now: Instant, at t: Instant?) throws -> ChangeAnswer {
        var remarks = Remarks()
        let (id, user) = try source.writeTarget(ids, remarks: &remarks)
        let entitlement = change.entitlement
        let userPath = "/users/" + RemoteURL.segment(user.userId) + "/entitlements"
        let record = CustomerRecord(id: id, aliases: user.alias.map { [$0] } ?? [])
        let changed: ChangedCustomer
        let status: EntitlementInfo?
        let requestDate: Instant
        switch change {
        case .grant(_, let expiration, let reason, _, _):
            guard expiration != nil || api.grantsLifetime else { throw NotOffered(source.whyNotOffered(.lifetimeGrants)) }
            var members: [(String, JSONValue)] = [("id", .string(entitlement.string))]
            if let expiration { members.append(("expires", .number(String(expiration.seconds)))) }
            let body = Array(JSONWriter.compact(.object(JSONObject(members))).utf8)
            let answer = try source.write { try source.client.send("POST", userPath, body: body) }
            guard (200..<300).contains(answer.response.status) else {
                if answer.response.status == 404 {
                    try source.requireOwnNotFound(answer)
                    throw QonversionError.userNotFound(id: String(id.string.prefix(80)))
                }
                throw source.failure(answer)
            }
            let granted = try source.decoded(answer, api.granted)
            requestDate = source.requestDate(answer)
            status = granted.info(projectedTo: t)
            // Qonversion keeps no grant ids, reasons or actors: the record says what it holds.
            changed = ChangedCustomer(record: record,
                                      grants: [Grant(id: entitlement, entitlement: entitlement, grantedAt: now,
                                                     expirationDate: granted.expires ?? expiration)],
                                      created: false)
            if reason != nil { remarks.note("Qonversion's API \(api.version) keeps no reason for a grant; --reason was not sent") }
        case .revoke:
            guard let before = try api.entitlements(user.userId, &remarks) else {
                throw QonversionError.userNotFound(id: String(id.string.prefix(80)))
            }
            let answer = try source.write { try source.client.send("DELETE", userPath + "/" + RemoteURL.segment(entitlement.string)) }
            switch answer.response.status {
            case 200..<300: break
            case 404:
                try source.requireOwnNotFound(answer)
                throw ChangeError.nothingToRevoke(entitlement: entitlement, customers: [id])
            default: throw source.failure(answer)
            }
            let revoked = before.list.filter { $0.id == entitlement && $0.source == .manual }.map {
                Grant(id: entitlement, entitlement: entitlement, grantedAt: $0.started ?? now, expirationDate: $0.expires,
                      revokedAt: now)
            }
            // What is left of the entitlement (a purchase may still unlock it); this also
            // refreshes the cache, so that a later --offline check sees the revoke.
            do {
                let after = try api.entitlements(user.userId, &remarks)
                status = QonversionSource.describe(after?.list ?? [], projectedTo: t).first { $0.id == entitlement }
                requestDate = after?.requestDate ?? source.requestDate(answer)
            } catch {
                remarks.note("revoked, but the entitlement's status after it could not be read: \(error)")
                status = nil
                requestDate = source.requestDate(answer)
            }
            changed = ChangedCustomer(record: record, grants: Array(revoked.suffix(1)), created: false)
        }
        if let t { remarks.note(api.projectionNote(t)) }
        return ChangeAnswer(requestDate: t ?? requestDate, customers: [(change: changed, status: status)], remarks: remarks)
    }
}
