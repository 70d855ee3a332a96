// `subs serve`: the local store over the subs REST API (SPEC section 6), on our own HTTP/1.1
// server. One log line per request on stderr; SIGINT/SIGTERM stop it after the requests in flight.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsSystem
import SubsHTTP
import SubsStore
import SubsServer

extension CommandName {
    static let serve = CommandName("serve")
}

extension CommandLineSpec.Options {
    static let listen = OptionSpec("listen", kind: .hostPort, valueName: "HOST:PORT",
                                   defaultValue: "127.0.0.1:8787", help: "Address to listen on")
    static let tokenFile = OptionSpec("token-file", kind: .file, valueName: "PATH",
                                      help: "File of the bearer tokens clients send: NAME SCOPES TOKEN lines, or one token")
}

enum ServeCommand {
    private typealias Options = CommandLineSpec.Options

    static let spec = CommandSpec(
        .serve, abstract: "Serve the local store over the subs REST API",
        discussion: "Serves GET /v1/customers/ID (the record), GET /v1/customers/ID/entitlements, /history and "
            + "/renew-count (the documents check, history and renew-count print, at ?at=DATE), "
            + "GET /v1/customers?search=TERM, POST /v1/customers/ID/grants, "
            + "POST /v1/customers/ID/entitlements/E/revoke, GET /v1/health, GET /v1/openapi.json (the OpenAPI "
            + "description of every route) and GET /v1 (the routes) over HTTP/1.1. "
            + "Binds 127.0.0.1 by default and refuses a non-loopback address without a token "
            + "(--token-file: one NAME SCOPES TOKEN line per person, scopes read, write and admin, or one bare "
            + "token; or the token itself in SUBS_SERVER_TOKEN). Writes are recorded under the token's name. "
            + "One log line per request on stderr, with the request id every answer carries in "
            + "Subs-Request-Id; SIGINT or SIGTERM stop it after the requests in flight.",
        options: [Options.listen, Options.tokenFile],
        exitStatuses: CommandExitStatuses([
            (.success, "Stopped by SIGINT or SIGTERM after the requests in flight"),
            (.usage, "A non-loopback {flag:--listen} without a token, or a bad option"),
            (.unavailable, "The address cannot be listened on"),
        ]),
        examples: [Example("subs serve --listen 127.0.0.1:8787 --token-file token.txt", "Serve the store to subs --remote clients")],
        run: { try run($0, $1) })

    /// What serve's writes wait for the store lock unless SUBS_LOCK_TIMEOUT says: half the
    /// client's default --timeout (10 s).
    static let lockWait: Double = 5

    static func run(_ invocation: Invocation, _ context: Context) throws -> ExitCode {
        let (host, port) = invocation.hostPort(Options.listen) ?? ("127.0.0.1", 8787)
        let tokens = try serverTokens(invocation, context)
        if tokens == nil, !HTTPServer.isLoopback(host: host) {
            throw UsageError("serve: listening on \(Terminal.quoted(host)) needs a token (--token-file or SUBS_SERVER_TOKEN): "
                             + "without one, only loopback addresses are served", command: .serve)
        }
        let path = Commands.storePath(invocation, context)
        // A write waits for the lock less than a client with the default --timeout waits for its
        // answer, so that a busy store reaches it as 503 busy (exit 75), not as a timeout (69).
        let store = LocalStore(path: path, lockTimeout: invocation.global.lockTimeout ?? Self.lockWait,
                               writePause: invocation.global.writePause)
        // Indexes and searches are built on whichever worker took the request: with an arena
        // per thread, glibc kept what each one freed (90 MB after eight large searches).
        Heap.limitArenas(2)
        let api = SubsAPI(store: store, tokens: tokens, clock: context.clock)
        // A store that cannot be served is said now, not at the first request (and one that is
        // not a regular file, a FIFO, is refused without waiting for a writer).
        try api.prepare()
        let log = RequestLog(context.writeErr)
        let server = HTTPServer(configuration: .subsAPI(host: host, port: port), log: { entry in
            log.say(Terminal.message("subs: \(entry.method) \(entry.path) \(entry.status) \(entry.durationMs)ms"
                                     + (entry.requestId.map { " " + $0 } ?? "")) + "\n")
        }, inline: { api.answerWithoutWaiting($0) }, handler: { api.handle($0) })
        do {
            try server.start()
        } catch {
            throw CommandFailure(.unavailable, "serve: cannot listen on \(host):\(port): \(error)")
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        context.writeErr(Terminal.message("subs: serving \(path) on http://\(shownHost):\(server.port)") + "\n")
        context.waitForStop(server.port)
        server.stop()
        server.wait()
        log.drain(within: 1)
        return .success
    }

    /// The bearer token: `--token-file` (its first line), else `SUBS_SERVER_TOKEN`; nil: none.
    /// The token file is a secret file: the user's own (or root's), unreadable to others (77).
    /// The tokens `--token-file` holds (`NAME SCOPES TOKEN` lines, or one bare token), else
    /// SUBS_SERVER_TOKEN as the token `default` with every scope; nil: none.
    private static func serverTokens(_ invocation: Invocation, _ context: Context) throws -> ServeTokens? {
        if let file = invocation.text(Options.tokenFile) {
            let fd = try SecretFile.open(file, kind: .serverToken)
            defer { close(fd) }
            guard let bytes = readAll(fd: fd, limit: 1 << 16)?.bytes else {
                throw CommandFailure(.permissionDenied, "serve: cannot read token file \(Terminal.quoted(file))")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CommandFailure(.configError, "serve: token file \(Terminal.quoted(file)) is not UTF-8 text")
            }
            do {
                return try ServeTokens.parse(text)
            } catch {
                throw CommandFailure(.configError, "serve: token file \(Terminal.quoted(file)): \(Terminal.escape(error.description))")
            }
        }
        return invocation.global.serverToken.map { ServeTokens([.single($0)]) }
    }
}

final class RequestLog: @unchecked Sendable {
    static let bound = 1 << 20
    private let write: (String) -> Void
    private let condition = NSCondition()
    private var queued: [String] = []
    private var queuedBytes = 0
    private var dropped = 0
    private var writing = false

    init(_ write: @escaping (String) -> Void) {
        self.write = write
        let thread = Thread { [self] in run() }
        thread.name = "subs serve log"
        thread.start()
    }

    func say(_ line: String) {
        condition.lock()
        defer { condition.unlock() }
        guard queuedBytes + line.utf8.count <= Self.bound else {
            dropped += 1
            return
        }
        queued.append(line)
        queuedBytes += line.utf8.count
        // Only the first line of a batch wakes the writer (which then takes every line waiting).
        if queued.count == 1 { condition.broadcast() }
    }

    /// Waits until what was said is written, at most `seconds` (a stuck standard error must not
    /// keep the server from stopping).
    func drain(within seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !queued.isEmpty || dropped > 0 || writing {
            guard condition.wait(until: deadline) else { return }
        }
    }

    private func run() {
        while true {
            condition.lock()
            while queued.isEmpty && dropped == 0 { condition.wait() }
            let lines = queued
            let lost = dropped
            queued = []
            queuedBytes = 0
            dropped = 0
            writing = true
            condition.unlock()
            if !lines.isEmpty { write(lines.joined()) }
            if lost > 0 { write("subs: \(lost) log lines dropped: standard error was not being read\n") }
            condition.lock()
            writing = false
            condition.broadcast()
            condition.unlock()
        }
    }
}
