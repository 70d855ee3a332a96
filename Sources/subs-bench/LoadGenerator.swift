// The load generator of the serve scenario: keep-alive HTTP/1.1 connections on loopback, one
// thread each, sending GETs one after another for a fixed time and timing every answer. Plain
// blocking sockets: the same client measures `subs serve` and nginx, so both pay its cost alike.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// One keep-alive connection to 127.0.0.1:port.
final class HTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw BenchError("connect to 127.0.0.1:\(port): \(String(cString: strerror(code)))")
        }
    }

    deinit { close(fd) }

    /// Sends one request and reads its answer: (status, body).
    func exchange(_ request: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw BenchError("send: \(String(cString: strerror(errno)))") }
            sent += n
        }
        // Headers up to the blank line, then Content-Length bytes of body.
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = HTTPConnection.find([13, 10, 13, 10], in: buffer).map { $0 + 4 }
            if headerEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.count >= 12, let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw BenchError("not an HTTP answer: \(head.prefix(200))")
        }
        var length = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst(15).trimmingSpaces()) ?? 0
        }
        while buffer.count < headerEnd! + length { try fill() }
        let body = Array(buffer[headerEnd!..<(headerEnd! + length)])
        buffer.removeFirst(headerEnd! + length)
        return (status, body)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw BenchError(n == 0 ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))") }
        buffer += chunk[0..<n]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }
}

/// What a load run measured.
struct LoadResult {
    var requests: Int
    var seconds: Double
    /// Every answer's latency, seconds, sorted.
    var latencies: [Double]
    var requestsPerSecond: Double { Double(requests) / seconds }
    func percentile(_ p: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        return latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
    }
}

enum LoadGenerator {
    /// `connections` threads send GETs for `seconds`; `path(thread, n)` names each one's target.
    /// Any answer but 200 stops the run with an error.
    /// `headers`: extra header lines, each ending in CRLF (the bearer token).
    static func run(port: Int, connections: Int, seconds: Double, headers: String = "",
                    path: @escaping @Sendable (Int, Int) -> String) throws -> LoadResult {
        let results = Collected()
        let group = DispatchGroup()
        let deadline = Runner.monotonicSeconds() + seconds
        let started = Runner.monotonicSeconds()
        for thread in 0..<connections {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let connection = try HTTPConnection(port: port)
                    var latencies: [Double] = []
                    var n = 0
                    while Runner.monotonicSeconds() < deadline {
                        let request = Array("GET \(path(thread, n)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n".utf8)
                        let sent = Runner.monotonicSeconds()
                        let answer = try connection.exchange(request)
                        latencies.append(Runner.monotonicSeconds() - sent)
                        guard answer.status == 200 else {
                            throw BenchError("GET \(path(thread, n)) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                        }
                        n += 1
                    }
                    results.add(latencies)
                } catch {
                    results.fail("\(error)")
                }
            }.start()
        }
        group.wait()
        let elapsed = Runner.monotonicSeconds() - started
        if let failure = results.failure { throw BenchError(failure) }
        let all = results.latencies.sorted()
        return LoadResult(requests: all.count, seconds: elapsed, latencies: all)
    }

    /// `count` POSTs sent at the same moment over connections opened beforehand; the seconds
    /// from the start signal to the last answer. Every answer must have status `expected`.
    static func burst(port: Int, requests: [[UInt8]], expected: Int) throws -> Double {
        let connections = try requests.map { _ in try HTTPConnection(port: port) }
        let results = Collected()
        let gate = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for (connection, request) in zip(connections, requests) {
            group.enter()
            Thread {
                defer { group.leave() }
                gate.wait()
                do {
                    let answer = try connection.exchange(request)
                    if answer.status != expected {
                        results.fail("a POST answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                    }
                } catch {
                    results.fail("\(error)")
                }
            }.start()
        }
        usleep(100_000)   // every thread waiting at the gate
        let started = Runner.monotonicSeconds()
        for _ in requests { gate.signal() }
        group.wait()
        let seconds = Runner.monotonicSeconds() - started
        if let failure = results.failure { throw BenchError(failure) }
        return seconds
    }

    /// Waits until something accepts connections on the port (a server starting).
    static func waitForListener(port: Int, timeout: Double, alive: () -> Bool) throws {
        let deadline = Runner.monotonicSeconds() + timeout
        while Runner.monotonicSeconds() < deadline {
            if (try? HTTPConnection(port: port)) != nil { return }
            guard alive() else { throw BenchError("the server exited before listening on port \(port)") }
            usleep(20_000)
        }
        throw BenchError("nothing listens on port \(port) after \(Int(timeout)) s")
    }

    /// A port free on loopback now (bound and released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw BenchError("cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Per-thread results gathered under a lock.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var latencies: [Double] = []
    private(set) var failure: String?
    func add(_ values: [Double]) { lock.withLock { latencies += values } }
    func fail(_ text: String) { lock.withLock { if failure == nil { failure = text } } }
}
