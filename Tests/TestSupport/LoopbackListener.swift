// A listener on a loopback address that counts what reaches it: the stand-in for a server, a
// proxy or whoever would answer a name, in the tests that a key goes nowhere it should not.
// Each connection is read up to the end of its request head and answered with `reply`.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class LoopbackListener: @unchecked Sendable {
    public let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var heads: [String] = []
    private var stopped = false
    private let reply: (String) -> String

    /// Connections accepted so far.
    public var connections: Int { lock.lock(); defer { lock.unlock() }; return accepted }
    /// The request heads received (request line and headers).
    public var requests: [String] { lock.lock(); defer { lock.unlock() }; return heads }

    /// Listens on 127.0.0.1 (or ::1 with `ipv6`) on an ephemeral port and answers, by default, as
    /// subs serve does for an unknown customer (its own 404 JSON); nil when the address
    /// family is not available on this machine.
    public init?(ipv6: Bool = false, reply: @escaping (String) -> String = { _ in
        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 68\r\nConnection: close\r\n\r\n{\"error\":{\"code\":\"customer_not_found\",\"message\":\"no such customer\"}}"
    }) {
        self.reply = reply
        guard let (fd, port) = LoopbackSocket.listen(ipv6: ipv6) else { return nil }
        self.fd = fd
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    public func stop() {
        lock.lock(); let was = stopped; stopped = true; lock.unlock()
        guard !was else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    deinit { stop() }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    private func acceptLoop() {
        while true {
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                if isStopped || (errno != EINTR && errno != ECONNABORTED) { return }
                continue
            }
            lock.lock(); accepted += 1; lock.unlock()
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        let received = LoopbackSocket.readRequest(connection, body: false).bytes
        let head = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        lock.lock(); heads.append(head); lock.unlock()
        guard LoopbackSocket.sendAll(connection, Array(reply(head).utf8)) else { return }
        shutdown(connection, Int32(SHUT_WR))
    }
}
