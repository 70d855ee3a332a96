// Table, TSV and JSON tell the same story (issue 30): every cell of a piped `check` table and
// every date of the sentence under it is derived here from the JSON document alone, and every
// TSV column from the same document. A derivation that needs a fact the JSON does not carry
// cannot be written, so the JSON has to carry it.

import SubsJSON

public enum CheckStory {
    /// Every disagreement between `check CUSTOMER` as a piped table, as TSV and as JSON, at
    /// `at`, for each customer of the store; empty when they agree.
    public static func disagreements(store: String, customers: [String], at: String,
                                     env: [String: String] = [:]) -> [String] {
        var problems: [String] = []
        for id in customers {
            let base = ["--store", store, "--color", "never", "--at", at, "check", id]
            let label = "\(id) at \(at)"
            let json = CLIHarness(env: env).run(base + ["--json"])
            guard let doc = try? JSON.parse(json.stdout) else {
                problems.append("\(label): no JSON document (\(json.stderr))")
                continue
            }
            let entitlements = doc["entitlements"]?.objectValue ?? JSONObject()
            let table = parseTable(CLIHarness(env: env).run(base).stdout)
            problems += compareTable(table, entitlements, label: label)
            problems += compareWide(parseTable(CLIHarness(env: env).run(base + ["--wide"]).stdout), entitlements, label: label)
            problems += compareTSV(CLIHarness(env: env).run(base + ["--format", "tsv"]).stdout, doc, entitlements, label: label)
        }
        return problems
    }

    // MARK: the table, read back

    public struct Row {
        public var cells: [String: String]
    }

