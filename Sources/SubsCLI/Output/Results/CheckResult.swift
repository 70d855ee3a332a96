// What `check` answers, in every format: one JSON document per USER asked (or the single one),
// TSV rows with `requestedId`, and the table a support agent reads.
//
// Table columns: ENTITLEMENT; STATUS (the state in words, and for an active entitlement what
// happens at the end of the period: renews, won't renew, billing issue, pauses, lifetime);
// UNTIL (`accessEndDate`: when access ends or ended — the end of the paid period, the grace end
// during a billing issue, the refund or revocation date, for a pause the end of the period it
// began at; `-` for lifetime); PRODUCT (with its store, or "manual
// grant"); NOTES (free trial, intro offer, family sharing, offer code, sandbox, more sources);
// `--wide` adds TRANSACTION, ORIGINAL (the chain's original transaction) and GRANT. On a narrow
// terminal STATUS and PRODUCT wrap first; then NOTES goes; then the relative hints move under the
// dates; then PRODUCT goes. With --wide nothing the user asked for goes: after NOTES the hints
// are dropped, and what still does not fit becomes blocks.

import SubsJSON
import SubsSystem
import SubsModel

struct CheckResult: CommandResult {
    var customers: [Asked<CustomerStatus>]
    var activeOnly: Bool
    /// Several USERs or `-`: JSON is an array even for one customer.
    var asArray: Bool
    /// `--at`, when it names an instant other than now: the table says it judged there.
    var judgedAt: Instant?

    var document: JSONOutput {
        let documents = customers.concurrentMap { asked -> JSONValue in
            switch asked {
            case .found(let status): return Documents.check(status, activeOnly: activeOnly)
            case .missing(let missing): return Documents.missing(missing)
            }
        }
        if asArray { return .array(documents) }
        guard case .found? = customers.first, let document = documents.first else { return .nothing }
        return .document(document)
    }

    private func shown(_ status: CustomerStatus) -> [EntitlementInfo] {
        activeOnly ? status.entitlements.filter(\.isActive) : status.entitlements
    }

    /// The first twelve columns keep the places they always had; what tells the story the table
    /// and its sentence tell (SPEC section 4, rev. 4) follows them; `error` stays last.
    static let rowHeaders = ["customerId", "requestedId", "entitlement", "isActive", "state", "renewState", "expirationDate",
                             "productId", "source", "periodType", "grantType", "renewsCount",
                             "accessEndDate", "willRenew", "isSandbox", "gracePeriodExpirationDate", "billingRetryEndDate",
                             "refundedAt", "revokedAt", "revokedBy", "revokeReason",
                             "spent", "payments", "refunded", "spentComplete", "error"]

    /// The customer's `totalSpent` in four cells, repeated on each of its rows as `customerId`
    /// is: `spent` — each currency's amount, `USD 59.94;EUR 9.99` (the payments of unknown price
    /// have none); `payments` and `refunded` — counted over every currency, empty where the
    /// provider does not count them; `spentComplete` — `true`/`false`. All four empty where the
    /// provider cannot tell (`totalSpent: null`).
    static func spentCells(_ spending: Spending?) -> [String] {
        guard let spending else { return ["", "", "", ""] }
        let totals = spending.totals
        let amounts = totals.compactMap { t in
            t.currency.flatMap { c in t.amount.map { "\(c) \(CurrencyCode.format($0, c))" } }
        }
        func sum(_ values: [Int?]) -> String {
            values.contains { $0 == nil } ? "" : String(values.reduce(0) { $0 + $1! })
        }
        return [amounts.joined(separator: ";"), sum(totals.map(\.payments)), sum(totals.map(\.refunded)),
                String(totals.allSatisfy(\.complete))]
    }

