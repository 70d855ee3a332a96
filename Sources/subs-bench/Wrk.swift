// wrk (`apt-get install wrk`) as the serve scenario's load generator when it is installed: a
// client written in C with an event loop per thread, faster than the servers it measures, so the
// figures are the servers' own (our blocking load generator is the fallback). It measures subs
// serve and nginx alike in the same run: `wrk -t2 -c16 -d8s --latency`.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What one load run measured, whichever tool ran it.
struct LoadFigures {
    var requests: Int
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double

    init(_ result: LoadResult) {
        requests = result.requests
        requestsPerSecond = result.requestsPerSecond
        p50 = result.percentile(0.5)
        p99 = result.percentile(0.99)
    }

    init(requests: Int, requestsPerSecond: Double, p50: Double, p99: Double) {
        self.requests = requests
        self.requestsPerSecond = requestsPerSecond
        self.p50 = p50
        self.p99 = p99
    }
}

enum Wrk {
    static let threads = 2

    static func find() -> String? { Runner.which("wrk") }

    /// A Lua script for wrk: GETs of random customers (seeded) with the bearer token, or of one path.
    /// `suffix`: what follows the customer id in the path (`/entitlements`).
    static func script(customers: Int?, path: String, suffix: String = "", token: String?, seed: UInt64) -> String {
        let header = token.map { #"{["Authorization"] = "Bearer \#($0)"}"# } ?? "{}"
        guard let customers else {
            return """
                local headers = \(header)
                request = function() return wrk.format("GET", "\(path)", headers) end
                """
        }
        let width = max(6, String(max(customers - 1, 0)).count)
        return """
            local headers = \(header)
            local counter = 0
            setup = function(thread) counter = counter + 1; thread:set("id", counter) end
            init = function(args) math.randomseed(\(seed % 1_000_000) + (id or 0) * 7919) end
            request = function()
              local i = math.random(0, \(customers - 1))
              return wrk.format("GET", string.format("\(path)user_%0\(width)d\(suffix)", i), headers)
            end
            """
    }

    /// Runs wrk against 127.0.0.1:port with `script`; its figures, or an error with its output.
    static func run(_ wrk: String, port: Int, connections: Int, seconds: Double, script: String,
                    scriptPath: String, out: String) throws -> LoadFigures {
        try writeText(script, to: scriptPath)
        let output = out + "/wrk-output.txt"
        let run = try Runner.spawn([wrk, "-t\(threads)", "-c\(connections)", "-d\(Int(seconds.rounded(.up)))s", "--latency",
                                    "-s", scriptPath, "http://127.0.0.1:\(port)"], environment: Runner.inheritedEnvironment(),
                                   stdin: "/dev/null", stdout: output, stderr: out + "/wrk-stderr.txt")
        let text = (try? readText(output)) ?? ""
        guard run.status == 0 else { throw BenchError("wrk exited with \(run.status): \(text.suffix(500))") }
        return try parse(text)
    }

    /// `Requests/sec: N`, `N requests in Ts`, and the 50% / 99% rows of `--latency`.
    static func parse(_ text: String) throws -> LoadFigures {
        if let bad = text.split(separator: "\n").first(where: { $0.contains("Non-2xx or 3xx responses") }) {
            throw BenchError("wrk saw error answers: \(bad.trimmingSpaces())")
        }
        var rate: Double?, requests: Int?, p50: Double?, p99: Double?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), fields.count >= 2 { rate = Double(fields[1]) }
            if fields.count >= 3, fields[1] == "requests", fields[2] == "in" { requests = Int(fields[0]) }
            if fields.count == 2, fields[0] == "50%" { p50 = seconds(fields[1]) }
            if fields.count == 2, fields[0] == "99%" { p99 = seconds(fields[1]) }
        }
        guard let rate, let requests, let p50, let p99 else { throw BenchError("cannot read wrk's output: \(text.suffix(500))") }
        return LoadFigures(requests: requests, requestsPerSecond: rate, p50: p50, p99: p99)
    }

    /// wrk's `812.00us`, `3.12ms`, `1.02s`.
    private static func seconds(_ text: Substring) -> Double? {
        for (unit, scale) in [("us", 1e-6), ("ms", 1e-3), ("s", 1.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }
}