    /// Rows (by UPPERCASE header) and sentences (by entitlement id) of one customer's table.
    static func parseTable(_ text: String) -> (rows: [Row], sentences: [String]) {
        var rows: [Row] = []
        var sentences: [String] = []
        var starts: [(String, Int)]?
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("ENTITLEMENT ") {
                // Column starts: where each header word begins (headers hold no double space).
                var found: [(String, Int)] = []
                var index = 0
                let chars = Array(line)
                while index < chars.count {
                    if chars[index] != " " && (index == 0 || (index >= 2 && chars[index - 1] == " " && chars[index - 2] == " ")) {
                        var end = index
                        while end < chars.count && !(chars[end] == " " && end + 1 < chars.count && chars[end + 1] == " ") { end += 1 }
                        found.append((String(chars[index..<end]).trimmingSpaces(), index))
                        index = end
                    } else {
                        index += 1
                    }
                }
                starts = found
                inTable = true
                continue
            }
            if line.isEmpty {
                inTable = false
                continue
            }
            if inTable, let starts {
                let chars = Array(line)
                var cells: [String: String] = [:]
                for (n, (header, start)) in starts.enumerated() {
                    let end = n + 1 < starts.count ? starts[n + 1].1 : chars.count
                    cells[header] = start < chars.count ? String(chars[start..<min(end, chars.count)]).trimmingSpaces() : ""
                }
                rows.append(Row(cells: cells))
            } else if starts != nil {
                sentences.append(line)
            }
        }
        return (rows, sentences)
    }

    static func compareTable(_ table: (rows: [Row], sentences: [String]), _ entitlements: JSONObject, label: String) -> [String] {
        var problems: [String] = []
        let ids = entitlements.keys
        if table.rows.map({ $0.cells["ENTITLEMENT"] ?? "" }) != ids {
            problems.append("\(label): rows \(table.rows.map { $0.cells["ENTITLEMENT"] ?? "" }) but JSON entitlements \(ids)")
            return problems
        }
        for (row, id) in zip(table.rows, ids) {
            guard let e = entitlements[id] else { continue }
            let expected = ["STATUS": status(e), "UNTIL": short(e["accessEndDate"]), "PRODUCT": product(e),
                            "NOTES": notes(e)]
            for (column, value) in expected {
                let shown = row.cells[column] ?? ""
                if shown != value { problems.append("\(label): \(id) \(column) shows '\(shown)', the JSON says '\(value)'") }
            }
            let sentence = table.sentences.first { $0.hasPrefix(id + ": ") }
            let shownDates = sentence.map(days) ?? []
            let derived = sentenceDays(e)
            if shownDates != derived {
                problems.append("\(label): \(id) sentence dates \(shownDates) ('\(sentence ?? "")'), the JSON gives \(derived)")
            }
        }
        return problems
    }

    /// `--wide`'s id columns: the transaction of the period in force, its chain's original, the grant.
    static func compareWide(_ table: (rows: [Row], sentences: [String]), _ entitlements: JSONObject, label: String) -> [String] {
        var problems: [String] = []
        for (row, id) in zip(table.rows, entitlements.keys) {
            guard let e = entitlements[id] else { continue }
            let p = e["transactions"]?.arrayValue?.last { $0["transactionDate"] == e["lastPurchaseDate"] }
                ?? e["transactions"]?.arrayValue?.last
            let expected = ["TRANSACTION": plain(p?["transactionId"]), "ORIGINAL": plain(p?["originalTransactionId"]),
                            "GRANT": plain(e["grantId"])]
            for (column, value) in expected where (row.cells[column] ?? "") != value {
                problems.append("\(label): \(id) --wide \(column) shows '\(row.cells[column] ?? "")', the JSON says '\(value)'")
            }
        }
        if table.rows.count != entitlements.keys.count { problems.append("\(label): --wide rows \(table.rows.count)") }
        return problems
    }

    static func compareTSV(_ text: String, _ doc: JSONValue, _ entitlements: JSONObject, label: String) -> [String] {
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return ["\(label): no TSV"] }
        let rows = lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
        var problems: [String] = []
        let ids = entitlements.keys
        if rows.map({ $0["entitlement"] ?? "" }) != (ids.isEmpty ? [""] : ids) {
            return ["\(label): TSV rows \(rows.map { $0["entitlement"] ?? "" }), JSON \(ids)"]
        }
        for (row, id) in zip(rows, ids) {
            guard let e = entitlements[id] else { continue }
            for key in ["isActive", "state", "renewState", "expirationDate", "productId", "source", "periodType", "grantType",
                        "renewsCount", "accessEndDate", "willRenew", "isSandbox", "gracePeriodExpirationDate",
                        "billingRetryEndDate", "refundedAt", "revokedAt", "revokedBy", "revokeReason"] {
                guard let cell = row[key] else {
                    problems.append("\(label): TSV has no column \(key)")
                    continue
                }
                let value = plain(e[key])
                if cell != value { problems.append("\(label): \(id) TSV \(key) '\(cell)', JSON '\(value)'") }
            }
            if row["customerId"] != doc["customerId"]?.stringValue { problems.append("\(label): TSV customerId") }
        }
        return problems
    }

    // MARK: cells and sentence dates from the JSON

    static func plain(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: return s
        case .bool(let b)?: return String(b)
        case .number(let n)?: return n
        default: return ""
        }
    }

    /// `2026-03-01T12:00:00Z` as tables show it: `2026-03-01 12:00Z`; `-` for null.
    static func short(_ value: JSONValue?) -> String {
        guard let s = value?.stringValue else { return "-" }
        return String(s.prefix(10)) + " " + String(s.dropFirst(11).prefix(5)) + "Z"
    }

    static func day(_ value: JSONValue?) -> String? {
        value?.stringValue.map { String($0.prefix(10)) }
    }

    static func store(_ source: String?) -> String? {
        switch source {
        case "appstore": return "App Store"
        case "playstore": return "Google Play"
        case "stripe": return "Stripe"
        case "amazon": return "Amazon"
        default: return nil
        }
    }

    static func isGrant(_ e: JSONValue) -> Bool { e["source"]?.stringValue == "manual" }

    static func isPurchase(_ e: JSONValue) -> Bool {
        !isGrant(e) && e["transactions"]?.arrayValue?.last?["type"]?.stringValue == "nonConsumablePurchase"
    }

    static func status(_ e: JSONValue) -> String {
        switch e["state"]?.stringValue {
        case "gracePeriod": return "grace period"
        case "billingRetry": return "billing retry"
        case "paused": return "paused"
        case "expired": return "expired"
        case "revoked":
            if isGrant(e) { return "revoked" }
            return e["grantType"]?.stringValue == "familySharing" ? "access withdrawn" : "refunded"
        case "active":
            if e["expirationDate"]?.isNull ?? true { return "active, lifetime" }
            if e["willRenew"]?.boolValue == true { return "active, renews" }
            switch e["renewState"]?.stringValue {
            case "billingIssue": return "active, billing issue"
            case "willRenew": return (e["autoResumeDate"]?.isNull ?? true) ? "active, won't renew" : "active, pauses"
            case "unknown": return "active, renewal unknown"
            default: return "active, won't renew"
            }
        default: return "unknown"
        }
    }

    static func product(_ e: JSONValue) -> String {
        if isGrant(e) { return "manual grant" }
        let id = e["productId"]?.stringValue ?? "?"
        return store(e["source"]?.stringValue).map { "\(id) (\($0))" } ?? id
    }

    static func notes(_ e: JSONValue) -> String {
        var notes: [String] = []
        switch e["periodType"]?.stringValue {
        case "trial": notes.append("free trial")
        case "intro": notes.append("intro offer")
        case "promotional" where !isGrant(e): notes.append("promotional")
        default: break
        }
        if e["grantType"]?.stringValue == "familySharing" { notes.append("family sharing") }
        let code = e["lastActivatedOfferCode"]?.stringValue
        if e["grantType"]?.stringValue == "offerCode" || code != nil { notes.append(code.map { "offer code \($0)" } ?? "offer code") }
        if e["isSandbox"]?.boolValue == true { notes.append("sandbox") }
        let others = e["otherActiveSources"]?.arrayValue?.count ?? 0
        if others > 0 { notes.append(others == 1 ? "1 more source" : "\(others) more sources") }
        return notes.joined(separator: ", ")
    }

    /// The `YYYY-MM-DD` dates of a sentence, in order.
    static func days(_ sentence: String) -> [String] {
        let chars = Array(sentence)
        var found: [String] = []
        var i = 0
        while i + 10 <= chars.count {
            let candidate = chars[i..<i + 10]
            let digits = [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy { candidate[candidate.startIndex + $0].isNumber }
            if digits && candidate[candidate.startIndex + 4] == "-" && candidate[candidate.startIndex + 7] == "-" {
                found.append(String(candidate))
                i += 10
            } else {
                i += 1
            }
        }
        return found
    }

    /// The dates the sentence under the table must say, in order, from the JSON alone.
    static func sentenceDays(_ e: JSONValue) -> [String] {
        var dates: [String?] = []
        let state = e["state"]?.stringValue
        let familySharing = e["grantType"]?.stringValue == "familySharing"
        let others = e["otherActiveSources"]?.arrayValue ?? []
        let extras = familySharing && state != "revoked" || e["lastActivatedOfferCode"]?.stringValue != nil
            || e["isSandbox"]?.boolValue == true
        if isGrant(e) {
            switch state {
            case "revoked": dates = [day(e["revokedAt"])]
            case "expired": dates = [day(e["expirationDate"])]
            default: dates = [day(e["expirationDate"])]
            }
        } else if isPurchase(e) {
            dates = state == "revoked" ? [day(e["revokedAt"])] : [day(e["lastPurchaseDate"])]
        } else {
            switch state {
            case "revoked":
                if familySharing {
                    dates = [day(e["revokedAt"])]
                } else {
                    let p = e["transactions"]?.arrayValue?.last { $0["transactionDate"] == e["lastPurchaseDate"] }
                    dates = [day(p?["transactionDate"]), day(e["refundedAt"])]
                }
            case "gracePeriod": dates = [day(e["billingIssueDetectedAt"]), day(e["accessEndDate"])]
            case "billingRetry":
                dates = [day(e["billingIssueDetectedAt"]), day(e["accessEndDate"]), day(e["billingRetryEndDate"])]
            case "paused": dates = [day(e["accessEndDate"]), day(e["autoResumeDate"])]
            case "expired":
                if e["billingIssueDetectedAt"]?.isNull == false {
                    dates = [day(e["expirationDate"]), day(e["billingIssueDetectedAt"])]
                } else if e["pauseEndedDate"]?.isNull == false {
                    dates = [day(e["expirationDate"]), day(e["pauseEndedDate"])]
                } else if e["autoRenewDisableDate"]?.isNull == false {
                    dates = [day(e["autoRenewDisableDate"]), day(e["expirationDate"])]
                } else {
                    dates = [day(e["expirationDate"])]
                }
            case "active":
                let renewState = e["renewState"]?.stringValue
                if e["periodType"]?.stringValue == "prepaid" {
                    dates = [day(e["expirationDate"])]
                } else if renewState == "billingIssue" {
                    dates = [day(e["billingIssueDetectedAt"]), day(e["accessEndDate"])]
                } else if renewState == "canceled" {
                    dates = [day(e["autoRenewDisableDate"]), day(e["accessEndDate"])]
                } else if e["autoResumeDate"]?.isNull == false {
                    dates = [day(e["expirationDate"]), day(e["autoResumeDate"])]
                } else if renewState == "nonRenewable" || e["renewalProductId"]?.isNull == false {
                    dates = [day(e["expirationDate"])]
                } else if e["willRenew"]?.boolValue == true
                            && (e["periodType"]?.stringValue == "trial" || extras || !others.isEmpty) {
                    dates = [day(e["expirationDate"])]
                }
            default: break
            }
        }
        for other in others { dates.append(day(other["expirationDate"])) }
        return dates.compactMap { $0 }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
