// What `history` answers, in every format. The table is a timeline a support agent reads: DATE
// (with a relative hint on a terminal), ENTITLEMENT, WHAT HAPPENED (one sentence, from
// Timeline), with the derived "Access ended" milestones in place; `--wide` adds PRODUCT,
// TRANSACTION, ORIGINAL and GRANT. On a narrow terminal WHAT HAPPENED wraps first (down to 26
// columns), then the relative hints move under the dates (with --wide they are dropped, and the
// columns it names never go). JSON,
// JSONL and TSV hold the entries only — what the records say, never a derived milestone.

import SubsJSON
import SubsKit

/// One customer's history as asked.
struct CustomerHistory {
    var customerId: ID
    var requestedId: ID
    var requestDate: Instant
    /// Who answered, and why the history is not whole (nil: it is).
    var provider: String
    var incompleteReason: String?
    /// The entries shown (after --entitlement, --since, --limit).
    var entries: [HistoryEntry]
    /// The milestones shown (the same filters).
    var accessEnds: [AccessEnd]
    /// Wording of the entries, built from all of them (a refund names the period it took back
    /// even when --since left that period out).
    var timeline: Timeline
}

struct HistoryResult: CommandResult {
    var histories: [Asked<CustomerHistory>]
    /// Several USERs or `-`: an array of documents; JSONL entries carry their customer.
    var asArray: Bool
    var judgedAt: Instant?

    var document: JSONOutput {
        let documents = histories.map { asked -> JSONValue in
            switch asked {
            case .found(let h):
                return Documents.history(customerId: h.customerId, requestedId: h.requestedId, requestDate: h.requestDate,
                                         provider: h.provider, incompleteReason: h.incompleteReason, entries: h.entries)
            case .missing(let m):
                return Documents.missing(m)
            }
        }
        if asArray { return .array(documents) }
        guard case .found? = histories.first, let document = documents.first else { return .nothing }
        return .document(document)
    }

    /// One entry per line, each opening with its customer (`customerId`, `requestedId`) whether one
    /// USER was asked or several, so a line read alone says whose it is; with several USERs a
    /// USER not found is one error line.
    var jsonLines: [JSONValue] {
        histories.flatMap { asked -> [JSONValue] in
            switch asked {
            case .missing(let m):
                return asArray ? [Documents.missing(m)] : []
            case .found(let h):
                return h.entries.map { entry in
                    let document = Documents.historyEntry(entry)
                    guard case .object(let members) = document else { return document }
                    return .object(JSONObject([JSONObject.Member(key: "customerId", value: .string(h.customerId.string)),
                                               JSONObject.Member(key: "requestedId", value: .string(h.requestedId.string))]
                                              + members.members))
                }
            }
        }
    }

    /// Every key an entry may carry, in the order of SPEC section 4.
    static let fieldColumns = ["transactionId", "originalTransactionId", "productId", "expirationDate", "source",
                               "environment", "ownershipType", "offerCode", "autoResumeDate", "grantId", "grantedBy",
                               "reason", "revokedBy", "revokeReason"]

    /// One column per field; keys a provider adds (price, currency…) follow in the order met.
    var rows: Rows {
        var fields = Self.fieldColumns
        var known = Set(fields)
        for case .found(let h) in histories {
            for entry in h.entries {
                for field in entry.fields where known.insert(field.key).inserted { fields.append(field.key) }
            }
        }
        let headers = ["customerId", "requestedId", "date", "kind", "type", "entitlements"] + fields + ["error"]
        let blank = Array(repeating: "", count: headers.count - 3)
        let values = histories.flatMap { asked -> [[String]] in
            switch asked {
            case .missing(let m):
                return [[m.customerId?.string ?? "", m.requestedId.string] + blank + [m.code]]
            case .found(let h):
                if h.entries.isEmpty { return [[h.customerId.string, h.requestedId.string] + blank + [""]] }
                return h.entries.map { e in
                    [h.customerId.string, h.requestedId.string, ISODate.format(e.date), e.kind.rawValue, e.type,
                     e.entitlements.strings.joined(separator: ",")]
                        + fields.map { key in
                            switch e.field(key) {
                            case .string(let s)?: return s ?? ""
                            case .date(let d)?: return d.map(ISODate.format) ?? ""
                            case nil: return ""
                            }
                        } + [""]
                }
            }
        }
        return Rows(headers: headers, values: values)
    }

    func table(_ style: OutputStyle) -> String {
        var out = judgedAt.map(style.judged(at:)) ?? ""
        var first = true
        for case .found(let h) in histories {
            if !first { out += "\n" }
            first = false
            var style = style
            style.now = h.requestDate
            if asArray {
                let header = Terminal.escape(h.customerId)
                out += style.color ? "\u{1B}[1m\(header)\u{1B}[0m\n" : header + "\n"
            }
            out += table(h, style: style)
        }
        return out
    }

    private func table(_ h: CustomerHistory, style: OutputStyle) -> String {
        if h.entries.isEmpty && h.accessEnds.isEmpty { return style.sentence("\(h.customerId): no history") }
        var columns = [Column("date", .date), Column("entitlement", .text, softMinimum: 11),
                       Column("what happened", .text, softMinimum: 26)]
        if style.wide {
            // Asked for: never left out (the hints go first, then the table becomes blocks).
            columns += [Column("product", omitWhenEmpty: true), Column("transaction", omitWhenEmpty: true),
                        Column("original", omitWhenEmpty: true), Column("grant", omitWhenEmpty: true)]
        }
        // Entries and milestones by date (both are sorted); a milestone follows the entries of its instant.
        let entryRows: [(Instant, [Cell])] = h.entries.map { e in
            var row = [style.dateCell(e.date), entitlementsCell(e.entitlements),
                       Cell(h.timeline.sentence(e), Self.style(of: e))]
            if style.wide {
                let isGrant = e.kind == .grant
                row += [Cell(e.text("productId") ?? ""), Cell(isGrant ? "" : e.text("transactionId") ?? ""),
                        Cell(e.text("originalTransactionId") ?? ""), Cell(isGrant ? e.text("grantId") ?? "" : "")]
            }
            return (e.date, row)
        }
        var rows: [[Cell]] = []
        rows.reserveCapacity(entryRows.count + h.accessEnds.count)
        var next = 0
        for end in h.accessEnds {
            while next < entryRows.count && entryRows[next].0 <= end.date {
                rows.append(entryRows[next].1)
                next += 1
            }
            var row = [style.dateCell(end.date), entitlementsCell([end.entitlement]), Cell(Timeline.accessEnded(end), .red)]
            if style.wide { row += [Cell(""), Cell(""), Cell(""), Cell("")] }
            rows.append(row)
        }
        rows += entryRows[next...].map(\.1)
        return TextTable(columns: columns, rows: rows, hintsGiveWayAt: 5, hintsDropWhenGivingWay: style.wide).render(style)
    }

    private func entitlementsCell(_ entitlements: [ID]) -> Cell {
        let ids = entitlements.strings
        guard !ids.isEmpty else { return Cell("-") }
        let pieces = ids.enumerated().map { $0.offset < ids.count - 1 ? $0.element + "," : $0.element }
        return Cell(pieces.joined(separator: " "), pieces: pieces)
    }

    private static func style(of e: HistoryEntry) -> Style? {
        switch (e.kind, e.type) {
        case (.refund, _), (.grant, "revoked"): return .red
        case (.event, EventType.billingIssue.rawValue): return .yellow
        default: return nil
        }
    }
}
