// The incremental, byte-level HTTP/1.x request parser: bytes go in as they arrive, complete
// requests come out in order (pipelining), and anything outside the grammar is an error that
// carries the status to answer with. Decisions (strict by design, no request smuggling):
// - lines end in CRLF; a bare LF or a bare CR is 400 (a CR as soon as the next byte is not LF);
// - obsolete line folding (a header line starting with a space or tab) is 400;
// - everything a connection sends before a request's head is complete — the blank lines RFC 9112
//   lets precede the request line, junk, the request line and the headers — is at most
//   `maxHeaderBytes` (16 KiB) → 431, counted as the bytes arrive, so no byte sent before the
//   head ends is ever held beyond it; at most `maxHeaderFields` (100) fields → 431;
// - `Content-Length`: digits only, several fields or list members must agree, overflow → 400;
//   more than `maxBodyBytes` (1 MiB) → 413 without reading the body;
// - `Transfer-Encoding` is not supported: with `Content-Length` → 400 (smuggling), `chunked`
//   alone → 411 (send Content-Length), any other coding → 501;
// - only HTTP/1.1 and HTTP/1.0 (other versions → 505); only origin-form targets (`/…`);
// - HTTP/1.1 needs exactly one Host field.

public struct HTTPLimits: Sendable {
    public var maxHeaderBytes = 16 * 1024
    public var maxBodyBytes = 1024 * 1024
    public var maxMethodBytes = 32
    /// Header fields of one request (as Apache's LimitRequestFields): thousands of tiny fields
    /// would cost far more memory than their 16 KiB of bytes.
    public var maxHeaderFields = 100
    public init() {}
}

/// A request the parser refuses: answered with `status` and `code`, then the connection closes.
public struct HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var description: String { "\(status) \(code): \(message)" }
    /// What the engine answers with.
    public var refusal: HTTPRefusal { HTTPRefusal(status: status, code: code, message: message) }

    static func invalid(_ message: String) -> HTTPParseError {
        HTTPParseError(status: 400, code: "invalid_request", message: message)
    }
}

