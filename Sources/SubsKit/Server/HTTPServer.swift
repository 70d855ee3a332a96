// The HTTP/1.1 server engine under `subs serve`: one event-loop thread accepts connections and
// reads every byte (so slow or idle clients never hold a worker), a bounded pool of worker
// threads runs the handler and writes the answer, then hands the connection back for the next
// request. Every refusal is an answer and a close; nothing a client sends stops the server.
// Decisions: beyond `maxConnections` a new connection is accepted, answered 503 and closed (no
// queue); an unfinished request past `requestTimeout` is answered 408 and closed; an idle
// keep-alive connection is closed silently after `idleTimeout`.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public struct HTTPServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 asks the system for a free port; `HTTPServer.port` tells which.
    public var port = 8787
    /// Worker threads. Many more than cores: a POST waits in a worker for its group commit, and
    /// the POSTs that wait together are written together (50 concurrent grants, 2 rewrites).
    public var workerCount = max(64, 4 * ProcessInfo.processInfo.activeProcessorCount)
    /// Open connections at most (idle, reading or being answered); more are answered 503.
    public var maxConnections = 256
    /// Seconds a keep-alive connection may wait for its next request.
    public var idleTimeout = 30.0
    /// Seconds a client has to send a whole request (header and body) once it has begun.
    public var requestTimeout = 10.0
    /// Seconds an answer may take to be written to a client that does not read.
    public var writeTimeout = 10.0
    /// Seconds `stop()` waits for requests in flight.
    public var shutdownTimeout = 5.0
    public var limits = HTTPLimits()

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
}

