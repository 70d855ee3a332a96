// The serve scenario (issue 11): `subs serve` on a copy of the big store — GETs of random
// customers over keep-alive connections (requests per second, p50/p99), the server's peak
// memory, 50 grant POSTs sent at one moment against one local `subs grant`, and (on a second
// server) the first GET after a local `subs grant` beside it (issue 29: it must show it) — and nginx
// serving a static file of the size of one answer, measured by the same load generator when
// it is installed. The GETs are sent by wrk when it is installed (`apt-get install wrk
// nginx-light`; see Wrk.swift), else by our own load generator; the table says which.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON

struct ServeScenario {
    let options: BenchOptions
    let subs: String
    let runner: Runner
    let out: String
    let store: GeneratedStore

    static let burstSize = 50

    struct Figures {
        var gets: LoadFigures
        /// GET /v1/customers/ID/entitlements (issue 33): the rules run per request, the check document written.
        var entitlementGets: LoadFigures
        var answerBytes: Int
        var nginx: LoadFigures?
        /// "wrk" or "subs-bench's own load generator".
        var tool: String
        var serverPeakKiB: Int
        var burstSeconds: [Double]
        var localGrantSeconds: [Double]
        /// Per round: from the end of a local `subs grant` beside the server to the end of the
        /// first GET after it, which must show the grant (SPEC section 7, fresh answers).
        var outsideWriteGetSeconds: [Double]
        var outsideWritePeakKiB: Int
    }