public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits

    private var buffer: [UInt8] = []
    private var start = 0          // first byte not yet consumed
    private var scan = 0           // next byte of the head to look at
    private var lineStart = 0
    private var headStart: Int?    // where the current request's head began (after blank lines)
    private var headBytes = 0      // bytes scanned for the current head, leading blank lines and CRs included
    private var pending: PendingHead?
    private var bodyLength: Int?   // set once the head is complete: waiting for the body
    private var failure: HTTPParseError?
    private var methodEnded = false   // a space has been seen on the request line
    private var blankLines = 0        // blank lines before the current request

    /// Set when a complete head asked `Expect: 100-continue` and its body has not arrived; the
    /// server answers `100 Continue` once and calls `continueSent()`.
    public private(set) var expectsContinue = false

    private struct PendingHead {
        var method = ""
        var target = ""
        var version = HTTPVersion.http11
        var headers = HTTPHeaders()
        var sawRequestLine = false
    }

    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// True when bytes of an unfinished request are buffered (the slow-client deadline runs).
    public var hasPartialRequest: Bool {
        failure == nil && buffer.count > start
    }

    /// The `Content-Length` of the request whose head is complete and whose body is still being
    /// received; nil while a head is read (or between requests).
    public var announcedBody: Int? { failure == nil ? bodyLength : nil }

    /// Bytes received and not handed out as a request yet. Once `next()` has returned nil: at
    /// most `maxHeaderBytes` while a head is being read, then at most the announced body.
    public var bufferedBytes: Int { buffer.count - start }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scan -= start
            lineStart -= start
            if let h = headStart { headStart = h - start }
            start = 0
        }
        if let length = bodyLength {
            // A body announced by Content-Length grows the buffer as it arrives, doubling as
            // usual but never past the body's end: not twice its size for the last bytes.
            let needed = buffer.count + bytes.count, end = start + length
            if needed > buffer.capacity && needed <= end {
                buffer.reserveCapacity(min(max(needed, buffer.capacity * 2), end))
            }
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func continueSent() { expectsContinue = false }

    /// The next complete request, nil when more bytes are needed. After an error every later
    /// call throws the same error: the connection is answered and closed.
    public mutating func next() throws(HTTPParseError) -> HTTPRequest? {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func step() throws(HTTPParseError) -> HTTPRequest? {
        if bodyLength == nil {
            guard try scanHead() else { return nil }
        }
        guard let length = bodyLength, let head = pending else { return nil }
        guard buffer.count - start >= length else { return nil }
        let body = Array(buffer[start..<start + length])
        start += length
        scan = start
        methodEnded = false
        blankLines = 0
        headBytes = 0
        lineStart = start
        headStart = nil
        pending = nil
        bodyLength = nil
        expectsContinue = false
        return HTTPRequest(method: head.method, target: head.target, version: head.version,
                           headers: head.headers, body: body)
    }

    /// Reads head lines as far as the buffer goes; true once the blank line ending the head is in.
    private mutating func scanHead() throws(HTTPParseError) -> Bool {
        while scan < buffer.count {
            let byte = buffer[scan]
            // Every byte counts, from the first after the previous request: blank lines and bare
            // CRs before the request line too (they used to be skipped uncounted, and a client
            // sending nothing else could fill the server's memory).
            if headBytes >= limits.maxHeaderBytes {
                throw HTTPParseError(status: 431, code: "header_too_large",
                                     message: "request header is larger than \(limits.maxHeaderBytes) bytes")
            }
            headBytes += 1
            if byte != 0x0A && scan > lineStart && buffer[scan - 1] == 0x0D {
                throw .invalid("a CR not followed by LF (lines end in CRLF)")
            }
            if byte != 0x0A {
                if headStart == nil {
                    // A CR of a leading blank line may precede the request; anything else starts it.
                    if byte != 0x0D { headStart = lineStart }
                }
                if pending?.sawRequestLine != true { try checkRequestLineByte(byte, at: scan) }
                if byte == 0x20 { methodEnded = true }
                scan += 1
                continue
            }
            // A line ends here.
            guard scan > lineStart, buffer[scan - 1] == 0x0D else {
                throw .invalid("line ends with a bare LF (CRLF required)")
            }
            let line = buffer[lineStart..<scan - 1]
            scan += 1
            lineStart = scan
            if line.isEmpty {
                if headStart == nil {  // a few blank lines before a request are ignored (RFC 9112 2.2)
                    blankLines += 1
                    guard blankLines <= 8 else { throw .invalid("too many blank lines before the request line") }
                    start = scan
                    continue
                }
                try finishHead()
                start = scan
                return true
            }
            if headStart == nil { headStart = line.startIndex }
            if pending == nil || pending?.sawRequestLine == false {
                try parseRequestLine(line)
            } else {
                try parseHeaderLine(line)
            }
        }
        return false
    }

    /// Refuses binary garbage as soon as it arrives, without waiting for a line end.
    private func checkRequestLineByte(_ byte: UInt8, at index: Int) throws(HTTPParseError) {
        if byte == 0x0D { return }  // judged when the line ends
        guard byte >= 0x20 && byte < 0x7F else {
            throw .invalid("request line holds a byte outside printable ASCII (0x\(hex(byte)))")
        }
        // The method: the bytes before the first space.
        let methodLength = index - lineStart
        if byte != 0x20 && !methodEnded && methodLength >= limits.maxMethodBytes {
            throw .invalid("request method is longer than \(limits.maxMethodBytes) bytes")
        }
    }

    private mutating func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .invalid("request line is not 'METHOD TARGET HTTP/1.1'")
        }
        let method = parts[0], target = parts[1], version = parts[2]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else {
            throw .invalid("request method is not a token")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalid("request target is empty or holds a byte outside printable ASCII")
        }
        let versionText = String(decoding: version, as: UTF8.self)
        let parsedVersion: HTTPVersion
        switch versionText {
        case "HTTP/1.1": parsedVersion = .http11
        case "HTTP/1.0": parsedVersion = .http10
        default:
            let bytes = Array(version)
            if bytes.count == 8, versionText.hasPrefix("HTTP/"), isDigit(bytes[5]), bytes[6] == UInt8(ascii: "."), isDigit(bytes[7]) {
                throw HTTPParseError(status: 505, code: "http_version_not_supported",
                                     message: "\(versionText) is not supported (HTTP/1.1 and HTTP/1.0 are)")
            }
            if versionText == "HTTP/2" || versionText == "HTTP/3" {
                throw HTTPParseError(status: 505, code: "http_version_not_supported",
                                     message: "\(versionText) is not supported (HTTP/1.1 and HTTP/1.0 are)")
            }
            throw .invalid("request line does not end with HTTP/1.1 or HTTP/1.0")
        }
        guard target.first == UInt8(ascii: "/") else {
            throw .invalid("request target must be a path starting with '/'")
        }
        // Malformed escapes are refused here so that a handler can trust `pathSegments` to parse.
        var i = target.startIndex
        while i < target.endIndex {
            if target[i] == UInt8(ascii: "%") {
                guard i + 2 < target.endIndex, HTTPRequest.hexValue(target[i + 1]) != nil,
                      HTTPRequest.hexValue(target[i + 2]) != nil else {
                    throw .invalid("request target has a malformed percent escape")
                }
                i += 3
            } else {
                i += 1
            }
        }
        var head = PendingHead()
        head.method = String(decoding: method, as: UTF8.self)
        head.target = String(decoding: target, as: UTF8.self)
        head.version = parsedVersion
        head.sawRequestLine = true
        pending = head
    }

    private mutating func parseHeaderLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        if line.first == 0x20 || line.first == 0x09 {
            throw .invalid("obsolete line folding in a header field")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw .invalid("header field without ':'")
        }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw .invalid("header field name is empty or not a token (no space before ':')")
        }
        var value = line[(colon + 1)...]
        while let f = value.first, f == 0x20 || f == 0x09 { value.removeFirst() }
        while let l = value.last, l == 0x20 || l == 0x09 { value.removeLast() }
        for byte in value where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            throw .invalid("header field '\(String(decoding: name, as: UTF8.self))' holds a control character (0x\(hex(byte)))")
        }
        guard pending!.headers.fields.count < limits.maxHeaderFields else {
            throw HTTPParseError(status: 431, code: "header_too_large",
                                 message: "request has more than \(limits.maxHeaderFields) header fields")
        }
        pending!.headers.append(name: String(decoding: name, as: UTF8.self), value: Array(value))
    }

    private mutating func finishHead() throws(HTTPParseError) {
        guard let head = pending, head.sawRequestLine else { throw .invalid("request without a request line") }
        let headers = head.headers
        let hosts = headers.values("Host")
        if head.version == .http11 && hosts.count != 1 {
            throw .invalid(hosts.isEmpty ? "HTTP/1.1 request without a Host header" : "more than one Host header")
        }
        if head.version == .http10 && hosts.count > 1 { throw .invalid("more than one Host header") }

        let lengths = headers.values("Content-Length")
        let codings = headers.tokens("Transfer-Encoding")
        if !headers.values("Transfer-Encoding").isEmpty {
            if !lengths.isEmpty {
                throw .invalid("both Content-Length and Transfer-Encoding (refused: request smuggling)")
            }
            if codings == ["chunked"] {
                throw HTTPParseError(status: 411, code: "length_required",
                                     message: "chunked request bodies are not supported; send Content-Length")
            }
            throw HTTPParseError(status: 501, code: "not_implemented",
                                 message: "Transfer-Encoding is not supported; send Content-Length")
        }
        var length = 0
        if !lengths.isEmpty {
            var seen: Int?
            for field in lengths {
                for member in field.split(separator: ",", omittingEmptySubsequences: false) {
                    let text = member.trimmingSpacesAndTabs
                    guard !text.isEmpty, text.utf8.allSatisfy(isDigit) else {
                        throw .invalid("Content-Length '\(field)' is not a number of bytes")
                    }
                    guard text.utf8.count <= 18, let n = Int(text) else {
                        throw .invalid("Content-Length '\(field)' is too large")
                    }
                    if let seen, seen != n { throw .invalid("Content-Length fields disagree") }
                    seen = n
                }
            }
            length = seen ?? 0
        }
        if length > limits.maxBodyBytes {
            throw HTTPParseError(status: 413, code: "payload_too_large",
                                 message: "request body is larger than \(limits.maxBodyBytes) bytes")
        }
        let expectations = headers.tokens("Expect")
        if !expectations.isEmpty {
            guard expectations == ["100-continue"] else {
                throw HTTPParseError(status: 417, code: "expectation_failed", message: "only 'Expect: 100-continue' is supported")
            }
            expectsContinue = length > 0 && head.version == .http11
        }
        bodyLength = length
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

/// tchar of RFC 9110 5.6.2.
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
}
