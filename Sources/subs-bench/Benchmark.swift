// The benchmark plan: generate (or reuse) the stores, then time every command of SPEC section 8
// side by side — one warm-up each (which also checks its exit status and output), then --runs
// rounds that take every command in turn, so a slow moment of the machine hits all of them alike.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON

/// One measured command (a row of the table).
struct Measurement {
    enum Store: String { case big, small }
    /// Stable name in results.json (`check`, `jq`, `small-check`, …).
    let key: String
    let label: String
    let store: Store
    let arguments: [String]
    var stdin: String?
    /// Run before each execution, not timed (a fresh copy of the store for `grant`).
    var prepare: (() throws -> Void)?
    /// The jq row that does the same job (the "jq ÷ this" column); nil: jq's lookup by id.
    var jqKey: String?
    var runs: [ChildRun] = []
}

struct Benchmark {
    let options: BenchOptions
    static let generatorVersion = 2
    static let manyIds = 10_000

    func run() throws {
        let subs = try options.resolvedSubsPath()
        let out = absolute(options.outDirectory)
        if mkdir(out, 0o755) != 0 && errno != EEXIST { throw BenchError("cannot create \(out): \(String(cString: strerror(errno)))") }
        let empty = out + "/empty"
        try writeText("", to: empty)
        let stderrPath = out + "/child-stderr.txt"
        let runner = Runner(environment: Benchmark.childEnvironment(config: empty), relay: try Runner.currentExecutable(),
                            emptyFile: empty, discardFile: out + "/child-stdout.txt", stderrFile: stderrPath,
                            relayAnswerFile: out + "/relay-answer.txt")
        // What a process that does nothing reports as its peak: no row can show less.
        let rssFloorKiB = try Runner.which("true").map { try runner.run([$0]).peakRSSKiB }

        let seed = options.seed
        let tag = "v\(Benchmark.generatorVersion)-\(options.layout.rawValue)"
        let big = try store(customers: options.customers, file: "\(out)/store-\(tag)-c\(options.customers)-s\(seed).json")
        let small = try store(customers: 5, file: "\(out)/small-\(tag)-s\(seed).json")

        var validations: [(String, Double)] = []
        for (name, info) in [("small", small)] + (options.validate ? [("big", big)] : []) {
            let seconds = try validate(info.store.path, subs: subs, runner: runner, out: out)
            note("\(name) store valid (`subs store validate` took \(formatSeconds(seconds)))")
            validations.append((name, seconds))
        }

        if options.serve {
            let scenario = ServeScenario(options: options, subs: subs, runner: runner, out: out, store: big.store)
            let figures = try scenario.run()
            print(figures.table(storeBytes: big.store.bytes, connections: options.connections), terminator: "")
            try writeText(JSONWriter.pretty(figures.json) + "\n", to: out + "/serve.json")
            note("wrote \(out)/serve.json")
        }
        guard options.cli else { return }

        let middle = StoreGenerator.customerId(options.customers / 2, of: options.customers)
        let idsPath = out + "/ids.txt"
        let idCount = try writeSpreadIds(customers: options.customers, to: idsPath)
        let smallId = StoreGenerator.customerId(2, of: 5)
        let copyPath = out + "/grant-copy.json"
        let jq = Runner.which("jq")
        let python = try Runner.which("python3").flatMap { try realPython($0, runner: runner, out: out) }

        var rows: [Measurement] = []
        rows.append(Measurement(key: "check", label: "subs check ID", store: .big,
                                arguments: [subs, "--store", big.store.path, "check", middle]))
        rows.append(Measurement(key: "check-many", label: "subs check - (\(idCount) ids)", store: .big,
                                arguments: [subs, "--store", big.store.path, "check", "-"], stdin: idsPath))
        rows.append(Measurement(key: "grant", label: "subs grant ID premium --duration P1M", store: .big,
                                arguments: [subs, "--store", copyPath, "grant", middle, "premium", "--duration", "P1M"],
                                // A fresh store each run: its journal (from the last run) goes with it.
                                prepare: { try copyFile(big.store.path, to: copyPath); unlink(copyPath + ".journal") }))
        rows.append(Measurement(key: "history", label: "subs history ID", store: .big,
                                arguments: [subs, "--store", big.store.path, "history", middle]))
        let jqFilter = { (id: String) in ".customers[\"\(id)\"]" }
        let pythonProgram = "import json,sys; json.load(open(sys.argv[1]))[\"customers\"][sys.argv[2]]"
        if let jq { rows.append(Measurement(key: "jq", label: "jq '.customers[\"ID\"]'", store: .big, arguments: [jq, jqFilter(middle), big.store.path])) }
        if let python { rows.append(Measurement(key: "python", label: "python3 json.load", store: .big, arguments: [python, "-c", pythonProgram, big.store.path, middle])) }
        rows += FindRows.rows(subs: subs, store: big.store, jq: jq)
        rows.append(Measurement(key: "small-check", label: "subs check ID", store: .small,
                                arguments: [subs, "--store", small.store.path, "check", smallId]))
        if let jq { rows.append(Measurement(key: "small-jq", label: "jq '.customers[\"ID\"]'", store: .small, arguments: [jq, jqFilter(smallId), small.store.path])) }
        if let python { rows.append(Measurement(key: "small-python", label: "python3 json.load", store: .small, arguments: [python, "-c", pythonProgram, small.store.path, smallId])) }
        if jq == nil { note("jq not found on PATH: its rows and the ratios are left out") }
        if python == nil { note("python3 not found on PATH: its rows are left out") }

        // Warm-up: fills the page cache, and proves each command does what it should.
        for i in rows.indices {
            let output = out + "/warmup-\(rows[i].key).txt"
            try rows[i].prepare?()
            let child = try runner.run(rows[i].arguments, stdin: rows[i].stdin, stdout: output)
            try check(child, rows[i], stderrPath: stderrPath, outputPath: output)
        }
        for round in 1...options.runs {
            note("round \(round)/\(options.runs)")
            for i in rows.indices {
                try rows[i].prepare?()
                let child = try runner.run(rows[i].arguments, stdin: rows[i].stdin)
                try check(child, rows[i], stderrPath: stderrPath, outputPath: nil)
                rows[i].runs.append(child)
            }
        }
        unlink(copyPath)
        unlink(copyPath + ".lock")

        let report = Report(options: options, subsPath: subs, big: big, small: small, rows: rows,
                            validations: validations, checkedId: middle, manyIds: idCount, rssFloorKiB: rssFloorKiB)
        print(report.table(), terminator: "")
        let resultsPath = out + "/results.json"
        try report.writeJSON(to: resultsPath)
        note("wrote \(resultsPath)")
    }

