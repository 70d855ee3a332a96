// A small raw-socket HTTP client for the server engine's tests: it writes exactly the bytes a
// test gives it (malformed ones included) and reads answers back with a deadline.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON
import SubsKit

struct RawResponse {
    var status: Int
    var headers: [String: String]   // lowercased names
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSON.parse(text) }
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var sawEOF = false

    /// `receiveBuffer`: a small kernel receive buffer, so that a client that never reads stalls
    /// the server's writes after a few kilobytes.
    init(port: Int, host: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
            result = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &a.sin_addr)
            result = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard result == 0 else { let e = errno; Glibc.close(fd); throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO) }
    }

    deinit { Glibc.close(fd) }

    /// False when the server has gone (reset or closed).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends what the socket takes now, without waiting; the count sent.
    @discardableResult
    func sendWithoutWaiting(_ bytes: [UInt8]) -> Int {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            offset += n
        }
        return offset
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads once (waiting at most `timeout` seconds); false on timeout, EOF or error.
    private func fill(timeout: Double) -> Bool {
        guard !sawEOF else { return false }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { sawEOF = true; return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next whole response, or nil when none arrives within `timeout` seconds.
    func readResponse(timeout: Double = 10) -> RawResponse? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let response = takeResponse() { return response }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, fill(timeout: left) else { return takeResponse() }
        }
    }

    private func takeResponse() -> RawResponse? {
        let crlf2: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<$0 + 4]) == crlf2 }) else { return nil }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if status == 100 {
            buffer.removeSubrange(0..<end + 4)
            return takeResponse()
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard buffer.count >= end + 4 + length else { return nil }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeSubrange(0..<(end + 4 + length))
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closes the connection (EOF or reset) within `timeout` seconds,
    /// discarding whatever else it sends.
    func closedByServer(within timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            if sawEOF { return true }
            _ = fill(timeout: max(0.01, deadline.timeIntervalSinceNow))
        }
        return sawEOF
    }

    var bufferedBytes: Int { buffer.count }

    /// True when the server reset the connection (seen at once, whatever it had sent before).
    var wasReset: Bool {
        var p = pollfd(fd: fd, events: 0, revents: 0)
        return poll(&p, 1, 0) > 0 && Int32(p.revents) & Int32(POLLHUP | POLLERR) != 0
    }
}

/// A thread-safe list of what the server's log hook reported.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [HTTPRequestLog] = []
    func record(_ entry: HTTPRequestLog) { lock.lock(); entries.append(entry); lock.unlock() }
    var all: [HTTPRequestLog] { lock.lock(); defer { lock.unlock() }; return entries }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
