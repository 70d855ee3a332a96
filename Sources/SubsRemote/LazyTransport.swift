// The process's HTTP transport, made on first use: a command on the local store never makes one
// (and CurlTransport loads libcurl only when its first request is sent).

import Foundation

public final class LazyTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var made: HTTPTransport?
    private let make: @Sendable () -> HTTPTransport

    public init(_ make: @escaping @Sendable () -> HTTPTransport = { CurlTransport() }) {
        self.make = make
    }

    public func send(_ request: RemoteRequest) throws -> RemoteResponse {
        lock.lock()
        let transport = made ?? make()
        made = transport
        lock.unlock()
        return try transport.send(request)
    }
}
