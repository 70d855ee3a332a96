// One HTTP exchange as the remote client sees it, and the seam that carries it: tests replace
// `HTTPTransport`; the real one is `CurlTransport`.

/// An HTTP request: method, absolute URL, headers in order, body bytes, and how long the
/// transport may take for it (the remote client passes what is left of its budget).
public struct RemoteRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Seconds the transport may spend on this request, from sending to the last body byte.
    public var timeout: Double
    /// The most body bytes the transport may receive (what is left of the command's byte budget):
    /// a longer answer is abandoned while it arrives (`TransportError.bodyTooLarge`).
    public var maxBodySize: Int

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, timeout: Double = 10,
                maxBodySize: Int = RemoteBudget.answerLimit) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxBodySize = maxBodySize
    }

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? { HeaderList.first(name, in: headers) }

    public static func == (a: RemoteRequest, b: RemoteRequest) -> Bool {
        a.method == b.method && a.url == b.url && a.body == b.body && a.timeout == b.timeout && a.maxBodySize == b.maxBodySize
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}

/// An HTTP answer: status, headers, the whole body.
public struct RemoteResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? { HeaderList.first(name, in: headers) }

    public static func == (a: RemoteResponse, b: RemoteResponse) -> Bool {
        a.status == b.status && a.body == b.body
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}

/// Sends one request and returns the answer, whatever its status; throws `TransportError`
/// when no complete answer arrived (cannot connect, reset, timeout, truncated body…).
public protocol HTTPTransport: Sendable {
    func send(_ request: RemoteRequest) throws -> RemoteResponse
}

enum HeaderList {
    static func first(_ name: String, in headers: [(name: String, value: String)]) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
