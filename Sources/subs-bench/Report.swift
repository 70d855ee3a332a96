// The results: a table on stdout (median, min, max, peak RSS, ratio to jq on the same store),
// the SPEC section 8 targets met or missed, and the same figures in results.json.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON

struct Report {
    let options: BenchOptions
    let subsPath: String
    let big: (store: GeneratedStore, seconds: Double?)
    let small: (store: GeneratedStore, seconds: Double?)
    let rows: [Measurement]
    let validations: [(String, Double)]
    let checkedId: String
    let manyIds: Int
    let rssFloorKiB: Int?

    struct Target {
        let name: String
        /// The measured figure the limit applies to (nil: a row it needs was not measured).
        let value: Double?
        let limit: Double
        let atMost: Bool
        let shown: String
        var met: Bool? { value.map { atMost ? $0 <= limit : $0 >= limit } }
    }

    // MARK: - Figures

    func row(_ key: String) -> Measurement? { rows.first { $0.key == key } }

    func median(_ row: Measurement) -> Double {
        let sorted = row.runs.map(\.seconds).sorted()
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    func peakMB(_ row: Measurement) -> Double {
        Double(row.runs.map(\.peakRSSKiB).max() ?? 0) * 1024 / 1e6
    }

    /// jq's median on the same store divided by this row's: how many times faster than jq.
    func ratioToJq(_ row: Measurement) -> Double? {
        guard let jq = self.row(row.jqKey ?? (row.store == .big ? "jq" : "small-jq")) else { return nil }
        return median(jq) / median(row)
    }

    var checkMBPerSecond: Double? {
        row("check").map { Double(big.store.bytes) / 1e6 / median($0) }
    }

    var targets: [Target] {
        func ratio(_ a: String, _ b: String, _ measure: (Measurement) -> Double) -> Double? {
            guard let x = row(a), let y = row(b) else { return nil }
            return measure(x) / measure(y)
        }
        let speed = row("check").flatMap(ratioToJq)
        let memory = ratio("check", "jq", peakMB)
        let grant = ratio("grant", "check", median)
        let many = ratio("check-many", "check", median)
        let smallStore = ratio("small-check", "small-jq", median)
        return FindRows.targets(self) + [
            Target(name: "check ≥ 20× faster than jq (goal ≥ 40×)", value: speed, limit: 20, atMost: false,
                   shown: speed.map { "\(fixed($0, 1))× faster (goal \($0 >= 40 ? "met" : "missed"))" } ?? "n/a (no jq)"),
            Target(name: "check peak memory ≤ ¼ of jq's", value: memory, limit: 0.25, atMost: true,
                   shown: memory.map { "\(fixed($0, 3)) of jq's (\(fixed(peakMB(row("check")!), 1)) MB vs \(fixed(peakMB(row("jq")!), 1)) MB)" } ?? "n/a (no jq)"),
            Target(name: "grant ≤ 2× check", value: grant, limit: 2, atMost: true,
                   shown: grant.map { "\(fixed($0, 2))× check" } ?? "n/a"),
            Target(name: "check of \(manyIds) ids ≤ 2× check of one", value: many, limit: 2, atMost: true,
                   shown: many.map { "\(fixed($0, 2))× check of one" } ?? "n/a"),
            Target(name: "small store: check ≤ ½ of jq's time", value: smallStore, limit: 0.5, atMost: true,
                   shown: smallStore.map { "\(fixed($0, 3)) of jq's time" } ?? "n/a (no jq)"),
        ]
    }

    // MARK: - Table

    func table() -> String {
        let machine = Machine.current
        var lines: [String] = []
        lines.append("subs-bench (SPEC section 8) on \(machine.summary)")
        lines.append("big store: \(big.store.path), \(formatMB(big.store.bytes)), \(big.store.customers) customers, "
                     + "\(big.store.transactions) transactions, \(big.store.events) events, \(big.store.grants) grants, "
                     + "\(big.store.aliases) aliases" + (big.seconds.map { " (generated in \(formatSeconds($0)))" } ?? " (reused)"))
        lines.append("small store: \(small.store.path), \(formatMB(small.store.bytes)), \(small.store.customers) customers, "
                     + "\(small.store.transactions) transactions")
        lines.append("\(options.runs) runs per command after 1 warm-up, interleaved; SUBS_NOW=\(StoreGenerator.nowText); "
                     + "ID = \(checkedId)")
        lines.append("")
        let header = ["store", "command", "median", "min", "max", "peak RSS", "jq ÷ this"]
        var cells: [[String]] = [header]
        for row in rows {
            let times = row.runs.map(\.seconds)
            cells.append([row.store.rawValue, row.label, formatMs(median(row)), formatMs(times.min() ?? 0),
                          formatMs(times.max() ?? 0), "\(fixed(peakMB(row), 1)) MB",
                          ratioToJq(row).map { "\(fixed($0, 1))×" } ?? "—"])
        }
        let widths = header.indices.map { c in cells.map { $0[c].count }.max() ?? 0 }
        for line in cells {
            let padded = line.enumerated().map { c, text in
                c <= 1 ? text.padded(to: widths[c])
                       : String(repeating: " ", count: widths[c] - text.count) + text
            }
            lines.append(padded.joined(separator: "  "))
        }
        lines.append("")
        if let rate = checkMBPerSecond {
            lines.append("check reads the \(formatMB(big.store.bytes)) store at \(fixed(rate, 0)) MB/s (whole file validated).")
        }
        if let floor = rssFloorKiB {
            lines.append("peak RSS: ru_maxrss from wait4 in a forked relay; `true` shows \(fixed(Double(floor) * 1024 / 1e6, 1)) MB there.")
        }
        for (name, seconds) in validations {
            lines.append("`subs store validate` of the \(name) store: \(formatSeconds(seconds)) (exit 0).")
        }
        lines.append("")
        lines.append("targets:")
        for target in targets {
            let verdict = target.met.map { $0 ? "met   " : "MISSED" } ?? "n/a   "
            lines.append("  \(verdict)  \(target.name.padded(to: 42))  \(target.shown)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - JSON

    func writeJSON(to path: String) throws {
        let machine = Machine.current
        func number(_ x: Double, _ digits: Int) -> JSONValue { .number(fixed(x, digits)) }
        func int(_ n: Int) -> JSONValue { .number(String(n)) }
        func storeJSON(_ s: (store: GeneratedStore, seconds: Double?)) -> JSONValue {
            .object(JSONObject([
                ("path", .string(s.store.path)), ("bytes", int(s.store.bytes)), ("customers", int(s.store.customers)),
                ("transactions", int(s.store.transactions)), ("events", int(s.store.events)),
                ("grants", int(s.store.grants)), ("aliases", int(s.store.aliases)),
                ("generationSeconds", s.seconds.map { number($0, 3) } ?? .null),
            ]))
        }
        let rowsJSON: [JSONValue] = rows.map { row in
            let times = row.runs.map(\.seconds)
            return .object(JSONObject([
                ("key", .string(row.key)), ("command", .string(row.label)), ("store", .string(row.store.rawValue)),
                ("argv", .array(row.arguments.map { .string($0) })),
                ("medianSeconds", number(median(row), 6)), ("minSeconds", number(times.min() ?? 0, 6)),
                ("maxSeconds", number(times.max() ?? 0, 6)), ("peakRSSMB", number(peakMB(row), 1)),
                ("jqTimeOverThis", ratioToJq(row).map { number($0, 2) } ?? .null),
                ("runsSeconds", .array(times.map { number($0, 6) })),
                ("runsPeakRSSKiB", .array(row.runs.map { int($0.peakRSSKiB) })),
            ]))
        }
        let targetsJSON: [JSONValue] = targets.map { t in
            .object(JSONObject([
                ("target", .string(t.name)), ("value", t.value.map { number($0, 3) } ?? .null),
                ("limit", number(t.limit, 2)), ("met", t.met.map { .bool($0) } ?? .null), ("shown", .string(t.shown)),
            ]))
        }
        let document: JSONValue = .object(JSONObject([
            ("tool", .string("subs-bench")),
            ("date", .string(UTCTime.iso(Int64(time(nil))))),
            ("machine", .object(JSONObject([
                ("arch", .string(machine.architecture)), ("cores", int(machine.cores)), ("cpu", .string(machine.cpu)),
                ("memoryMB", int(machine.memoryMB)), ("kernel", .string(machine.kernel)),
            ]))),
            ("parameters", .object(JSONObject([
                ("customers", int(options.customers)), ("seed", .number(String(options.seed))), ("runs", int(options.runs)),
                ("warmups", int(1)), ("subs", .string(subsPath)), ("subsNow", .string(StoreGenerator.nowText)),
                ("customerId", .string(checkedId)), ("manyIds", int(manyIds)),
            ]))),
            ("stores", .object(JSONObject([("big", storeJSON(big)), ("small", storeJSON(small))]))),
            ("checkMBPerSecond", checkMBPerSecond.map { number($0, 1) } ?? .null),
            ("rssFloorMB", rssFloorKiB.map { number(Double($0) * 1024 / 1e6, 1) } ?? .null),
            ("validationSeconds", .object(JSONObject(validations.map { ($0.0, number($0.1, 3)) }))),
            ("rows", .array(rowsJSON)),
            ("targets", .array(targetsJSON)),
        ]))
        try writeText(JSONWriter.pretty(document) + "\n", to: path)
    }
}

// MARK: - Formatting

/// `x` with `digits` decimals (the standard library has no printf; Foundation is not needed for this).
func fixed(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite else { return String(x) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int64((abs(x) * scale).rounded())
    let whole = scaled / Int64(scale)
    var text = (x < 0 && scaled != 0 ? "-" : "") + String(whole)
    if digits > 0 {
        let fraction = String(scaled % Int64(scale))
        text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    return text
}

extension String {
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

func formatMs(_ seconds: Double) -> String { "\(fixed(seconds * 1000, 1)) ms" }
func formatSeconds(_ seconds: Double) -> String { "\(fixed(seconds, 2)) s" }
func formatMB(_ bytes: Int) -> String {
    bytes < 1_000_000 ? formatKB(bytes) : "\(fixed(Double(bytes) / 1e6, 1)) MB"
}
func formatKB(_ bytes: Int) -> String { "\(fixed(Double(bytes) / 1e3, 1)) KB" }

/// What the numbers were measured on.
struct Machine {
    let architecture: String
    let cores: Int
    let cpu: String
    let memoryMB: Int
    let kernel: String

    static let current: Machine = {
        var names = utsname()
        uname(&names)
        func field<T>(_ value: inout T) -> String {
            withUnsafeBytes(of: &value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let cpuinfo = (try? readText("/proc/cpuinfo")) ?? ""
        let cpu = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { String($0).trimmingSpaces() } ?? "unknown"
        let meminfo = (try? readText("/proc/meminfo")) ?? ""
        let kib = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        return Machine(architecture: field(&names.machine), cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpu: cpu,
                       memoryMB: kib * 1024 / 1_000_000, kernel: field(&names.sysname) + " " + field(&names.release))
    }()

    var summary: String {
        "\(architecture), \(cores) cores, \(cpu), \(fixed(Double(memoryMB) / 1000, 1)) GB RAM, \(kernel)"
    }
}
