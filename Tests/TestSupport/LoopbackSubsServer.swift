// `subs serve` in-process for the tests of the subs provider: the real API over a store file,
// on 127.0.0.1 and an ephemeral port, with a fixed clock and a token.

import Foundation
import SubsHTTP
import SubsModel
import SubsStore
import SubsServer

public final class LoopbackSubsServer {
    public let api: SubsAPI
    public let server: HTTPServer
    /// http://127.0.0.1:PORT
    public let base: String
    public var port: Int { server.port }

    /// Serves the store at `path`; `onRequest` is called before each request is handled.
    /// `clock`: the server's, when not the fixed `now`.
    public init(store path: String, token: String?, now: String = testNow, lockTimeout: Double = 10,
                clock: (any Clock)? = nil, onRequest: (@Sendable () -> Void)? = nil) throws {
        let api = SubsAPI(store: LocalStore(path: path, lockTimeout: lockTimeout), token: token,
                          clock: clock ?? FixedClock(ISODate.parse(now)!))
        self.api = api
        server = HTTPServer(configuration: HTTPServerConfiguration.subsAPI(host: "127.0.0.1", port: 0), handler: {
            onRequest?()
            return api.handle($0)
        })
        try server.start()
        base = "http://127.0.0.1:\(server.port)"
    }

    /// Stops listening and waits for the requests in flight.
    public func stop() {
        server.stop()
        server.wait()
    }
}
