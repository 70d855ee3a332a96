// The one place the tests touch POSIX sockets: listen on a loopback address, connect to one,
// send all or what fits, read one HTTP request. The fake servers and raw clients build on it.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public enum LoopbackSocket {
    /// A socket listening on 127.0.0.1 (or ::1 with `ipv6`) on an ephemeral port; nil when the
    /// address family is not available on this machine. Close-on-exec: a child never holds it.
    public static func listen(ipv6: Bool = false, backlog: Int32 = 16) -> (fd: Int32, port: Int)? {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var bound: Int32
        var port = 0
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin6_port))
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            close(fd)
            return nil
        }
        return (fd, port)
    }

    /// A socket connected to `host` (an IPv4 or IPv6 address) on `port`. `receiveBuffer`: a small
    /// kernel receive buffer, so that a client that never reads stalls the server's writes.
    public static func connect(port: Int, host: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws -> Int32 {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var result: Int32
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &a.sin6_addr)
            result = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &a.sin_addr)
            result = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard result == 0 else { let e = errno; close(fd); throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO) }
        return fd
    }

    /// Sends every byte (waiting as needed); false when the peer has gone (reset or closed).
    @discardableResult
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Sends what the socket takes now, without waiting; the count sent.
    @discardableResult
    public static func sendWithoutWaiting(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            offset += n
        }
        return offset
    }

    /// Reads one HTTP request from an accepted connection (waiting at most `timeout` seconds for
    /// each read): up to the end of its head, and with `body` its Content-Length bytes too. Not
    /// `complete` (with what came) when the peer closes or stalls first, or past 64 KiB of head.
    public static func readRequest(_ fd: Int32, body: Bool, timeout: Int = 5) -> (bytes: [UInt8], complete: Bool) {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = headEnd(received) {
                guard body else { return (received, true) }
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end + 4 + length { return (received, true) }
            } else if received.count >= 1 << 16 {
                return (received, false)
            }
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return (received, false) }
            received += chunk[0..<n]
        }
    }

    /// The offset of the first CRLF CRLF in `bytes`.
    public static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }
}
