// A tiny misbehaving HTTP server for the remote client tests: POSIX sockets on 127.0.0.1,
// an ephemeral port, one request per connection, each answered as the test's script says.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package final class RemoteTestServer: @unchecked Sendable {
    package enum Action {
        /// A complete answer.
        case respond(status: Int, headers: [(String, String)], body: String)
        /// These bytes, then a clean close (a body shorter than its Content-Length, garbage…).
        case raw(String)
        /// These bytes, then a TCP reset.
        case resetAfter(String)
        /// Read the request, never answer (until the server stops).
        case hang
    }

    package let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var stopped = false
    private let script: (Int, String) -> Action

    package var requestCount: Int { lock.lock(); defer { lock.unlock() }; return received.count }
    package var requests: [String] { lock.lock(); defer { lock.unlock() }; return received }
    package var url: String { "http://127.0.0.1:\(port)" }

    package init(_ script: @escaping (_ index: Int, _ request: String) -> Action) {
        self.script = script
        // The loopback listener of every test; a machine without IPv4 loopback runs no test at all.
        let (listener, port) = LoopbackSocket.listen()!
        self.listener = listener
        self.port = UInt16(port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops listening: later connections are refused; hanging connections are closed.
    package func stop() {
        lock.lock(); stopped = true; lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { if !isStopped { stop() } }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { if isStopped { return } else { continue } }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ fd: Int32) {
        let (buffer, complete) = LoopbackSocket.readRequest(fd, body: true)
        guard complete else { close(fd); return }
        let text = String(decoding: buffer, as: UTF8.self)
        lock.lock(); let index = received.count; received.append(text); lock.unlock()
        switch script(index, text) {
        case .respond(let status, let headers, let body):
            var head = "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            send(fd, head + "\r\n" + body)
            close(fd)
        case .raw(let text):
            send(fd, text)
            shutdown(fd, Int32(SHUT_WR))
            usleep(50_000)
            close(fd)
        case .resetAfter(let text):
            send(fd, text)
            usleep(50_000)
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(fd)
        case .hang:
            for _ in 0..<200 where !isStopped { usleep(50_000) }
            close(fd)
        }
    }

    private func send(_ fd: Int32, _ text: String) { LoopbackSocket.sendAll(fd, Array(text.utf8)) }

    /// A port nothing listens on (bound, then closed).
    package static func closedPort() -> UInt16 {
        let server = RemoteTestServer { _, _ in .hang }
        let port = server.port
        server.stop()
        return port
    }
}
