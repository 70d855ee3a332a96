// The server's event-loop thread: accepts, reads every byte, writes every answer without ever
// blocking (a per-connection outgoing buffer, written when poll says the socket has room), hands
// complete requests to the workers and takes their answers back. The socket calls are here; what
// to do with a connection is `HTTPConnection`'s. It also keeps the total of unsent bytes under
// `maxUnsentBytes` by closing the connection that holds the most.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class HTTPEventLoop {
    /// A connection's socket and state. Only the loop touches `connection`; a worker holding a
    /// client only carries it back with the answer.
    final class Client: @unchecked Sendable {
        let fd: Int32
        let connection: HTTPConnection
        /// Its unsent bytes as last added to the loop's total.
        var counted = 0
        /// Request body bytes it holds in the loop's total (granted or with the handler).
        var bodyBytes = 0
        /// In `waitingForBody`.
        var waiting = false
        /// A request of it is with a worker (its body is held there until the answer comes back).
        var withHandler = false
        init(fd: Int32, connection: HTTPConnection) {
            self.fd = fd
            self.connection = connection
        }
    }

    private let server: HTTPServer
    private let configuration: HTTPServerConfiguration
    private var clients: [Int32: Client] = [:]
    private var unsent = 0
    /// Request body bytes held by all connections (`Client.bodyBytes`), and the connections whose
    /// body waits for room under `maxRequestBodyBytes`, first come first.
    private var bodies = 0
    private var waitingForBody: [Client] = []
    private var statistics = HTTPServerStatistics()
    private var acceptPausedUntil: Int64 = 0
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// Log lines of the answers made on the loop this turn (handed over once per turn).
    private var logs: [HTTPRequestLog] = []
    /// The Date header, made once per second.
    private var dateSecond = -1
    private var dateText = ""

    init(server: HTTPServer) {
        self.server = server
        configuration = server.configuration
    }

    func run() {
        var listening = true
        var stopDeadline: Int64 = .max
        while true {
            server.condition.lock()
            let isStopping = server.stopping
            let back = server.returned
            server.returned.removeAll()
            server.condition.unlock()
            var now = ServerSocket.nowMs()
            for (client, bytes, keepAlive) in back {
                // Answered: its request's body is given back (its connection may be gone).
                client.withHandler = false
                releaseBody(client)
                grantBodies(now)
                guard client.connection.phase != .closed else { continue }
                client.connection.answered(bytes, keepAlive: keepAlive, now: now)
                flush(client, now)
                pump(client, now)
                shedOverBound()
            }
            if isStopping && listening {
                listening = false
                close(server.listenFD)
                stopDeadline = now + Int64(configuration.shutdownTimeout * 1000)
                // Idle and half-received connections have no request in flight: they close now.
                for client in Array(clients.values) {
                    client.connection.stop(now: now)
                    flush(client, now)
                }
            }
            if isStopping && (now >= stopDeadline || !clients.values.contains { $0.connection.hasWork }) { break }

            var fds = [pollfd(fd: server.wakeRead, events: Int16(POLLIN), revents: 0)]
            if listening && now >= acceptPausedUntil { fds.append(pollfd(fd: server.listenFD, events: Int16(POLLIN), revents: 0)) }
            var next = min(stopDeadline, listening && acceptPausedUntil > now ? acceptPausedUntil : .max)
            for client in clients.values {
                let connection = client.connection
                var events: Int32 = 0
                if connection.wantsInput { events |= Int32(POLLIN) }
                if connection.unsentBytes > 0 { events |= Int32(POLLOUT) }
                // Even with no events, poll reports a reset or hang-up.
                fds.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
                if let deadline = connection.deadline { next = min(next, deadline) }
            }
            let timeout = Int32(clamping: max(0, min(next - now, 1000)))
            // The figures as they are whenever the loop waits.
            publish()
            server.logFromLoop(logs)
            logs.removeAll(keepingCapacity: true)
            let polled = poll(&fds, nfds_t(fds.count), timeout)
            if polled < 0 && errno != EINTR { usleep(10_000) }

            now = ServerSocket.nowMs()
            for p in fds where p.revents != 0 {
                if p.fd == server.wakeRead {
                    while read(server.wakeRead, &buffer, buffer.count) > 0 {}
                } else if p.fd == server.listenFD && listening {
                    acceptAll(now)
                } else if let client = clients[p.fd] {
                    ready(client, Int32(p.revents), now)
                }
            }
            now = ServerSocket.nowMs()
            for client in Array(clients.values) {
                if case .refused(let status)? = client.connection.expire(now: now) {
                    server.log("-", "-", status, since: now, answer: client.connection.refusalAnswer)
                }
                flush(client, now)
            }
            shedOverBound()
        }
        server.logFromLoop(logs)
        logs.removeAll()
        for client in clients.values { close(client.fd) }
        clients.removeAll()
        unsent = 0
        publish()
        if listening { close(server.listenFD) }
        server.condition.lock()
        server.loopFinished = true
        // Answers handed back between the last turn and now have nowhere to go.
        server.returned.removeAll()
        server.condition.broadcast()
        server.condition.unlock()
    }

    private func publish() {
        statistics.connections = clients.count
        statistics.unsentBytes = unsent
        statistics.requestBodyBytes = bodies
        statistics.waitingForBody = waitingForBody.count
        server.condition.lock()
        server.published = statistics
        server.condition.unlock()
    }

    private func acceptAll(_ now: Int64) {
        while true {
            let fd = accept(server.listenFD, nil, nil)
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
            if var size = configuration.socketSendBuffer {
                setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            if clients.count >= configuration.maxConnections {
                var response = server.configuration.refusalResponse(HTTPRefusal(status: 503, code: "unavailable",
                                                                                 message: "too many connections; try again later"))
                response.status = 503
                // A new socket's buffer is empty: this small answer fits whole.
                ServerSocket.writeOnce(fd, response.serialized(keepAlive: false, headOnly: false, date: imfFixdate(Int(time(nil))),
                                                      refusal: server.configuration.refusalResponse))
                server.log("-", "-", 503, since: ServerSocket.nowMs(), answer: response)
                shutdown(fd, Int32(SHUT_WR))
                close(fd)
                continue
            }
            let connection = HTTPConnection(configuration: configuration, now: now)
            connection.requiresBodyGrant = true
            clients[fd] = Client(fd: fd, connection: connection)
        }
    }

    private func ready(_ client: Client, _ revents: Int32, _ now: Int64) {
        let connection = client.connection
        if revents & Int32(POLLOUT) != 0 { flush(client, now) }
        if connection.wantsInput && revents & Int32(POLLIN | POLLHUP | POLLERR) != 0 {
            readable(client, now)
        } else if revents & Int32(POLLHUP | POLLERR | POLLNVAL) != 0 && connection.phase != .closed {
            // Reset or gone while not being read: nothing can be written to it any more.
            connection.failed()
        }
        pump(client, now)
    }

    private func readable(_ client: Client, _ now: Int64) {
        let connection = client.connection
        // A few reads per turn, so that one fast sender does not starve the others.
        var reads = 0
        while reads < 4 && connection.wantsInput {
            reads += 1
            let n = buffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { connection.failed() }
                return
            }
            if n == 0 {
                connection.inputClosed(now: now)
                return
            }
            connection.received(buffer[0..<n], now: now)
            pump(client, now)
        }
    }

    /// Acts on what the connection asks for: a request goes to a worker, a refusal is logged;
    /// then its unsent bytes are written as far as the socket takes them.
    private func pump(_ client: Client, _ now: Int64) {
        while let event = client.connection.advance(now: now) {
            switch event {
            case .request(let request):
                // Its body stays counted until the answer is made (a body that came whole with
                // its head was never granted: it is counted now).
                if request.body.count > client.bodyBytes {
                    bodies += request.body.count - client.bodyBytes
                    client.bodyBytes = request.body.count
                    statistics.peakRequestBodyBytes = max(statistics.peakRequestBodyBytes, bodies)
                }
                if let inline = server.inline, let response = inline(request) {
                    // Answered here, without a hand-off: the bytes join the connection's
                    // outgoing buffer like a worker's would (same bounds, same timeouts).
                    client.connection.answered(response, to: request, now: now, date: date())
                    releaseBody(client)
                    logs.append(server.entry(request.method, request.path, response.status, since: now, answer: response))
                    continue
                }
                client.withHandler = true
                server.condition.lock()
                server.jobs.append((client, request, ServerSocket.nowMs()))
                server.condition.signal()
                server.condition.unlock()
            case .refused(let status):
                server.log("-", "-", status, since: now, answer: client.connection.refusalAnswer)
            }
        }
        if client.connection.bodyWanted != nil && !client.waiting {
            client.waiting = true
            waitingForBody.append(client)
        }
        grantBodies(now)
        flush(client, now)
    }

    /// Grants the waiting bodies, first come first, while they fit under the bound (one always
    /// when none is held). A granted connection is read from the next turn on.
    private func grantBodies(_ now: Int64) {
        while let first = waitingForBody.first {
            guard let wanted = first.connection.bodyWanted, first.connection.phase != .closed else {
                waitingForBody.removeFirst()
                first.waiting = false
                continue
            }
            guard bodies == 0 || bodies + wanted <= configuration.maxRequestBodyBytes else { return }
            waitingForBody.removeFirst()
            first.waiting = false
            first.connection.grantBody(now: now)
            bodies += wanted - first.bodyBytes
            first.bodyBytes = wanted
            statistics.peakRequestBodyBytes = max(statistics.peakRequestBodyBytes, bodies)
        }
    }

    /// A connection's request body no longer held: answered, or the connection closed.
    private func releaseBody(_ client: Client) {
        bodies -= client.bodyBytes
        client.bodyBytes = 0
    }

    private func date() -> String {
        let second = Int(time(nil))
        if second != dateSecond {
            dateSecond = second
            dateText = imfFixdate(second)
        }
        return dateText
    }

    /// Writes what the socket takes now (never waits), shuts our side when the connection asks,
    /// and forgets a closed connection.
    private func flush(_ client: Client, _ now: Int64) {
        let connection = client.connection
        while connection.unsentBytes > 0 {
            let n = connection.withUnsent { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                connection.sent(n, now: now)
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            connection.failed()
        }
        if connection.takeShutdown() { shutdown(client.fd, Int32(SHUT_WR)) }
        unsent += connection.unsentBytes - client.counted
        client.counted = connection.unsentBytes
        if connection.phase == .closed, clients[client.fd] === client {
            clients[client.fd] = nil
            // The body it held, unless its request is with a worker: that one holds the bytes
            // until its answer comes back (to be dropped), and gives them back then.
            if !client.withHandler { releaseBody(client) }
            if client.waiting, let index = waitingForBody.firstIndex(where: { $0 === client }) {
                waitingForBody.remove(at: index)
                client.waiting = false
            }
            grantBodies(now)
            if connection.aborted {
                // A reset: the kernel drops the bytes it still queues for this client now,
                // instead of holding them for a reader that never comes.
                var reset = linger(l_onoff: 1, l_linger: 0)
                setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            }
            close(client.fd)
        }
    }

    /// Past the total bound, the connections holding the most unsent bytes are closed until the
    /// total is back under it: they are the clients that read least of what they asked for.
    private func shedOverBound() {
        while unsent > configuration.maxUnsentBytes,
              let worst = clients.values.max(by: { $0.connection.unsentBytes < $1.connection.unsentBytes }) {
            worst.connection.abort()
            statistics.shedConnections += 1
            flush(worst, 0)
        }
        statistics.peakUnsentBytes = max(statistics.peakUnsentBytes, unsent)
    }
}
