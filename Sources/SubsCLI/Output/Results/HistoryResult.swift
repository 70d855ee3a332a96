// What `history` answers, in every format. The table is a timeline a support agent reads: DATE
// (with a relative hint on a terminal), ENTITLEMENT, WHAT HAPPENED (one sentence, from
// Timeline), with the derived "Access ended" milestones in place; `--wide` adds PRODUCT,
// TRANSACTION, ORIGINAL and GRANT. On a narrow terminal WHAT HAPPENED wraps first (down to 26
// columns), then the relative hints move under the dates (with --wide they are dropped, and the
// columns it names never go). JSON,
// JSONL and TSV hold the entries only — what the records say, never a derived milestone.

import SubsJSON
import SubsModel

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
                return h.entries.map { Self.line($0, of: h) }
            }
        }
    }

    /// A JSONL line: the entry, opening with its customer.
    private static func line(_ entry: HistoryEntry, of h: CustomerHistory) -> JSONValue {
        let document = Documents.historyEntry(entry)
        guard case .object(let members) = document else { return document }
        return .object(JSONObject([JSONObject.Member(key: "customerId", value: .string(h.customerId.string)),
                                   JSONObject.Member(key: "requestedId", value: .string(h.requestedId.string))]
                                  + members.members))
    }

    /// Every key an entry may carry, in the order of SPEC section 4.
    static let fieldColumns = ["transactionId", "originalTransactionId", "productId", "expirationDate", "source",
                               "environment", "ownershipType", "offerCode", "autoResumeDate", "grantId", "grantedBy",
                               "reason", "revokedBy", "revokeReason"]

    /// One column per field; keys a provider adds (price, currency…) follow in the order met.
    var rows: Rows {
        var fields = Self.fieldColumns
        // Keys by their bytes, as JSON compares member names: NFC and NFD spellings are two columns.
        var known = Set(fields.map { Array($0.utf8) })
        for case .found(let h) in histories {
            for entry in h.entries {
                for field in entry.fields where known.insert(Array(field.key.utf8)).inserted { fields.append(field.key) }
            }
        }
        let headers = ["customerId", "requestedId", "date", "kind", "type", "entitlements"] + fields + ["error"]
        let blank = Array(repeating: "", count: headers.count - 3)
        // Each row is (the USER asked, the entry), the entry -1 for a USER's one row without
        // entries: the rows are made as they are written, never held as text.
        var order: [(asked: Int, entry: Int)] = []
        for (n, asked) in histories.enumerated() {
            let count = asked.found?.entries.count ?? 0
            if count == 0 { order.append((n, -1)) }
            for e in 0..<count { order.append((n, e)) }
        }
        let histories = histories
        return Rows(headers: headers, count: order.count) { r in
            let (n, index) = order[r]
            switch histories[n] {
            case .missing(let m):
                return [m.customerId?.string ?? "", m.requestedId.string] + blank + [m.code]
            case .found(let h):
                guard index >= 0 else { return [h.customerId.string, h.requestedId.string] + blank + [""] }
                let e = h.entries[index]
                return [h.customerId.string, h.requestedId.string, ISODate.format(e.date), e.kind.rawValue, e.type,
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

    /// Every format written entry by entry, the same bytes as `OutputFormat.render` (SPEC section
    /// 7 rev. 4, "Budgets": a history of a whole listing is never one document tree nor one string).
    func write(_ format: OutputFormat, _ style: OutputStyle, to out: (String) -> Void) {
        switch format {
        case .json:
            if asArray {
                guard !histories.isEmpty else { return out("[]\n") }
                out("[\n")
                for (n, asked) in histories.enumerated() {
                    out(n > 0 ? ",\n  " : "  ")
                    writeDocument(asked, level: 1, to: out)
                }
                out("\n]\n")
            } else if let first = histories.first, case .found = first {
                writeDocument(first, level: 0, to: out)
                out("\n")
            }
        case .jsonl:
            for asked in histories {
                switch asked {
                case .missing(let m):
                    if asArray { out(JSONWriter.compact(Documents.missing(m)) + "\n") }
                case .found(let h):
                    for entry in h.entries { out(JSONWriter.compact(Self.line(entry, of: h)) + "\n") }
                }
            }
        case .table:
            writeTable(style, to: out)
        default:  // what the format makes of the rows (tsv, csv: a row at a time) or the document
            format.write(self, style: style, to: out)
        }
    }

    /// One history's JSON document (or a missing customer's) at `level`, its entries one at a time.
    private func writeDocument(_ asked: Asked<CustomerHistory>, level: Int, to out: (String) -> Void) {
        switch asked {
        case .missing(let m):
            out(JSONWriter.pretty(Documents.missing(m), level: level))
        case .found(let h):
            guard case .object(let head) = Documents.history(customerId: h.customerId, requestedId: h.requestedId,
                                                             requestDate: h.requestDate, provider: h.provider,
                                                             incompleteReason: h.incompleteReason, entries: []) else { return }
            JSONWriter.prettyObject(head.members.filter { $0.key != "entries" }, arrayKey: "entries", count: h.entries.count,
                                    element: { Documents.historyEntry(h.entries[$0]) }, level: level, write: out)
        }
    }

    func table(_ style: OutputStyle) -> String {
        var out = ""
        writeTable(style) { out += $0 }
        return out
    }

    private func writeTable(_ style: OutputStyle, to out: (String) -> Void) {
        if let judgedAt { out(style.judged(at: judgedAt)) }
        var first = true
        for case .found(let h) in histories {
            if !first { out("\n") }
            first = false
            var style = style
            style.now = h.requestDate
            if asArray {
                let header = Terminal.escape(h.customerId)
                out(style.color ? "\u{1B}[1m\(header)\u{1B}[0m\n" : header + "\n")
            }
            if h.entries.isEmpty && h.accessEnds.isEmpty {
                out(style.sentence("\(h.customerId): no history"))
            } else {
                table(h, style: style).write(style, to: out)
            }
        }
    }

    /// A customer's timeline as a table whose rows are made when the layout asks for them.
    private func table(_ h: CustomerHistory, style: OutputStyle) -> TextTable {
        var columns = [Column("date", .date), Column("entitlement", .text, softMinimum: 11),
                       Column("what happened", .text, softMinimum: 26)]
        if style.wide {
            // Asked for: never left out (the hints go first, then the table becomes blocks).
            columns += [Column("product", omitWhenEmpty: true), Column("transaction", omitWhenEmpty: true),
                        Column("original", omitWhenEmpty: true), Column("grant", omitWhenEmpty: true)]
        }
        // Entries and milestones by date (both are sorted); a milestone follows the entries of its
        // instant. Each row is an entry's index, or a milestone's as -1 - index.
        var order: [Int] = []
        order.reserveCapacity(h.entries.count + h.accessEnds.count)
        var next = 0
        for (k, end) in h.accessEnds.enumerated() {
            while next < h.entries.count && h.entries[next].date <= end.date {
                order.append(next)
                next += 1
            }
            order.append(-1 - k)
        }
        order += next..<h.entries.count
        let wide = style.wide
        let row = { (r: Int) -> [Cell] in
            let index = order[r]
            guard index >= 0 else {
                let end = h.accessEnds[-1 - index]
                var row = [style.dateCell(end.date), Self.entitlementsCell([end.entitlement]), Cell(Timeline.accessEnded(end), .red)]
                if wide { row += [Cell(""), Cell(""), Cell(""), Cell("")] }
                return row
            }
            let e = h.entries[index]
            var row = [style.dateCell(e.date), Self.entitlementsCell(e.entitlements),
                       Cell(h.timeline.sentence(e), Self.style(of: e))]
            if wide {
                let isGrant = e.kind == .grant
                row += [Cell(e.text("productId") ?? ""), Cell(isGrant ? "" : e.text("transactionId") ?? ""),
                        Cell(e.text("originalTransactionId") ?? ""), Cell(isGrant ? e.text("grantId") ?? "" : "")]
            }
            return row
        }
        return TextTable(columns: columns, rowCount: order.count, row: row, hintsGiveWayAt: 5, hintsDropWhenGivingWay: style.wide)
    }

    private static func entitlementsCell(_ entitlements: [ID]) -> Cell {
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
