// The real HTTPTransport: one long-lived URLSession, used synchronously. FoundationNetworking
// truncates sub-second request timeouts and has no working resource timeout, so the deadline
// is enforced here: wait for the answer until `request.timeout`, then cancel the task.
// Redirects are not followed (the key header would go along to wherever they point), cookies
// and URL caching are off, and bodies are bounded.

import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession
    private let tasks: TaskTable
    private let maxBodySize: Int

    /// `maxBodySize`: a longer answer is cancelled and reported as `bodyTooLarge`.
    public init(maxBodySize: Int = 16 << 20) {
        self.maxBodySize = maxBodySize
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        tasks = TaskTable()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    public func send(_ request: RemoteRequest) throws -> RemoteResponse {
        guard let url = URL(string: request.url) else { throw TransportError.other("not a URL") }
        let timeout = request.timeout.isFinite ? max(0, request.timeout) : 3600
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body.map { Data($0) }
        // A backstop only (whole seconds): the real deadline is the wait below.
        urlRequest.timeoutInterval = timeout.rounded(.up) + 2
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData

        let exchange = Exchange(limit: maxBodySize, method: request.method)
        let task = session.dataTask(with: urlRequest)
        tasks.add(task.taskIdentifier, exchange)
        defer { tasks.remove(task.taskIdentifier) }
        task.resume()
        if exchange.done.wait(timeout: .now() + .nanoseconds(Int(min(timeout, 86400) * 1e9))) == .timedOut {
            task.cancel()
            throw TransportError.timedOut
        }
        return try exchange.result()
    }
}

/// What one task has received so far; filled on the delegate queue, read by the waiting thread.
private final class Exchange: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private let limit: Int
    private let method: String
    private var response: HTTPURLResponse?
    private var body: [UInt8] = []
    private var failure: TransportError?
    private var finished = false

    init(limit: Int, method: String) {
        self.limit = limit
        self.method = method
    }

    func received(_ response: URLResponse) {
        lock.lock(); defer { lock.unlock() }
        self.response = response as? HTTPURLResponse
    }

    /// False when the body went over the limit (the caller cancels the task).
    func received(_ data: Data) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard failure == nil else { return false }
        if body.count + data.count > limit {
            failure = .bodyTooLarge(limit: limit)
            return false
        }
        body.append(contentsOf: data)
        return true
    }

    func complete(_ error: Error?) {
        lock.lock()
        if !finished {
            finished = true
            // A body cut short of its Content-Length says more than the networking layer's
            // error for it (libcurl's "partial file" arrives as URLError.unknown).
            if failure == nil, error != nil, let response = response, let short = checkLength(response) { failure = short }
            if failure == nil, let error = error { failure = Exchange.map(error) }
            if failure == nil, response == nil { failure = .malformedResponse }
            if failure == nil, let response = response { failure = checkLength(response) }
        }
        lock.unlock()
        done.signal()
    }

    func result() throws -> RemoteResponse {
        lock.lock(); defer { lock.unlock() }
        if let failure = failure { throw failure }
        guard let response = response else { throw TransportError.malformedResponse }
        var headers: [(name: String, value: String)] = []
        for (name, value) in response.allHeaderFields {
            headers.append((String(describing: name), String(describing: value)))
        }
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
        return RemoteResponse(status: response.statusCode, headers: headers, body: body)
    }

    /// A body shorter than its Content-Length is an error even when the networking layer
    /// reports none (only for bodies it did not decode: with Content-Encoding lengths differ).
    private func checkLength(_ response: HTTPURLResponse) -> TransportError? {
        guard method != "HEAD", response.statusCode != 204, response.statusCode != 304,
              response.value(forHTTPHeaderField: "Content-Encoding") == nil,
              let text = response.value(forHTTPHeaderField: "Content-Length"),
              let expected = Int(text.trimmingCharacters(in: .whitespaces)), expected != body.count
        else { return nil }
        return .truncatedBody(expected: expected, received: body.count)
    }

    static func map(_ error: Error) -> TransportError {
        guard let error = error as? URLError else { return .other("network error") }
        switch error.code {
        case .cannotConnectToHost, .notConnectedToInternet:
            return .cannotConnect("connection refused or host unreachable")
        case .cannotFindHost, .dnsLookupFailed:
            return .dnsFailure(host: error.failingURL?.host ?? "?")
        case .timedOut: return .timedOut
        case .networkConnectionLost: return .connectionLost
        case .secureConnectionFailed: return .tls("secure connection failed")
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid:
            return .tls("server certificate not trusted")
        case .clientCertificateRejected, .clientCertificateRequired: return .tls("client certificate required")
        case .cannotParseResponse, .badServerResponse: return .malformedResponse
        case .dataLengthExceedsMaximum: return .other("answer too large")
        default: return .other("network error \(error.code.rawValue)")
        }
    }
}

/// The session delegate: routes callbacks to the exchange of each task.
private final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]

    func add(_ id: Int, _ exchange: Exchange) { lock.lock(); exchanges[id] = exchange; lock.unlock() }
    func remove(_ id: Int) { lock.lock(); exchanges[id] = nil; lock.unlock() }
    private func exchange(_ task: URLSessionTask) -> Exchange? {
        lock.lock(); defer { lock.unlock() }
        return exchanges[task.taskIdentifier]
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        exchange(dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let exchange = exchange(dataTask), !exchange.received(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil) // the 3xx itself is the answer; the client refuses it
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        exchange(task)?.complete(error)
    }
}
