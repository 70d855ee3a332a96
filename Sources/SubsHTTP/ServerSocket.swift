// The POSIX socket calls the server engine needs: a listening socket on an IPv4 or IPv6
// literal (or `localhost`), non-blocking mode, a monotonic clock, and a write that never waits
// and never raises SIGPIPE.

#if canImport(Glibc)
import Glibc
#endif

public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    case invalidAddress(String)
    case cannotBind(address: String, reason: String)
    case system(String)

    public var description: String {
        switch self {
        case .invalidAddress(let host): return "'\(host)' is not an IPv4 or IPv6 address (or 'localhost')"
        case .cannotBind(let address, let reason): return "cannot listen on \(address): \(reason)"
        case .system(let what): return what
        }
    }
}

enum ServerSocket {
    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The host as a literal address: `localhost` is 127.0.0.1; `[::1]` and `::1` are IPv6.
    static func literal(_ host: String) -> (family: Int32, text: String)? {
        var h = host
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.lowercasedASCII == "localhost" { h = "127.0.0.1" }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, h, &v4) == 1 { return (AF_INET, h) }
        if inet_pton(AF_INET6, h, &v6) == 1 { return (AF_INET6, h) }
        return nil
    }

    /// A listening, non-blocking, close-on-exec socket and the port it got.
    static func listen(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        guard let (family, text) = literal(host) else { throw .invalidAddress(host) }
        guard (0...65535).contains(port) else { throw .cannotBind(address: "\(host):\(port)", reason: "port out of range") }
        let display = family == AF_INET6 ? "[\(text)]:\(port)" : "\(text):\(port)"
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .cannotBind(address: display, reason: errorText(errno)) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var result: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, text, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, text, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        if result == 0 { result = Glibc.listen(fd, backlog) }
        guard result == 0 else {
            let reason = errorText(errno)
            close(fd)
            throw .cannotBind(address: display, reason: reason)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let bound: UInt16 = withUnsafePointer(to: &storage) { pointer in
            family == AF_INET
                ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                : pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return (fd, Int(bound))
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Milliseconds on a clock that never jumps.
    static func nowMs() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// One attempt, for a small answer on a fresh socket (never waits; the event loop's other
    /// writes go through each connection's outgoing buffer).
    static func writeOnce(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
