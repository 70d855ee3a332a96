// The real HTTPTransport: libcurl's easy API, loaded with dlopen on the first request (LibCurl),
// used synchronously on the calling thread. The deadline is libcurl's own (CURLOPT_TIMEOUT_MS
// and CURLOPT_CONNECTTIMEOUT_MS from what is left of `request.timeout`), without signals since
// subs is multi-threaded. Redirects are not followed (the key header would go along to wherever
// they point), no cookies or cache are kept, and bodies are bounded.
//
// Plain http goes only to loopback (RemoteURL.loopbackTarget, checked again here whatever the
// caller did), never through a proxy from the environment (http_proxy, ALL_PROXY…: the key would
// cross the proxy in clear text), and `localhost` is pinned to 127.0.0.1 and ::1 so that no
// resolver is asked. https may go through a proxy: the key travels inside the TLS tunnel.
//
// Handles: finished easy handles wait in a pool and the next request takes one, so requests of
// one run reuse their connections (keep-alive) while concurrent requests each get their own.

import Foundation
import SubsSystem

public final class CurlTransport: HTTPTransport, @unchecked Sendable {
    private let maxBodySize: Int
    private let libraryNames: [String]
    private let lock = NSLock()
    private var library: LibCurl?
    private var idle: [OpaquePointer] = []

    /// `maxBodySize`: a longer answer is abandoned and reported as `bodyTooLarge`.
    /// `libraryNames`: the file names dlopen tries, in order (tests name one that does not exist).
    public init(maxBodySize: Int = 16 << 20, libraryNames: [String] = CurlTransport.defaultLibraryNames) {
        self.maxBodySize = maxBodySize
        self.libraryNames = libraryNames
    }

    public static let defaultLibraryNames = LibCurl.defaultNames

    deinit {
        if let library { for handle in idle { library.easyCleanup(handle) } }
    }

    /// Throws `RemoteError.libcurlMissing` when libcurl cannot be loaded, else `TransportError`.
    public func send(_ request: RemoteRequest) throws -> RemoteResponse {
        let (curl, handle) = try takeHandle()
        defer { giveBack(handle) }
        guard request.timeout > 0 else { throw TransportError.timedOut }
        let exchange = CurlExchange(limit: min(maxBodySize, max(0, request.maxBodySize)), method: request.method)
        let code = try perform(request, exchange, curl, handle)
        var status = 0
        _ = curl.getInfoLong(handle, CurlConstant.responseCode, &status)
        return try exchange.result(code: code, status: status, curl: curl, url: request.url)
    }

    private func perform(_ request: RemoteRequest, _ exchange: CurlExchange, _ curl: LibCurl, _ handle: OpaquePointer) throws -> Int32 {
        curl.easyReset(handle)
        var headers: OpaquePointer?
        var pinned: OpaquePointer?
        defer {
            curl.slistFreeAll(headers)
            curl.slistFreeAll(pinned)
        }
        for line in CurlTransport.headerLines(request) {
            guard let list = line.withCString({ curl.slistAppend(headers, $0) }) else { throw TransportError.other("out of memory") }
            headers = list
        }
        let milliseconds = request.timeout.isFinite ? max(1, Int((min(request.timeout, 86400) * 1000).rounded(.up))) : 3_600_000
        _ = curl.setLong(handle, CurlConstant.noSignal, 1)
        _ = curl.setLong(handle, CurlConstant.followLocation, 0)
        _ = curl.setLong(handle, CurlConstant.timeoutMS, milliseconds)
        _ = curl.setLong(handle, CurlConstant.connectTimeoutMS, milliseconds)
        // Only http and https, even if a URL slipped past RemoteURL (older libcurl ignores this).
        _ = "http,https".withCString { curl.setPointer(handle, CurlConstant.protocolsString, $0) }
        // Every encoding libcurl can decode, decoded (what URLSession did).
        _ = "".withCString { curl.setPointer(handle, CurlConstant.acceptEncoding, $0) }
        guard request.url.withCString({ curl.setPointer(handle, CurlConstant.url, $0) }) == CurlCode.ok else {
            throw TransportError.other("not a URL")
        }
        pinned = try pinPlainHTTP(request.url, curl, handle)
        _ = curl.setPointer(handle, CurlConstant.httpHeader, UnsafeRawPointer(headers))
        try setMethodAndBody(request, curl, handle)

        let userdata = Unmanaged.passRetained(exchange)
        defer { userdata.release() }
        let opaque = UnsafeRawPointer(userdata.toOpaque())
        _ = curl.setPointer(handle, CurlConstant.errorBuffer, exchange.errorBuffer)
        _ = curl.setCallback(handle, CurlConstant.writeFunction, CurlTransport.bodyCallback)
        _ = curl.setPointer(handle, CurlConstant.writeData, opaque)
        _ = curl.setCallback(handle, CurlConstant.headerFunction, CurlTransport.headerCallback)
        _ = curl.setPointer(handle, CurlConstant.headerData, opaque)
        let code = curl.easyPerform(handle)
        // The handle goes back to the pool: nothing of this exchange may stay reachable from it.
        _ = curl.setPointer(handle, CurlConstant.errorBuffer, nil)
        _ = curl.setPointer(handle, CurlConstant.httpHeader, nil)
        _ = curl.setPointer(handle, CurlConstant.resolve, nil)
        return code
    }

