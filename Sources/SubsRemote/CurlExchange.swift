// What one libcurl transfer has received: filled by the header and write callbacks (on the
// thread that runs curl_easy_perform), then turned into a RemoteResponse or a TransportError.

import Foundation
import SubsSystem

final class CurlExchange {
    /// CURLOPT_ERRORBUFFER: libcurl's detailed message for a failed transfer.
    let errorBuffer: UnsafeMutablePointer<CChar>
    private let limit: Int
    private let method: String
    private var headers: [(name: String, value: String)] = []
    private var sawStatusLine = false
    private var body: [UInt8] = []
    private var tooLarge = false

    init(limit: Int, method: String) {
        self.limit = limit
        self.method = method.uppercased()
        errorBuffer = .allocate(capacity: CurlConstant.errorSize)
        errorBuffer.initialize(repeating: 0, count: CurlConstant.errorSize)
    }

    deinit { errorBuffer.deallocate() }

    /// False when the body went over the limit (libcurl then ends the transfer with a write error).
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > limit {
            tooLarge = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line as libcurl hands it over, CRLF included. A status line starts a new
    /// response (after a 1xx interim answer only the last one counts). False when the header
    /// announces a body over the limit: the transfer ends before a byte of it is received.
    func receivedHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = []
            sawStatusLine = true
            return true
        }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            // The end of the head: a body of known length gets its room at once (no doubling
            // copies of a large answer); one announced over the limit is not received at all.
            if method != "HEAD", HeaderList.first("Content-Encoding", in: headers) == nil,
               let text = HeaderList.first("Content-Length", in: headers), let length = Int(text.trimmingCharacters(in: .whitespaces)) {
                if length > limit {
                    tooLarge = true
                    return false
                }
                if length > 0 && body.isEmpty { body.reserveCapacity(length) }
            }
            return true
        }
        if line.first == " " || line.first == "\t", !headers.isEmpty {
            // Obsolete line folding: the line continues the previous header's value.
            headers[headers.count - 1].value += " " + trimmed
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        headers.append((name, value))
        return true
    }

    /// The answer, or why there is none. `code` is curl_easy_perform's CURLcode, `status` the
    /// CURLINFO_RESPONSE_CODE.
    func result(code: Int32, status: Int, curl: LibCurl, url: String) throws -> RemoteResponse {
        if tooLarge { throw TransportError.bodyTooLarge(limit: limit) }
        if code != CurlCode.ok {
            // A body cut short of its Content-Length says more than libcurl's error for it
            // (partial file, receive failure); a timeout stays a timeout.
            if code != CurlCode.operationTimedOut, sawStatusLine, let short = checkLength(status: status) { throw short }
            throw map(code, curl: curl, url: url)
        }
        guard sawStatusLine, status > 0 else { throw TransportError.malformedResponse }
        if let short = checkLength(status: status) { throw short }
        return RemoteResponse(status: status, headers: merged(), body: body)
    }

    /// Headers by name (case-insensitive, sorted), repeated ones joined with ", " — the shape
    /// URLSession's `allHeaderFields` gave.
    private func merged() -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var index: [String: Int] = [:]
        for header in headers {
            let key = header.name.lowercased()
            if let at = index[key] {
                result[at].value += ", " + header.value
            } else {
                index[key] = result.count
                result.append(header)
            }
        }
        return result.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// A body shorter than its Content-Length is an error even when libcurl reports none (only
    /// for bodies it did not decode: with Content-Encoding lengths differ).
    private func checkLength(status: Int) -> TransportError? {
        guard method != "HEAD", status != 204, status != 304,
              HeaderList.first("Content-Encoding", in: headers) == nil,
              let text = HeaderList.first("Content-Length", in: headers),
              let expected = Int(text.trimmingCharacters(in: .whitespaces)), expected != body.count
        else { return nil }
        return .truncatedBody(expected: expected, received: body.count)
    }

    /// libcurl's error as the transport error the remote client knows (same cases URLSession's gave).
    private func map(_ code: Int32, curl: LibCurl, url: String) -> TransportError {
        switch code {
        case CurlCode.couldntConnect, CurlCode.interfaceFailed:
            return .cannotConnect("connection refused or host unreachable")
        case CurlCode.couldntResolveHost:
            return .dnsFailure(host: URL(string: url)?.host ?? "?")
        case CurlCode.couldntResolveProxy, CurlCode.proxy:
            return .cannotConnect("cannot reach the proxy: \(detail(code, curl))")
        case CurlCode.operationTimedOut: return .timedOut
        case CurlCode.gotNothing, CurlCode.sendError, CurlCode.recvError, CurlCode.partialFile,
             CurlCode.http2, CurlCode.http2Stream:
            return .connectionLost
        case CurlCode.peerFailedVerification, CurlCode.sslIssuerError, CurlCode.sslPinnedPubKeyNotMatch,
             CurlCode.sslInvalidCertStatus:
            return .tls("server certificate not trusted")
        case CurlCode.sslCertProblem, CurlCode.sslClientCert: return .tls("client certificate required")
        case CurlCode.sslCACertBadFile, CurlCode.sslCRLBadFile:
            return .tls("cannot load the trusted certificates: \(detail(code, curl))")
        case CurlCode.sslConnectError, CurlCode.sslCipher, CurlCode.sslEngineNotFound, CurlCode.sslEngineSetFailed,
             CurlCode.sslEngineInitFailed, CurlCode.sslShutdownFailed:
            return .tls("secure connection failed")
        case CurlCode.weirdServerReply, CurlCode.unsupportedProtocol: return .malformedResponse
        case CurlCode.urlMalformat: return .other("not a URL")
        case CurlCode.outOfMemory: return .other("out of memory")
        default: return .other("network error \(code): \(detail(code, curl))")
        }
    }

    /// The error buffer's message, else libcurl's text for the code.
    private func detail(_ code: Int32, _ curl: LibCurl) -> String {
        let message = String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? curl.describe(code) : message
    }
}