    /// One row per entitlement; a customer without any (or not found) still gets one row.
    var rows: Rows {
        let empty = Array(repeating: "", count: Self.rowHeaders.count - 3)
        return Rows(headers: Self.rowHeaders, values: customers.flatMap { asked -> [[String]] in
            switch asked {
            case .missing(let m):
                return [[m.customerId?.string ?? "", m.requestedId.string] + empty + [m.code]]
            case .found(let status):
                let entitlements = shown(status)
                let spent = Self.spentCells(status.spending)
                if entitlements.isEmpty {
                    return [[status.record.id.string, status.requestedId.string] + empty.dropLast(4) + spent + [""]]
                }
                return entitlements.map { e in
                    let date = { (instant: Instant?) in instant.map(ISODate.format) ?? "" }
                    return [status.record.id.string, status.requestedId.string, e.id.string, String(e.isActive), e.state.rawValue,
                            e.renewState.rawValue, date(e.expirationDate), e.productId?.string ?? "", e.source.rawValue,
                            e.periodType.rawValue, e.grantType.rawValue, e.renewsCount.map(String.init) ?? "",
                            date(e.accessEndDate), String(e.willRenew), String(e.isSandbox), date(e.gracePeriodExpirationDate),
                            date(e.billingRetryEndDate), date(e.refundedAt), date(e.state == .revoked ? e.revokedAt : nil),
                            e.revokedBy ?? "", e.revokeReason ?? ""] + spent + [""]
                }
            }
        })
    }

    func table(_ style: OutputStyle) -> String {
        let instant = judgedAt.map(style.judged(at:)) ?? ""
        return instant + customers.compactMap(\.found).concurrentMap { table($0, style: style) }.joined(separator: "\n")
    }

    private func table(_ status: CustomerStatus, style: OutputStyle) -> String {
        var header = Terminal.escape(status.record.id)
        if !status.record.aliases.isEmpty {
            header += "  (aliases: \(status.record.aliases.map { Terminal.escape($0) }.joined(separator: ", ")))"
        }
        var out = style.terminal
            ? TextLayout.wrap(header, columns: max(style.columns, TextTable.narrowest)).map { $0 + "\n" }.joined() : header + "\n"
        if style.color, let end = out.firstIndex(where: { $0 == " " || $0 == "\n" }) {
            out = "\u{1B}[1m" + out[..<end] + "\u{1B}[0m" + out[end...]
        }
        let entitlements = shown(status)
        // The money line closes the customer's block: it is about the customer, not one row.
        let spent = status.spending.flatMap(Wording.spent).map(style.sentence) ?? ""
        if entitlements.isEmpty {
            return out + style.sentence(activeOnly ? "no active entitlements" : "no entitlements") + spent
        }
        out += Self.table(entitlements, style: style).render(style)
        let why = entitlements.compactMap { Explanation.sentence(for: $0) }
        if !why.isEmpty {
            out += "\n" + why.map(style.sentence).joined()
        }
        if !spent.isEmpty { out += (why.isEmpty ? "\n" : "") + spent }
        return out
    }

    static func table(_ entitlements: [EntitlementInfo], style: OutputStyle) -> TextTable {
        // --wide names columns the user asked for: they are never left out (the table wraps,
        // drops NOTES and the relative hints, and as a last resort becomes blocks), nor is PRODUCT.
        var columns = [
            Column("entitlement"),
            Column("status", .text, softMinimum: 11),
            Column("until", .date),
            Column("product", .text, dropRank: style.wide ? nil : 6),
            Column("notes", .text, dropRank: 1, omitWhenEmpty: true),
        ]
        if style.wide {
            columns += [Column("transaction", omitWhenEmpty: true),
                        Column("original", omitWhenEmpty: true),
                        Column("grant", omitWhenEmpty: true)]
        }
        let rows = entitlements.map { e -> [Cell] in
            let product: Cell
            if e.sourceKind == .grant {
                product = Cell("manual grant")
            } else {
                let store = Wording.store(e.source).map { "(\($0))" }
                product = Cell(Wording.product(e.productId, e.source), pieces: [e.productId?.string ?? "?"] + (store.map { [$0] } ?? []))
            }
            var row = [Cell(e.id), Cell(Wording.status(e), Style.of(e.state)), style.dateCell(e.accessEndDate), product,
                       Cell(Wording.notes(e).joined(separator: ", "))]
            if style.wide {
                let p = periodTransaction(e)
                row += [Cell(p?.transactionId.string ?? ""), Cell(p?.originalTransactionId.string ?? ""), Cell(e.grantId?.string ?? "")]
            }
            return row
        }
        return TextTable(columns: columns, rows: rows, hintsGiveWayAt: 5, hintsDropWhenGivingWay: style.wide)
    }

    /// P, the transaction of the period in force (the latest one the entitlement lists).
    static func periodTransaction(_ e: EntitlementInfo) -> Transaction? {
        e.transactions.last { $0.transactionDate == e.lastPurchaseDate } ?? e.transactions.last
    }
}
