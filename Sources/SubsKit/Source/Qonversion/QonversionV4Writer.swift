// Grant and revoke against Qonversion's API v4: `POST /users/{user_id}/entitlements` with
// `{"id", "expires"}` (expires omitted: no expiry, which v4 accepts), `DELETE
// /users/{user_id}/entitlements/{id}`. A 422 (`paid_entitlement`: the entitlement comes from a
// purchase) is Qonversion's refusal, said in its words (exit 65).

import SubsJSON

struct QonversionV4Writer {
    let source: QonversionV4Source
    private var v3: QonversionSource { source.v3 }

    func apply(_ change: CustomerChange, to ids: [String], now: Instant, at t: Instant?, dryRun: Bool) throws -> ChangeAnswer {
        var remarks = Remarks()
        let (id, user) = try v3.writeTarget(ids, remarks: &remarks)
        let entitlement = change.entitlement
        let userPath = "/users/" + RemoteURL.segment(user.userId) + "/entitlements"
        let record = CustomerRecord(id: id, aliases: user.alias.map { [$0] } ?? [])
        let changed: ChangedCustomer
        let status: EntitlementInfo?
        let requestDate: Instant
        switch change {
        case .grant(_, let expiration, let reason, _, _):
            var members: [(String, JSONValue)] = [("id", .string(entitlement))]
            if let expiration { members.append(("expires", .number(String(expiration.seconds)))) }
            let body = Array(JSONWriter.compact(.object(JSONObject(members))).utf8)
            let answer = try v3.write { try source.client.send("POST", userPath, body: body) }
            guard (200..<300).contains(answer.response.status) else {
                if answer.response.status == 404 {
                    try v3.requireOwnNotFound(answer)
                    throw QonversionError.userNotFound(id: String(id.prefix(80)))
                }
                throw v3.failure(answer)
            }
            let granted = try v3.decoded(answer) { bytes in try QonversionV4Wire.entitlement(bytes) }
            requestDate = v3.requestDate(answer)
            status = granted.info(projectedTo: t)
            changed = ChangedCustomer(record: record,
                                      grants: [Grant(id: entitlement, entitlement: entitlement, grantedAt: now,
                                                     expirationDate: granted.expires ?? expiration)],
                                      created: false)
            if reason != nil { remarks.note("Qonversion's API v4 keeps no reason for a grant; --reason was not sent") }
        case .revoke:
            guard let before = try source.entitlements(of: user.userId, policy: .network, remarks: &remarks) else {
                throw QonversionError.userNotFound(id: String(id.prefix(80)))
            }
            let answer = try v3.write { try source.client.send("DELETE", userPath + "/" + RemoteURL.segment(entitlement)) }
            switch answer.response.status {
            case 200..<300: break
            case 404:
                try v3.requireOwnNotFound(answer)
                throw ChangeError.nothingToRevoke(entitlement: entitlement, customers: [id])
            default: throw v3.failure(answer)
            }
            let revoked = before.list.filter { $0.id == entitlement && $0.source == .manual }.map {
                Grant(id: entitlement, entitlement: entitlement, grantedAt: $0.started ?? now, expirationDate: $0.expires,
                      revokedAt: now)
            }
            // What is left of the entitlement; this also refreshes the cache for a later --offline check.
            do {
                let after = try source.entitlements(of: user.userId, policy: .network, remarks: &remarks)
                status = QonversionSource.describe(after?.list ?? [], projectedTo: t).first { $0.id == entitlement }
                requestDate = after?.requestDate ?? v3.requestDate(answer)
            } catch {
                remarks.note("revoked, but the entitlement's status after it could not be read: \(error)")
                status = nil
                requestDate = v3.requestDate(answer)
            }
            changed = ChangedCustomer(record: record, grants: Array(revoked.suffix(1)), created: false)
        }
        if let t { remarks.note(QonversionV4Source.projectionNote(t)) }
        return ChangeAnswer(requestDate: t ?? requestDate, customers: [(change: changed, status: status)], remarks: remarks)
    }
}
