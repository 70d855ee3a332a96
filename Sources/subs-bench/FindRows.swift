// The `find` rows of the benchmark (SPEC section 8): `subs find` of an email and of a transaction
// id on the big store, beside `check` of one customer and beside what a user would try instead,
// jq's `.customers | to_entries[] | select(...)` over the same file.

struct FindRows {
    static func rows(subs: String, store: GeneratedStore, jq: String?) -> [Measurement] {
        let email = store.probeEmail, transaction = store.probeTransactionId
        var rows = [
            Measurement(key: "find-email", label: "subs find EMAIL", store: .big,
                        arguments: [subs, "--store", store.path, "find", email], jqKey: "jq-find-email"),
            Measurement(key: "find-transaction", label: "subs find TRANSACTION_ID", store: .big,
                        arguments: [subs, "--store", store.path, "find", transaction], jqKey: "jq-find-transaction"),
        ]
        if let jq {
            // What subs find does, in jq: an email in any (ASCII) case, a transaction, original or order id.
            let byEmail = ".customers | to_entries[] | select((.value.attributes.email // \"\" | ascii_downcase) == \"\(email)\") | .key"
            let byTransaction = ".customers | to_entries[] | select(any(.value.transactions[]?; "
                + ".transactionId == \"\(transaction)\" or .originalTransactionId == \"\(transaction)\" or .orderId == \"\(transaction)\")) | .key"
            rows.append(Measurement(key: "jq-find-email", label: "jq '.customers | to_entries[] | select(email)'", store: .big,
                                    arguments: [jq, byEmail, store.path], jqKey: "jq-find-email"))
            rows.append(Measurement(key: "jq-find-transaction", label: "jq '… select(any(.transactions[]; ids))'", store: .big,
                                    arguments: [jq, byTransaction, store.path], jqKey: "jq-find-transaction"))
        }
        return rows
    }

    /// Each find within 1.5× of `check` of one customer, in time and in peak memory.
    static func targets(_ report: Report) -> [Report.Target] {
        guard let check = report.row("check") else { return [] }
        var targets: [Report.Target] = []
        for (key, what) in [("find-email", "find EMAIL"), ("find-transaction", "find TRANSACTION_ID")] {
            guard let row = report.row(key) else { continue }
            let time = report.median(row) / report.median(check)
            let memory = report.peakMB(row) / report.peakMB(check)
            targets.append(Report.Target(name: "\(what) ≤ 1.5× check's time", value: time, limit: 1.5, atMost: true,
                                         shown: "\(fixed(time, 2))× check" + (report.ratioToJq(row).map { ", \(fixed($0, 1))× faster than jq" } ?? "")))
            targets.append(Report.Target(name: "\(what) ≤ 1.5× check's memory", value: memory, limit: 1.5, atMost: true,
                                         shown: "\(fixed(memory, 2))× (\(fixed(report.peakMB(row), 1)) MB vs \(fixed(report.peakMB(check), 1)) MB)"))
        }
        return targets
    }
}
