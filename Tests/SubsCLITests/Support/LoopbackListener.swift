// A listener on a loopback address that counts what reaches it: the stand-in for a server, a
// proxy or whoever would answer a name, in the tests that a key goes nowhere it should not.
// Each connection is read up to the end of its request head and answered with `reply`.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class LoopbackListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var heads: [String] = []
    private var stopped = false
    private let reply: (String) -> String

    /// Connections accepted so far.
    var connections: Int { lock.lock(); defer { lock.unlock() }; return accepted }
    /// The request heads received (request line and headers).
    var requests: [String] { lock.lock(); defer { lock.unlock() }; return heads }

    /// Listens on 127.0.0.1 (or ::1 with `ipv6`) on an ephemeral port and answers, by default, as
    /// subs serve does for an unknown customer (its own 404 JSON); nil when the address
    /// family is not available on this machine.
    init?(ipv6: Bool = false, reply: @escaping (String) -> String = { _ in
        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 68\r\nConnection: close\r\n\r\n{\"error\":{\"code\":\"customer_not_found\",\"message\":\"no such customer\"}}"
    }) {
        self.reply = reply
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.fd = fd
        var bound: Int32
        var found = 0
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            found = Int(UInt16(bigEndian: address.sin6_port))
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            found = Int(UInt16(bigEndian: address.sin_port))
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            return nil
        }
        port = found
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() {
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
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while received.count < 1 << 16 {
            let n = read(connection, &chunk, chunk.count)
            if n <= 0 { break }
            received += chunk[0..<n]
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let head = String(decoding: received, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        lock.lock(); heads.append(head); lock.unlock()
        let bytes = Array(reply(head).utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
        shutdown(connection, Int32(SHUT_WR))
    }
}
