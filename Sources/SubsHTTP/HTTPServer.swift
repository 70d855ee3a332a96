// The HTTP/1.1 server engine under `subs serve`: one event-loop thread accepts connections,
// reads every byte and writes every answer, non-blocking (so slow, idle or never-reading clients
// never hold a worker); a bounded pool of worker threads runs the handler and hands the answer's
// bytes back to the loop. Each connection is an `HTTPConnection` state machine; the loop does
// the socket calls it asks for. Every refusal is an answer and a close; nothing a client sends
// stops the server.
// Decisions: beyond `maxConnections` a new connection is accepted, answered 503 and closed (no
// queue); an unfinished request past `requestTimeout` is answered 408 and closed; an idle
// keep-alive connection is closed silently after `idleTimeout`. Unsent answer bytes are bounded
// per connection (at the bound its next request is not read until the client reads; bytes not
// taken within `writeTimeout` close it) and in total: past `maxUnsentBytes` the connection
// holding the most unsent bytes is closed (shed), again until the total is back under the
// bound. Request bodies are bounded in total too (`maxRequestBodyBytes`): a body that would pass
// the bound waits, unread, for answers to give bytes back (never a 503: the client's request is
// taken in its turn). Bytes are bounded, never peers: many clients may share one address.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct HTTPServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 asks the system for a free port; `HTTPServer.port` tells which.
    public var port = 8787
    /// The answer header whose value the request log carries (`Subs-Request-Id`); nil: none.
    public var requestIdHeader: String? = nil
    /// Worker threads. Many more than cores: a handler may wait (in `subs serve` a POST waits in
    /// a worker for its group commit: 50 concurrent grants, 2 rewrites).
    public var workerCount = max(64, 4 * ProcessInfo.processInfo.activeProcessorCount)
    /// Open connections at most (idle, reading or being answered); more are answered 503.
    public var maxConnections = 256
    /// Seconds a keep-alive connection may wait for its next request.
    public var idleTimeout = 30.0
    /// Seconds a client has to send a whole request (header and body) once it has begun.
    public var requestTimeout = 10.0
    /// Seconds the client has to take each chunk of its unsent answers (at most 64 KiB of small
    /// answers, or one larger answer); a client that does not read is closed then.
    public var writeTimeout = 10.0
    /// Bytes of answers one connection may have waiting for its client to read: at this bound
    /// its next request is not read (nor handled) until the client reads. One answer may pass it.
    public var maxUnsentBytesPerConnection = 256 * 1024
    /// Unsent bytes of all connections together: past this, the connection holding the most is
    /// closed, until the total is back under it.
    public var maxUnsentBytes = 32 * 1024 * 1024
    /// Bytes of request bodies all connections together may hold, from the moment a request's
    /// head announces its body until its answer is made (being received, queued, or with the
    /// handler). A body that would pass it is not read (its connection waits, in order of
    /// arrival, without its request timeout running) until answers give bytes back; one body is
    /// always let through when none is held, however large (`limits.maxBodyBytes` bounds it).
    public var maxRequestBodyBytes = 32 * 1024 * 1024
    /// The kernel's send buffer of each connection (SO_SNDBUF; Linux doubles it): what a client
    /// that does not read holds in the kernel besides our own bound. nil: the system's
    /// autotuning (up to `net.ipv4.tcp_wmem`'s maximum, 4 MiB by default).
    public var socketSendBuffer: Int32? = 256 * 1024
    /// Seconds `stop()` waits for requests in flight.
    public var shutdownTimeout = 5.0
    public var limits = HTTPLimits()
    /// The answer to a request the engine refuses itself (`HTTPRefusal`): the application's
    /// error body (`subs serve`: its `{"error": {...}}` envelope). Called on any thread.
    public var refusalResponse: HTTPRefusal.Response = HTTPRefusal.plainText

    public init(host: String = "127.0.0.1", port: Int = 8787) {
        self.host = host
        self.port = port
    }
}

/// What the engine reports per answered request. Never headers (they carry tokens), never the query.
public struct HTTPRequestLog: Sendable, Equatable {
    public var method: String
    public var path: String
    public var status: Int
    public var durationMs: Int
    /// The answer's request id (the header `HTTPServerConfiguration.requestIdHeader` names), when it has one.
    public var requestId: String? = nil
}

/// What the event loop reports about its connections (updated once per turn of the loop).
public struct HTTPServerStatistics: Sendable, Equatable {
    /// Open connections (reading, with a request at the handler, writing or closing).
    public var connections = 0
    /// Answer bytes queued for clients and not written yet, all connections together.
    public var unsentBytes = 0
    /// The most `unsentBytes` has been after a shed (one answer may pass the bound for a moment).
    public var peakUnsentBytes = 0
    /// Connections closed because the total of unsent bytes passed `maxUnsentBytes`.
    public var shedConnections = 0
    /// Request body bytes held now (granted, received, or with the handler), and the most they
    /// have been: never past `maxRequestBodyBytes`, but for one body when none other is held.
    public var requestBodyBytes = 0
    public var peakRequestBodyBytes = 0
    /// Connections whose body waits for room under `maxRequestBodyBytes`.
    public var waitingForBody = 0
}