public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    public typealias Logger = @Sendable (HTTPRequestLog) -> Void

    public let configuration: HTTPServerConfiguration
    /// The port listened on (the one the system chose when the configuration said 0).
    public private(set) var port = 0

    private let handler: Handler
    private let logger: Logger?

    private var listenFD: Int32 = -1
    private var wakeRead: Int32 = -1, wakeWrite: Int32 = -1

    // Shared between the event loop and the workers, under `condition`.
    private let condition = NSCondition()
    private var jobs: [(Connection, HTTPRequest, Int64)] = []
    private var returned: [(Connection, close: Bool)] = []
    private var stopping = false
    private var started = false
    private var loopFinished = false
    private var workersExit = false
    private var runningWorkers = 0

    /// True for loopback addresses (127.0.0.0/8, ::1, `localhost`): `serve` needs a token elsewhere.
    public static func isLoopback(host: String) -> Bool { ServerSocket.isLoopback(host) }

    /// `handler` is called from several worker threads at once; so is `log`.
    public init(configuration: HTTPServerConfiguration, log: Logger? = nil, handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = log
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
        let loop = Thread { [self] in eventLoop() }
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

    private func log(_ method: String, _ path: String, _ status: Int, since start: Int64) {
        logger?(HTTPRequestLog(method: method, path: path, status: status,
                               durationMs: Int(max(0, ServerSocket.nowMs() - start))))
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
            let (connection, request, began) = jobs.removeFirst()
            condition.unlock()
            answer(connection, request, began: began)
        }
    }

    private func answer(_ connection: Connection, _ request: HTTPRequest, began: Int64) {
        let response = handler(request)
        condition.lock()
        let keepAlive = request.keepAlive && !response.closeConnection && !stopping
        condition.unlock()
        let bytes = response.serialized(keepAlive: keepAlive, headOnly: request.method == "HEAD",
                                        date: imfFixdate(Int(time(nil))))
        let deadline = ServerSocket.nowMs() + Int64(configuration.writeTimeout * 1000)
        let written = ServerSocket.writeAll(connection.fd, bytes, deadline: deadline)
        log(request.method, request.path, response.status, since: began)
        condition.lock()
        if loopFinished {
            // The event loop gave up waiting (shutdown timeout): this connection is ours to close.
            condition.unlock()
            close(connection.fd)
            return
        }
        returned.append((connection, close: !(written && keepAlive)))
        condition.unlock()
        wake()
    }

    // MARK: event loop

    /// A client connection while the event loop owns it.
    final class Connection {
        let fd: Int32
        var parser: HTTPRequestParser
        var requestDeadline: Int64?    // an unfinished request must be complete by then
        var idleDeadline: Int64
        var lingerDeadline: Int64?     // closing: our side is shut, reading what is left
        var lingered = 0
        init(fd: Int32, limits: HTTPLimits, idleDeadline: Int64) {
            self.fd = fd
            parser = HTTPRequestParser(limits: limits)
            self.idleDeadline = idleDeadline
        }
    }

    private var connections: [Int32: Connection] = [:]
    private var busy = 0
    private var acceptPausedUntil: Int64 = 0

    private func eventLoop() {
        var listening = true
        var stopDeadline: Int64 = .max
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            condition.lock()
            let isStopping = stopping
            let back = returned
            returned.removeAll()
            condition.unlock()
            for (connection, shouldClose) in back {
                busy -= 1
                if shouldClose || isStopping { beginClose(connection) } else { resume(connection) }
            }
            let now = ServerSocket.nowMs()
            if isStopping && listening {
                listening = false
                close(listenFD)
                stopDeadline = now + Int64(configuration.shutdownTimeout * 1000)
                // Idle and half-received connections have no request in flight: close them now.
                for connection in connections.values { closeNow(connection) }
            }
            if isStopping && (busy == 0 || now >= stopDeadline) { break }

            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if listening && now >= acceptPausedUntil { fds.append(pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)) }
            for fd in connections.keys { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            var next = min(stopDeadline, listening && acceptPausedUntil > now ? acceptPausedUntil : .max)
            for connection in connections.values {
                next = min(next, connection.lingerDeadline ?? connection.requestDeadline ?? connection.idleDeadline)
            }
            let timeout = Int32(clamping: max(0, min(next - now, 1000)))
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR { usleep(10_000) }

            for p in fds where p.revents != 0 {
                if p.fd == wakeRead {
                    while read(wakeRead, &buffer, buffer.count) > 0 {}
                } else if p.fd == listenFD && listening {
                    acceptAll()
                } else if let connection = connections[p.fd] {
                    readable(connection, &buffer)
                }
            }
            expire(ServerSocket.nowMs())
        }
        for connection in connections.values { closeNow(connection) }
        if listening { close(listenFD) }
        condition.lock()
        loopFinished = true
        // Handed back between the last turn and now: nobody else will close these.
        for (connection, _) in returned { close(connection.fd) }
        returned.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func acceptAll() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: acceptPausedUntil = ServerSocket.nowMs() + 100
                default: break
                }
                return
            }
            ServerSocket.setNonBlocking(fd)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            if connections.count + busy >= configuration.maxConnections {
                let response = HTTPResponse.error(status: 503, code: "unavailable",
                                                  message: "too many connections; try again later")
                ServerSocket.writeOnce(fd, response.serialized(keepAlive: false, headOnly: false, date: imfFixdate(Int(time(nil)))))
                log("-", "-", 503, since: ServerSocket.nowMs())
                shutdown(fd, Int32(SHUT_WR))
                close(fd)
                continue
            }
            let now = ServerSocket.nowMs()
            connections[fd] = Connection(fd: fd, limits: configuration.limits,
                                         idleDeadline: now + Int64(configuration.idleTimeout * 1000))
        }
    }

    private func readable(_ connection: Connection, _ buffer: inout [UInt8]) {
        // A few reads per turn, so that one fast sender does not starve the others.
        for _ in 0..<4 {
            let n = buffer.withUnsafeMutableBytes { read(connection.fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                closeNow(connection)
                return
            }
            if n == 0 {
                // The client left (maybe mid-request): nobody to answer.
                closeNow(connection)
                return
            }
            if connection.lingerDeadline != nil {
                connection.lingered += n
                if connection.lingered > configuration.limits.maxBodyBytes { closeNow(connection) ; return }
                continue
            }
            if connection.requestDeadline == nil {
                connection.requestDeadline = ServerSocket.nowMs() + Int64(configuration.requestTimeout * 1000)
            }
            connection.parser.append(buffer[0..<n])
            if advance(connection) { return }
        }
    }

    /// Dispatches a complete request or answers a refused one; true when the connection left
    /// the reading state.
    @discardableResult
    private func advance(_ connection: Connection) -> Bool {
        do {
            if let request = try connection.parser.next() {
                connections[connection.fd] = nil
                busy += 1
                condition.lock()
                jobs.append((connection, request, ServerSocket.nowMs()))
                condition.signal()
                condition.unlock()
                return true
            }
            if connection.parser.expectsContinue {
                ServerSocket.writeOnce(connection.fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                connection.parser.continueSent()
            }
            return false
        } catch {
            refuse(connection, HTTPResponse.from(error))
            return true
        }
    }

    private func refuse(_ connection: Connection, _ response: HTTPResponse) {
        ServerSocket.writeOnce(connection.fd, response.serialized(keepAlive: false, headOnly: false, date: imfFixdate(Int(time(nil)))))
        log("-", "-", response.status, since: ServerSocket.nowMs())
        beginClose(connection)
    }

    /// A connection back from a worker, ready for its next request (maybe already buffered).
    private func resume(_ connection: Connection) {
        let now = ServerSocket.nowMs()
        connections[connection.fd] = connection
        connection.idleDeadline = now + Int64(configuration.idleTimeout * 1000)
        connection.requestDeadline = connection.parser.hasPartialRequest ? now + Int64(configuration.requestTimeout * 1000) : nil
        advance(connection)
    }

    /// Shuts our side and reads what the client still sends for a moment, so that the answer is
    /// not lost to a reset when unread bytes (an oversized body) are left behind.
    private func beginClose(_ connection: Connection) {
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.lingerDeadline = ServerSocket.nowMs() + 1000
        connections[connection.fd] = connection
    }

    private func closeNow(_ connection: Connection) {
        connections[connection.fd] = nil
        close(connection.fd)
    }

    private func expire(_ now: Int64) {
        for connection in Array(connections.values) {
            if let linger = connection.lingerDeadline {
                if now >= linger { closeNow(connection) }
            } else if let deadline = connection.requestDeadline {
                if now >= deadline {
                    refuse(connection, .error(status: 408, code: "request_timeout",
                                              message: "the request was not complete within \(configuration.requestTimeout) s"))
                }
            } else if now >= connection.idleDeadline {
                closeNow(connection)
            }
        }
    }
}
