// A small raw-socket HTTP client for the servers under test (the engine in-process, `subs serve`
// as a child): it writes exactly the bytes a test gives it (malformed ones included) and reads
// answers back with a deadline.

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubsJSON

public struct RawResponse {
    public var status: Int
    public var headers: [String: String]   // lowercased names
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSON.parse(text) }
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

public final class RawClient {
    public let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var sawEOF = false

    /// `receiveBuffer`: a small kernel receive buffer, so that a client that never reads stalls
    /// the server's writes after a few kilobytes.
    public init(port: Int, host: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        fd = try LoopbackSocket.connect(port: port, host: host, receiveBuffer: receiveBuffer)
    }

    deinit { Glibc.close(fd) }

    /// False when the server has gone (reset or closed).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { LoopbackSocket.sendAll(fd, bytes) }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends what the socket takes now, without waiting; the count sent.
    @discardableResult
    public func sendWithoutWaiting(_ bytes: [UInt8]) -> Int { LoopbackSocket.sendWithoutWaiting(fd, bytes) }

    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

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
    public func readResponse(timeout: Double = 10) -> RawResponse? {
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
    public func closedByServer(within timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            if sawEOF { return true }
            _ = fill(timeout: max(0.01, deadline.timeIntervalSinceNow))
        }
        return sawEOF
    }

    public var bufferedBytes: Int { buffer.count }

    /// True when the server reset the connection (seen at once, whatever it had sent before).
    public var wasReset: Bool {
        var p = pollfd(fd: fd, events: 0, revents: 0)
        return poll(&p, 1, 0) > 0 && Int32(p.revents) & Int32(POLLHUP | POLLERR) != 0
    }

    /// Everything the server sends until it closes, or until `timeout` seconds have passed.
    public func readToEnd(timeout: Double = 10) -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0, fill(timeout: max(0.001, deadline.timeIntervalSinceNow)) {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// One GET with `Connection: close` to 127.0.0.1:`port`: the whole answer as text ("" when
    /// none came within `timeout` seconds).
    public static func get(_ port: Int, _ path: String, headers: [String: String] = [:], timeout: Double = 10) throws -> String {
        let client = try RawClient(port: port)
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
        _ = client.sendWithoutWaiting(Array("GET \(path) HTTP/1.1\r\nHost: t\r\n\(lines)Connection: close\r\n\r\n".utf8))
        return String(decoding: client.readToEnd(timeout: timeout), as: UTF8.self)
    }
}
