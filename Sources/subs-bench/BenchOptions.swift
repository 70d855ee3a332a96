// The options of `subs-bench` and their parsing (a handful of flags; no need for the CLI's parser).

#if canImport(Glibc)
import Glibc
#endif

struct BenchOptions {
    var outDirectory = "bench-out"
    var customers = 100_000
    var seed: UInt64 = 42
    var runs = 5
    var subsPath: String?
    var keep = false
    var quick = false
    var validate = false
    var layout = StoreLayout.records
    /// Which scenarios run: the command-line rows, the `subs serve` scenario, or both.
    var cli = true
    var serve = true
    var connections = 16
    var serveSeconds = 8.0

    static let usage = """
        usage: subs-bench [--out DIR] [--customers N] [--seed N] [--runs N] [--subs PATH]
                          [--layout records|pretty] [--keep] [--quick] [--validate]
                          [--only cli|serve] [--connections N] [--seconds N]

          --out DIR        where stores and results.json go (default bench-out/)
          --customers N    customers in the benchmark store (default 100000)
          --seed N         generator seed (default 42)
          --runs N         measured runs of each command, after one warm-up (default 5)
          --subs PATH      the subs binary (default: the one beside subs-bench)
          --layout L       records (default): each transaction, event, grant on one line;
                           pretty: indented throughout like examples/store.json (~1.4× bytes)
          --keep           reuse stores already generated with the same parameters
          --quick          10000 customers and 3 runs, for trying things out
          --validate       run `subs store validate` on the big store too (slow)
          --only S         cli: the command-line rows only; serve: the subs serve
                           scenario only (default: both)
          --connections N  keep-alive connections of the serve scenario's GETs (default 16)
          --seconds N      how long the serve scenario sends GETs (default 8)
        """

    /// Parses the arguments; explicit --customers/--runs win over --quick in any order.
    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var customers: Int?
        var runs: Int?
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchError("\(name) needs a value") }
            return v
        }
        func number(_ name: String, min: Int) throws -> Int {
            let text = try value(name)
            guard let n = Int(text), n >= min else { throw BenchError("\(name): expected a number ≥ \(min), got '\(text)'") }
            return n
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--out": options.outDirectory = try value(argument)
            case "--customers": customers = try number(argument, min: 1)
            case "--seed": options.seed = UInt64(try number(argument, min: 0))
            case "--runs": runs = try number(argument, min: 1)
            case "--subs": options.subsPath = try value(argument)
            case "--layout":
                let text = try value(argument)
                guard let layout = StoreLayout(rawValue: text) else { throw BenchError("--layout: expected records or pretty, got '\(text)'") }
                options.layout = layout
            case "--keep": options.keep = true
            case "--quick": options.quick = true
            case "--validate": options.validate = true
            case "--only":
                let text = try value(argument)
                guard text == "cli" || text == "serve" else { throw BenchError("--only: expected cli or serve, got '\(text)'") }
                options.cli = text == "cli"
                options.serve = text == "serve"
            case "--connections": options.connections = try number(argument, min: 1)
            case "--seconds": options.serveSeconds = Double(try number(argument, min: 1))
            default: throw BenchError("unknown argument '\(argument)'\n\(usage)")
            }
        }
        options.customers = customers ?? (options.quick ? 10_000 : options.customers)
        options.runs = runs ?? (options.quick ? 3 : options.runs)
        return options
    }

    /// The release `subs` beside this executable (both come out of `swift build -c release`).
    func resolvedSubsPath() throws -> String {
        if let subsPath {
            guard let found = Runner.which(subsPath) else { throw BenchError("--subs: no executable at \(subsPath)") }
            return absolute(found)
        }
        let me = try Runner.currentExecutable()
        let directory = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)])
        let path = directory + "/subs"
        try buildSubs(beside: directory)
        guard access(path, X_OK) == 0 else { throw BenchError("no subs binary at \(path): run `swift build -c release` first, or pass --subs PATH") }
        return path
    }

    /// `swift run -c release subs-bench` builds subs-bench only: without this, a missing or stale
    /// `subs` would be measured. Brings the one beside this executable up to date (a no-op
    /// build takes a second or two).
    private func buildSubs(beside directory: String) throws {
        guard let range = directory.firstRange(of: "/.build/"), let swift = Runner.which("swift") else { return }
        let package = String(directory[..<range.lowerBound])
        let configuration = directory.hasSuffix("/release") ? "release" : "debug"
        note("bringing subs up to date (swift build -c \(configuration) --product subs)…")
        let log = "/tmp/subs-bench-build-\(getpid()).log"
        try writeText("", to: log)
        defer { unlink(log) }
        let build = try Runner.spawn([swift, "build", "-c", configuration, "--product", "subs", "--package-path", package],
                                     environment: Runner.inheritedEnvironment(), stdin: log, stdout: log, stderr: log)
        guard build.status == 0 else {
            throw BenchError("swift build of subs failed (exit \(build.status)):\n\((try? readText(log)) ?? "")")
        }
    }
}

/// `path` made absolute against the current directory (children run with their own arguments).
func absolute(_ path: String) -> String {
    if path.hasPrefix("/") { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    return String(cString: buffer) + "/" + path
}