    /// For anything but https (libcurl guesses http for a URL without a scheme): refuses a URL
    /// that is not plain http to loopback, turns every proxy off, and pins `localhost`. Returns
    /// the CURLOPT_RESOLVE list to free after the transfer.
    private func pinPlainHTTP(_ url: String, _ curl: LibCurl, _ handle: OpaquePointer) throws -> OpaquePointer? {
        if url.utf8.count > 8, String(decoding: url.utf8.prefix(8), as: UTF8.self).lowercased() == "https://" { return nil }
        guard let target = RemoteURL.loopbackTarget(url) else {
            throw TransportError.other("refusing plain http to a host that is not a loopback address")
        }
        guard "".withCString({ curl.setPointer(handle, CurlConstant.proxy, $0) }) == CurlCode.ok,
              "*".withCString({ curl.setPointer(handle, CurlConstant.noProxy, $0) }) == CurlCode.ok else {
            throw TransportError.other("libcurl cannot turn its proxy off")
        }
        guard let entry = target.resolveEntry else { return nil }
        guard let list = entry.withCString({ curl.slistAppend(nil, $0) }) else { throw TransportError.other("out of memory") }
        guard curl.setPointer(handle, CurlConstant.resolve, UnsafeRawPointer(list)) == CurlCode.ok else {
            curl.slistFreeAll(list)
            throw TransportError.other("libcurl cannot pin localhost to loopback")
        }
        return list
    }

    private func setMethodAndBody(_ request: RemoteRequest, _ curl: LibCurl, _ handle: OpaquePointer) throws {
        let method = request.method.uppercased()
        if method == "GET" && request.body == nil {
            _ = curl.setLong(handle, CurlConstant.httpGet, 1)
            return
        }
        if method == "HEAD" {
            _ = curl.setLong(handle, CurlConstant.noBody, 1)
            return
        }
        if request.body != nil || ["POST", "PUT", "PATCH"].contains(method) {
            // COPYPOSTFIELDS copies the bytes (the size first: they may hold NULs); an empty body
            // still needs a non-null pointer, or libcurl would read the body from stdin.
            let body = request.body ?? []
            _ = curl.setLong(handle, CurlConstant.postFieldSize, body.count)
            var empty: UInt8 = 0
            let code = body.isEmpty
                ? curl.setPointer(handle, CurlConstant.copyPostFields, &empty)
                : body.withUnsafeBytes { curl.setPointer(handle, CurlConstant.copyPostFields, $0.baseAddress) }
            guard code == CurlCode.ok else { throw TransportError.other("out of memory") }
        }
        if method != "POST" {
            _ = request.method.withCString { curl.setPointer(handle, CurlConstant.customRequest, $0) }
        }
    }

    /// "Name: value" lines for curl_slist; "Name;" sends an empty value ("Name:" would remove the
    /// header). `Expect:` keeps libcurl from waiting for 100-continue on larger bodies, and an
    /// empty `Content-Type:` from adding a form type the request did not ask for.
    static func headerLines(_ request: RemoteRequest) -> [String] {
        var lines = request.headers.map { header in
            header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
        }
        if request.header("Expect") == nil { lines.append("Expect:") }
        if request.header("Content-Type") == nil { lines.append("Content-Type:") }
        return lines
    }

    private func takeHandle() throws -> (LibCurl, OpaquePointer) {
        lock.lock()
        defer { lock.unlock() }
        let curl: LibCurl
        if let library {
            curl = library
        } else {
            curl = try LibCurl.load(libraryNames)
            library = curl
        }
        if let handle = idle.popLast() { return (curl, handle) }
        guard let handle = curl.easyInit() else { throw TransportError.other("libcurl could not start a transfer") }
        return (curl, handle)
    }

    private func giveBack(_ handle: OpaquePointer) {
        lock.lock()
        idle.append(handle)
        lock.unlock()
    }

    private static let bodyCallback: CurlDataCallback = { bytes, size, count, userdata in
        guard let userdata else { return 0 }
        let exchange = Unmanaged<CurlExchange>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        guard length > 0, let bytes else { return length }
        return exchange.received(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
    }

    private static let headerCallback: CurlDataCallback = { bytes, size, count, userdata in
        guard let userdata else { return 0 }
        let exchange = Unmanaged<CurlExchange>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        guard length > 0, let bytes else { return length }
        return exchange.receivedHeader(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
    }
}