    // MARK: - Stores

    /// The store at `file`, generated now, or reused with --keep when a complete one is there.
    private func store(customers: Int, file: String) throws -> (store: GeneratedStore, seconds: Double?) {
        let metaPath = file + ".meta.json"
        if options.keep, access(file, R_OK) == 0, let meta = try? readMeta(metaPath, store: file) {
            note("reusing \(file) (\(formatMB(meta.bytes)))")
            return (meta, nil)
        }
        note("generating \(file) (\(customers) customers, seed \(options.seed))…")
        let started = Runner.monotonicSeconds()
        let generated = try StoreGenerator(customers: customers, seed: options.seed, layout: options.layout).write(to: file)
        let seconds = Runner.monotonicSeconds() - started
        note("  \(formatMB(generated.bytes)), \(generated.transactions) transactions, \(generated.events) events, "
             + "\(generated.grants) grants, \(generated.aliases) aliases in \(formatSeconds(seconds))")
        let meta: JSONValue = .object(JSONObject([
            ("bytes", .number(String(generated.bytes))), ("customers", .number(String(generated.customers))),
            ("transactions", .number(String(generated.transactions))), ("events", .number(String(generated.events))),
            ("grants", .number(String(generated.grants))), ("aliases", .number(String(generated.aliases))),
            ("probeEmail", .string(generated.probeEmail)), ("probeTransactionId", .string(generated.probeTransactionId)),
            ("probeOrderId", .string(generated.probeOrderId)),
        ]))
        try writeText(JSONWriter.pretty(meta) + "\n", to: metaPath)
        return (generated, seconds)
    }