public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Answers a request on the event-loop thread when that needs no waiting; nil hands it to a
    /// worker (`Handler`). Must never block: no lock held long, no scan, no pipe or socket.
    public typealias InlineHandler = @Sendable (HTTPRequest) -> HTTPResponse?
    /// Called with each request's line from the event loop and from workers: it must never
    /// block (a log that is not read must stall neither); `subs serve` queues the lines for a
    /// writer thread of its own.
    public typealias Logger = @Sendable (HTTPRequestLog) -> Void

    public let configuration: HTTPServerConfiguration
    /// The port listened on (the one the system chose when the configuration said 0).
    public private(set) var port = 0

    private let handler: Handler
    let inline: InlineHandler?
    private let logger: Logger?

    var listenFD: Int32 = -1
    var wakeRead: Int32 = -1
    private var wakeWrite: Int32 = -1

    // Shared between the event loop and the workers, under `condition`.
    let condition = NSCondition()
    var jobs: [(HTTPEventLoop.Client, HTTPRequest, Int64)] = []
    var returned: [(HTTPEventLoop.Client, bytes: [UInt8], keepAlive: Bool)] = []
    var published = HTTPServerStatistics()
    var stopping = false
    private var started = false
    var loopFinished = false
    private var workersExit = false
    private var runningWorkers = 0

    /// The event loop's figures as of its last turn.
    public var statistics: HTTPServerStatistics {
        condition.lock()
        defer { condition.unlock() }
        return published
    }

    /// True for loopback addresses (`Loopback.isLoopback`: 127.0.0.0/8, ::1, ::ffff:127.x,
    /// `localhost`): `serve` needs a token elsewhere.
    public static func isLoopback(host: String) -> Bool { Loopback.isLoopback(host: host) }

    /// `handler` is called from several worker threads at once; so is `log`. `inline`, when
    /// given, is tried first for every request, on the event-loop thread (GETs answered there
    /// cost no hand-off to a worker).
    public init(configuration: HTTPServerConfiguration, log: Logger? = nil, inline: InlineHandler? = nil,
                handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = log
        self.inline = inline
        self.handler = handler
    }

    /// Binds and listens, then serves on background threads until `stop()`.
    public func start() throws(HTTPServerError) {
        condition.lock()
        guard !started else { condition.unlock(); return }
        started = true
        condition.unlock()
        let (fd, bound) = try ServerSocket.listen(host: configuration.host, port: configuration.port, backlog: 128)
        listenFD = fd
        port = bound
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw .system("cannot create the server's wake-up pipe: \(ServerSocket.errorText(errno))")
        }
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        for fd in pipeFDs { ServerSocket.setNonBlocking(fd); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let workers = max(1, configuration.workerCount)
        runningWorkers = workers
        for i in 0..<workers {
            let thread = Thread { [self] in workerLoop() }
            thread.name = "subs-http-worker-\(i)"
            thread.start()
        }
        let loop = Thread { [self] in HTTPEventLoop(server: self).run() }
        loop.name = "subs-http-loop"
        loop.start()
    }

    /// Stops accepting, closes idle connections, lets requests in flight finish (at most
    /// `shutdownTimeout`), and returns. Safe to call more than once and from any thread.
    public func stop() {
        condition.lock()
        guard started, !stopping else {
            // A second caller waits for the first one's shutdown like `wait()` does.
            while started && !workersExit { condition.wait() }
            condition.unlock()
            return
        }
        stopping = true
        condition.unlock()
        wake()
        let limit = Date().addingTimeInterval(configuration.shutdownTimeout + 1)
        condition.lock()
        while !loopFinished && condition.wait(until: limit) {}
        workersExit = true
        condition.broadcast()
        while runningWorkers > 0 && condition.wait(until: limit) {}
        let allDone = runningWorkers == 0 && loopFinished
        condition.broadcast()
        condition.unlock()
        if allDone {
            close(wakeRead)
            close(wakeWrite)
        }
    }

    /// Blocks until `stop()` has finished (from another thread or a signal handler's queue).
    public func wait() {
        condition.lock()
        while !(workersExit && (runningWorkers == 0 || loopFinished)) { condition.wait() }
        condition.unlock()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    func log(_ method: String, _ path: String, _ status: Int, since start: Int64, answer: HTTPResponse? = nil) {
        logger?(entry(method, path, status, since: start, answer: answer))
    }

    func entry(_ method: String, _ path: String, _ status: Int, since start: Int64, answer: HTTPResponse? = nil) -> HTTPRequestLog {
        var entry = HTTPRequestLog(method: method, path: path, status: status, durationMs: Int(max(0, ServerSocket.nowMs() - start)))
        if let name = configuration.requestIdHeader, let answer {
            entry.requestId = answer.headers.last { $0.0.lowercased() == name.lowercased() }?.1
        }
        return entry
    }

    /// Lines of the event loop's answers.
    func logFromLoop(_ entries: [HTTPRequestLog]) {
        for entry in entries { logger?(entry) }
    }

    // MARK: workers

    private func workerLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !workersExit { condition.wait() }
            guard !jobs.isEmpty else {
                runningWorkers -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let (client, request, began) = jobs.removeFirst()
            condition.unlock()
            answer(client, request, began: began)
        }
    }

    /// Runs the handler and hands the answer's bytes to the event loop: a worker never touches
    /// a socket, so a client that does not read cannot hold it.
    private func answer(_ client: HTTPEventLoop.Client, _ request: HTTPRequest, began: Int64) {
        let response = handler(request)
        condition.lock()
        let keepAlive = request.keepAlive && !response.closeConnection && !stopping
        condition.unlock()
        let bytes = response.serialized(keepAlive: keepAlive, headOnly: request.method == "HEAD",
                                        date: imfFixdate(Int(time(nil))), refusal: configuration.refusalResponse)
        log(request.method, request.path, response.status, since: began, answer: response)
        condition.lock()
        // After the loop's end its sockets are closed: the answer has nowhere to go.
        if !loopFinished { returned.append((client, bytes, keepAlive)) }
        condition.unlock()
        wake()
    }
}
