// A transport that calls a fake's handler directly: the request goes from the client's
// `RemoteRequest` to the `HTTPRequest` the handler would have read off a socket, and its
// `HTTPResponse` comes back as a `RemoteResponse` — no socket, no libcurl, no HTTP bytes. The
// vendor fakes can share it; the wire itself (libcurl, the parser, the engine) keeps its own live
// suites, which this does not replace.

import SubsHTTP
import SubsRemote

public struct InProcessTransport: HTTPTransport {
    public let handler: HTTPServer.Handler

    public init(_ handler: @escaping HTTPServer.Handler) {
        self.handler = handler
    }

    public func send(_ request: RemoteRequest) throws -> RemoteResponse {
        guard let (authority, target) = Self.split(request.url) else {
            throw TransportError.cannotConnect("in-process transport: not an absolute http(s) URL: \(request.url)")
        }
        var headers = HTTPHeaders([("Host", authority)])
        for (name, value) in request.headers { headers.append(name: name, value: Array(value.utf8)) }
        if let body = request.body { headers.append(name: "Content-Length", value: Array(String(body.count).utf8)) }
        let answer = handler(HTTPRequest(method: request.method, target: target, headers: headers, body: request.body ?? []))
        return RemoteResponse(status: answer.status, headers: answer.headers.map { (name: $0.0, value: $0.1) },
                              body: request.method == "HEAD" ? [] : answer.body)
    }

    /// `http://host:port/a/b?q` → ("host:port", "/a/b?q"); the target is `/` when the URL has no path.
    public static func split(_ url: String) -> (authority: String, target: String)? {
        guard let scheme = url.range(of: "://"), ["http", "https"].contains(url[..<scheme.lowerBound].lowercased()) else { return nil }
        let rest = url[scheme.upperBound...]
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = String(rest[..<slash])
        guard !authority.isEmpty else { return nil }
        var target = String(rest[slash...])
        if !target.hasPrefix("/") { target = "/" + target }
        return (authority, target)
    }
}