    private func readMeta(_ path: String, store: String) throws -> GeneratedStore {
        let value = try JSON.parse(try readText(path))
        func count(_ key: String) throws -> Int {
            guard case .number(let text)? = value[key], let n = Int(text) else { throw BenchError("\(path): no \(key)") }
            return n
        }
        var info = GeneratedStore(path: store)
        info.bytes = try count("bytes")
        var st = stat()
        guard stat(store, &st) == 0, Int(st.st_size) == info.bytes else { throw BenchError("\(store) changed since it was generated") }
        info.customers = try count("customers")
        info.transactions = try count("transactions")
        info.events = try count("events")
        info.grants = try count("grants")
        info.aliases = try count("aliases")
        func text(_ key: String) throws -> String {
            guard case .string(let text)? = value[key] else { throw BenchError("\(path): no \(key)") }
            return text
        }
        info.probeEmail = try text("probeEmail")
        info.probeTransactionId = try text("probeTransactionId")
        info.probeOrderId = try text("probeOrderId")
        return info
    }

    private func validate(_ path: String, subs: String, runner: Runner, out: String) throws -> Double {
        let output = out + "/validate.txt"
        let child = try runner.run([subs, "--store", path, "store", "validate"], stdout: output)
        guard child.status == 0 else {
            let text = ((try? readText(output)) ?? "") + ((try? readText(out + "/child-stderr.txt")) ?? "")
            throw BenchError("the generated store \(path) is not valid (exit \(child.status)):\n\(text.prefix(2000))")
        }
        return child.seconds
    }

    /// Up to 10 000 customer ids spread evenly over the store, one a line.
    private func writeSpreadIds(customers: Int, to path: String) throws -> Int {
        let count = min(Benchmark.manyIds, customers)
        var text = ""
        for i in 0..<count {
            text += StoreGenerator.customerId(i * customers / count, of: customers) + "\n"
        }
        try writeText(text, to: path)
        return count
    }

    /// The interpreter behind `python3` (pyenv and friends put a shell script shim first on PATH,
    /// whose start-up would be charged to Python).
    private func realPython(_ python: String, runner: Runner, out: String) throws -> String? {
        let output = out + "/python-executable.txt"
        let child = try runner.run([python, "-c", "import sys; print(sys.executable)"], stdout: output)
        guard child.status == 0 else { return nil }
        let path = try readText(output).split(separator: "\n").first.map(String.init) ?? python
        return access(path, X_OK) == 0 ? path : python
    }

    // MARK: - Children

    /// The children's environment: this one without SUBS_* settings, plus a fixed clock, an
    /// empty config file and an actor for `grant`.
    static func childEnvironment(config: String) -> [String] {
        Runner.inheritedEnvironment().filter { !$0.hasPrefix("SUBS_") } + ["SUBS_NOW=\(StoreGenerator.nowText)", "SUBS_CONFIG=\(config)", "SUBS_ACTOR=subs-bench"]
    }

    private func check(_ child: ChildRun, _ row: Measurement, stderrPath: String, outputPath: String?) throws {
        guard child.status == 0 else {
            let errors = (try? readText(stderrPath)) ?? ""
            throw BenchError("`\(row.arguments.joined(separator: " "))` exited with \(child.status):\n\(errors.prefix(2000))")
        }
        if let outputPath {
            let output = try readText(outputPath)
            let trimmed = output.trimmingSpaces()
            // jq prints `null` for a missing key; python prints nothing by design.
            if trimmed == "null" || (trimmed.isEmpty && !row.key.hasSuffix("python")) {
                throw BenchError("`\(row.arguments.joined(separator: " "))` found nothing: output '\(trimmed)'")
            }
        }
    }
}

func note(_ text: String) {
    fputs(text + "\n", stderr)
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] <= 0x20 { start += 1 }
        while end > start, bytes[end - 1] <= 0x20 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