    func run() throws -> Figures {
        let copy = out + "/serve-copy.json"
        try copyFile(store.path, to: copy)
        defer { unlink(copy); unlink(copy + ".lock") }
        let customers = store.customers
        let seed = options.seed

        // One local grant on a copy of the same store, the yardstick of the burst.
        var localGrantSeconds: [Double] = []
        let localCopy = out + "/grant-copy.json"
        for round in 0...options.runs {
            try copyFile(store.path, to: localCopy)
            let child = try runner.run([subs, "--store", localCopy, "grant", StoreGenerator.customerId(customers / 3, of: customers),
                                        "premium", "--duration", "P1M"])
            guard child.status == 0 else { throw BenchError("local subs grant exited with \(child.status)") }
            if round > 0 { localGrantSeconds.append(child.seconds) }
        }
        unlink(localCopy)
        unlink(localCopy + ".lock")

        let port = try LoadGenerator.freePort()
        note("serve: starting subs serve on 127.0.0.1:\(port) over \(copy)…")
        // With a bearer token, as a server shared by a team runs.
        let token = "subs-bench-token-\(seed)"
        // A secret file: serve refuses one that others may read.
        try writeText(token + "\n", to: out + "/serve-token.txt", mode: 0o600)
        let server = try runner.start([subs, "--store", copy, "serve", "--listen", "127.0.0.1:\(port)",
                                       "--token-file", out + "/serve-token.txt"],
                                      stderr: out + "/serve-stderr.txt")
        var stopped = false
        defer { if !stopped { _ = try? server.stop() } }
        try LoadGenerator.waitForListener(port: port, timeout: 300) { kill(server.relayPid, 0) == 0 }

        let connections = options.connections
        let path: @Sendable (Int, Int) -> String = { thread, n in
            var random = SplitMix64(seed: seed &+ UInt64(thread) &* 1_000_003 &+ UInt64(n))
            return "/v1/customers/" + StoreGenerator.customerId(Int(random.next() % UInt64(customers)), of: customers)
        }
        let authorization = "Authorization: Bearer \(token)\r\n"
        let sample = try HTTPConnection(port: port).exchange(Array("GET \(path(0, 0)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)\r\n".utf8))
        guard sample.status == 200 else { throw BenchError("GET \(path(0, 0)) answered \(sample.status)") }
        let wrk = Wrk.find()
        let tool = wrk == nil ? "subs-bench's own load generator (wrk not found: apt-get install wrk)" : "wrk -t\(Wrk.threads) -c\(connections)"
        note("serve: warm-up (1 s), then GETs for \(options.serveSeconds) s over \(connections) connections by \(tool)…")
        let gets: LoadFigures
        if let wrk {
            let script = Wrk.script(customers: customers, path: "/v1/customers/", token: token, seed: seed)
            _ = try Wrk.run(wrk, port: port, connections: connections, seconds: 1, script: script, scriptPath: out + "/wrk-subs.lua", out: out)
            gets = try Wrk.run(wrk, port: port, connections: connections, seconds: options.serveSeconds, script: script,
                               scriptPath: out + "/wrk-subs.lua", out: out)
        } else {
            _ = try LoadGenerator.run(port: port, connections: connections, seconds: 1, headers: authorization, path: path)
            gets = LoadFigures(try LoadGenerator.run(port: port, connections: connections, seconds: options.serveSeconds,
                                                     headers: authorization, path: path))
        }
        // The same customers' entitlements: what an app asks (the status route), by the same tool.
        note("serve: GET /v1/customers/ID/entitlements for \(options.serveSeconds) s…")
        let entitlementGets: LoadFigures
        if let wrk {
            let script = Wrk.script(customers: customers, path: "/v1/customers/", suffix: "/entitlements", token: token, seed: seed)
            entitlementGets = try Wrk.run(wrk, port: port, connections: connections, seconds: options.serveSeconds, script: script,
                                          scriptPath: out + "/wrk-subs-entitlements.lua", out: out)
        } else {
            let statusPath: @Sendable (Int, Int) -> String = { thread, n in path(thread, n) + "/entitlements" }
            entitlementGets = LoadFigures(try LoadGenerator.run(port: port, connections: connections, seconds: options.serveSeconds,
                                                                headers: authorization, path: statusPath))
        }

        note("serve: \(ServeScenario.burstSize) concurrent grant POSTs, \(options.runs) rounds…")
        var burstSeconds: [Double] = []
        for round in 0..<options.runs {
            let requests = (0..<ServeScenario.burstSize).map { i -> [UInt8] in
                let id = StoreGenerator.customerId((i * customers / ServeScenario.burstSize + round) % customers, of: customers)
                let body = #"{"entitlement": "premium", "expirationDate": null, "reason": "subs-bench \#(round)"}"#
                return Array(("POST /v1/customers/\(id)/grants HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)Content-Type: application/json\r\n"
                              + "Content-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
            }
            burstSeconds.append(try LoadGenerator.burst(port: port, requests: requests, expected: 201))
        }
        let serverRun = try server.stop()
        stopped = true
        guard serverRun.status == 0 else {
            throw BenchError("subs serve exited with \(serverRun.status) after SIGTERM: \((try? readText(out + "/serve-stderr.txt"))?.suffix(1000) ?? "")")
        }
        let outside = try measureOutsideWrites(copy: copy, token: token)
        let nginx = try measureNginx(answerBytes: sample.body.count, connections: connections, wrk: wrk)
        return Figures(gets: gets, entitlementGets: entitlementGets, answerBytes: sample.body.count, nginx: nginx, tool: tool, serverPeakKiB: serverRun.peakRSSKiB,
                       burstSeconds: burstSeconds, localGrantSeconds: localGrantSeconds,
                       outsideWriteGetSeconds: outside.seconds, outsideWritePeakKiB: outside.peakKiB)
    }

    /// Another program writes the store beside a server of its own (so that the GET figures
    /// above are those of a server that only served): per round, a local `subs grant`, then the
    /// first GET after it, which must show the grant — how long it takes is the cost of fresh
    /// answers (one scan of the new file); and that server's peak memory.
    private func measureOutsideWrites(copy: String, token: String) throws -> (seconds: [Double], peakKiB: Int) {
        let customers = store.customers
        let port = try LoadGenerator.freePort()
        note("serve: a local subs grant beside a second server, then the first GET after it, \(options.runs) rounds…")
        let server = try runner.start([subs, "--store", copy, "serve", "--listen", "127.0.0.1:\(port)",
                                       "--token-file", out + "/serve-token.txt"], stderr: out + "/serve-outside-stderr.txt")
        var stopped = false
        defer { if !stopped { _ = try? server.stop() } }
        try LoadGenerator.waitForListener(port: port, timeout: 300) { kill(server.relayPid, 0) == 0 }
        let authorization = "Authorization: Bearer \(token)\r\n"
        var seconds: [Double] = []
        let outsider = StoreGenerator.customerId(customers / 2 + 1, of: customers)
        let probe = try HTTPConnection(port: port)
        for round in 0..<options.runs {
            let reason = "subs-bench outside \(round)"
            let child = try runner.run([subs, "--store", copy, "grant", outsider, "premium", "--duration", "P1M", "--reason", reason])
            guard child.status == 0 else { throw BenchError("local subs grant beside the server exited with \(child.status)") }
            let start = Runner.monotonicSeconds()
            let answer = try probe.exchange(Array("GET /v1/customers/\(outsider) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)\r\n".utf8))
            seconds.append(Runner.monotonicSeconds() - start)
            guard answer.status == 200, String(decoding: answer.body, as: UTF8.self).contains(reason) else {
                throw BenchError("the first GET after a local grant beside the server did not show it (HTTP \(answer.status))")
            }
        }
        let run = try server.stop()
        stopped = true
        guard run.status == 0 else { throw BenchError("the second subs serve exited with \(run.status) after SIGTERM") }
        return (seconds, run.peakRSSKiB)
    }

    /// nginx (when installed) serving a file of `answerBytes` bytes, by the same load generator.
    private func measureNginx(answerBytes: Int, connections: Int, wrk: String?) throws -> LoadFigures? {
        guard let nginx = Runner.which("nginx") ?? Runner.which("/usr/sbin/nginx") else {
            note("nginx not found: its row and the ratio are left out (apt-get install nginx-light)")
            return nil
        }
        let prefix = out + "/nginx"
        _ = mkdir(prefix, 0o755)
        _ = mkdir(prefix + "/root", 0o755)
        try writeText(String(repeating: "x", count: answerBytes), to: prefix + "/root/customer.json")
        let port = try LoadGenerator.freePort()
        // As many workers as cores, no logging: nginx at its best for a small static file.
        let conf = """
            worker_processes auto;
            daemon off;
            master_process on;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log;
            events { worker_connections 1024; }
            http {
                access_log off;
                keepalive_requests 1000000;
                client_body_temp_path \(prefix)/tmp;
                proxy_temp_path \(prefix)/tmp;
                fastcgi_temp_path \(prefix)/tmp;
                uwsgi_temp_path \(prefix)/tmp;
                scgi_temp_path \(prefix)/tmp;
                server {
                    listen 127.0.0.1:\(port);
                    root \(prefix)/root;
                }
            }
            """
        try writeText(conf, to: prefix + "/nginx.conf")
        note("serve: nginx on 127.0.0.1:\(port), a static file of \(answerBytes) bytes…")
        let server = try runner.start([nginx, "-p", prefix, "-c", prefix + "/nginx.conf"], stderr: prefix + "/stderr.txt")
        defer { _ = try? server.stop() }
        try LoadGenerator.waitForListener(port: port, timeout: 30) { kill(server.relayPid, 0) == 0 }
        if let wrk {
            let script = Wrk.script(customers: nil, path: "/customer.json", token: nil, seed: 0)
            _ = try Wrk.run(wrk, port: port, connections: connections, seconds: 1, script: script, scriptPath: out + "/wrk-nginx.lua", out: out)
            return try Wrk.run(wrk, port: port, connections: connections, seconds: options.serveSeconds, script: script,
                               scriptPath: out + "/wrk-nginx.lua", out: out)
        }
        _ = try LoadGenerator.run(port: port, connections: connections, seconds: 1) { _, _ in "/customer.json" }
        return LoadFigures(try LoadGenerator.run(port: port, connections: connections, seconds: options.serveSeconds) { _, _ in "/customer.json" })
    }
}

extension ServeScenario.Figures {
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }

    var burstToLocal: Double { Self.median(burstSeconds) / Self.median(localGrantSeconds) }
    var toNginx: Double? { nginx.map { gets.requestsPerSecond / $0.requestsPerSecond } }

    func table(storeBytes: Int, connections: Int) -> String {
        func ms(_ s: Double) -> String { String(format: "%.2f ms", s * 1000) }
        func verdict(_ met: Bool) -> String { met ? "met" : "MISSED" }
        var lines = ["", "subs serve (\(connections) keep-alive connections, GETs of random customers, \(answerBytes)-byte answers)",
                     "  load by \(tool)"]
        func row(_ label: String, _ load: LoadFigures) -> String {
            label + String(format: "%9.0f req/s", load.requestsPerSecond)
                + "   p50 \(ms(load.p50))   p99 \(ms(load.p99))   (\(load.requests) requests)"
        }
        lines.append(row("  GET /v1/customers/ID   ", gets))
        lines.append(row("  GET …/ID/entitlements  ", entitlementGets))
        if let nginx { lines.append(row("  nginx, static file     ", nginx)) }
        let peakMB = Double(serverPeakKiB) * 1024 / 1e6
        lines.append(String(format: "  server peak memory     %.1f MB (store %.1f MB)", peakMB, Double(storeBytes) / 1e6))
        lines.append("  \(ServeScenario.burstSize) concurrent grant POSTs   \(ms(Self.median(burstSeconds))) (median of \(burstSeconds.count)); "
                     + "one local subs grant \(ms(Self.median(localGrantSeconds)))")
        lines.append("  first GET after a local grant beside the server   \(ms(Self.median(outsideWriteGetSeconds))) "
                     + "(median of \(outsideWriteGetSeconds.count), max \(ms(outsideWriteGetSeconds.max() ?? 0)); it showed the grant)")
        lines.append(String(format: "  that server's peak memory   %.1f MB", Double(outsideWritePeakKiB) * 1024 / 1e6))
        lines.append("targets:")
        if let toNginx {
            lines.append(String(format: "  throughput ≥ 0.5 of nginx's (same tool, same run): %.2f — ", toNginx) + verdict(toNginx >= 0.5))
        } else {
            lines.append("  throughput ≥ 0.5 of nginx's: not measured (no nginx: apt-get install nginx-light)")
        }
        lines.append("  p99 < 5 ms: \(ms(gets.p99)) — \(verdict(gets.p99 < 0.005))")
        lines.append(String(format: "  server memory < ¼ of the store: %.2f of it — ", peakMB * 1e6 / Double(storeBytes))
                     + verdict(peakMB * 1e6 < Double(storeBytes) / 4))
        lines.append(String(format: "  50 grants ≤ 3× one grant: %.2f× — ", burstToLocal) + verdict(burstToLocal <= 3))
        return lines.joined(separator: "\n") + "\n"
    }

    var json: JSONValue {
        func number(_ x: Double) -> JSONValue { .number(String(format: "%.6f", x)) }
        var fields: [(String, JSONValue)] = [
            ("loadTool", .string(tool)),
            ("requestsPerSecond", number(gets.requestsPerSecond)), ("p50Seconds", number(gets.p50)),
            ("p99Seconds", number(gets.p99)), ("requests", .number(String(gets.requests))),
            ("entitlementsRequestsPerSecond", number(entitlementGets.requestsPerSecond)),
            ("entitlementsP50Seconds", number(entitlementGets.p50)), ("entitlementsP99Seconds", number(entitlementGets.p99)),
            ("answerBytes", .number(String(answerBytes))), ("serverPeakKiB", .number(String(serverPeakKiB))),
            ("burstSeconds", .array(burstSeconds.map(number))), ("localGrantSeconds", .array(localGrantSeconds.map(number))),
            ("outsideWriteGetSeconds", .array(outsideWriteGetSeconds.map(number))),
            ("outsideWritePeakKiB", .number(String(outsideWritePeakKiB))),
        ]
        if let nginx {
            fields.append(("nginxRequestsPerSecond", number(nginx.requestsPerSecond)))
            fields.append(("nginxP99Seconds", number(nginx.p99)))
            fields.append(("ratioToNginx", number(gets.requestsPerSecond / nginx.requestsPerSecond)))
        }
        return .object(JSONObject(fields))
    }
}
