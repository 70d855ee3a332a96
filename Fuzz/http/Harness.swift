// libFuzzer harness for SubsHTTP's HTTP/1.x request parser and the connection engine over it:
// the input is what a client sends on one connection, after junk when it asks for some
// (`withJunk`: CRs, blank lines, spaces before the request line). The parser is fed it whole,
// byte by byte and in pieces; the connection state machine (`HTTPConnection`, what the event
// loop drives over a socket) is fed it under several clients — one that reads every answer at
// once, one that reads a little at a time, one that never reads, one whose pace, answers and
// clock the input chooses (Connection.swift). Built as its own module against the SubsHTTP
// object alone (public API only, see scripts/fuzz): the engine needs no subs code. A broken
// invariant traps.

import SubsHTTP

let limits: HTTPLimits = {
    // Small limits so that the fuzzer reaches the 431 and 413 paths with short inputs.
    var l = HTTPLimits()
    l.maxHeaderBytes = 2048
    l.maxBodyBytes = 4096
    return l
}()
private let refusalStatuses: Set<Int> = [400, 411, 413, 417, 431, 501, 505]

enum Outcome: Equatable {
    case request(method: String, target: String, headerCount: Int, body: [UInt8])
    case refused(status: Int, code: String)
}

/// Feeds `bytes` in pieces of the given sizes (cycled) and collects everything the parser says.
func run(_ bytes: UnsafeBufferPointer<UInt8>, pieces: [Int]) -> [Outcome] {
    var parser = HTTPRequestParser(limits: limits)
    var outcomes: [Outcome] = []
    var offset = 0, piece = 0
    while offset < bytes.count {
        let n = min(max(1, pieces[piece % pieces.count]), bytes.count - offset)
        parser.append(bytes[offset..<offset + n])
        offset += n
        piece += 1
        do {
            while let request = try parser.next() {
                check(request)
                outcomes.append(.request(method: request.method, target: request.target,
                                         headerCount: request.headers.fields.count, body: request.body))
            }
            // Whatever came before (junk, blank lines, a head that never ends), nothing is held
            // past the header limit while a head is read, nor past the announced body after.
            precondition(parser.bufferedBytes <= max(limits.maxHeaderBytes, limits.maxBodyBytes),
                         "\(parser.bufferedBytes) bytes held for an unfinished request")
        } catch {
            precondition(refusalStatuses.contains(error.status), "unexpected refusal status \(error.status)")
            precondition(!error.code.isEmpty && !error.message.isEmpty, "refusal without a code or message")
            outcomes.append(.refused(status: error.status, code: error.code))
            // Errors are final: the same error again, whatever follows.
            let status = error.status
            parser.append([0x0D, 0x0A])
            do {
                _ = try parser.next()
                preconditionFailure("parser went on after an error")
            } catch {
                precondition(error.status == status, "a second, different error")
            }
            return outcomes
        }
    }
    return outcomes
}

private func check(_ request: HTTPRequest) {
    precondition(!request.method.isEmpty && request.method.utf8.count <= limits.maxMethodBytes, "bad method accepted")
    precondition(request.target.hasPrefix("/"), "target without '/' accepted")
    precondition(request.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "target with a control or non-ASCII byte accepted")
    precondition(request.body.count <= limits.maxBodyBytes, "body over the limit accepted")
    precondition(request.headers.fields.count <= limits.maxHeaderFields, "more header fields than the limit accepted")
    precondition(request.path.hasPrefix("/") && (request.query == nil || request.target.contains("?")))
    for field in request.headers {
        precondition(!field.value.contains(0x0D) && !field.value.contains(0x0A) && !field.value.contains(0), "CR, LF or NUL in a header value")
        precondition(!field.name.isEmpty && !field.name.contains(":"), "bad header name accepted")
    }
    if request.version == .http11 { precondition(request.headers.values("Host").count == 1, "HTTP/1.1 without one Host") }
    precondition(request.headers.values("Transfer-Encoding").isEmpty, "Transfer-Encoding accepted")
    if let segments = request.pathSegments {
        // Re-encoding is not checked byte for byte (escapes are case-insensitive), but the count
        // of segments is that of the literal slashes.
        precondition(segments.count == request.path.utf8.filter { $0 == UInt8(ascii: "/") }.count, "segment count")
    }
    _ = request.keepAlive
}

/// Junk before the request line: an input whose first byte is 0–3 stands for that many bytes of
/// CRs, CRLFs, spaces or its third byte (its second byte says how many: 0–127 bytes one by one,
/// then in steps of 34 up to twice the header limit), then the rest of the input. Junk past the
/// limit is refused: no request gets through after it.
private func withJunk(_ data: UnsafePointer<UInt8>, _ size: Int) -> (bytes: [UInt8], junk: Int)? {
    guard size >= 3, data[0] <= 3 else { return nil }
    let patterns: [[UInt8]] = [[0x0D], [0x0D, 0x0A], [0x20], [data[2]]]
    let pattern = patterns[Int(data[0])]
    let count = data[1] < 128 ? Int(data[1]) : Int(data[1] - 127) * 34
    var bytes: [UInt8] = []
    while bytes.count < count { bytes += pattern }
    let junk = bytes.count
    bytes += UnsafeBufferPointer(start: data + 2, count: size - 2)
    return (bytes, junk)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    if let (bytes, junk) = withJunk(data, size) {
        bytes.withUnsafeBufferPointer { buffer in
            let outcomes = fuzzStream(buffer)
            if junk > limits.maxHeaderBytes {
                guard case .refused? = outcomes.first else { preconditionFailure("\(junk) bytes of junk not refused") }
            }
        }
        return 0
    }
    _ = fuzzStream(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// What a client sends on one connection, parsed whole, byte by byte and in pieces, then driven
/// through the connection engine; the parser's outcome.
private func fuzzStream(_ bytes: UnsafeBufferPointer<UInt8>) -> [Outcome] {
    let size = bytes.count
    guard size > 0 else { return [] }
    let whole = run(bytes, pieces: [size])
    let byteByByte = run(bytes, pieces: [1])
    // Split points chosen by the input itself, so the fuzzer explores them.
    let chosen = run(bytes, pieces: [Int(bytes[0] % 17) + 1, Int(bytes[size - 1] % 7) + 1, 3])
    precondition(whole == byteByByte, "feeding one byte at a time changed the outcome")
    precondition(whole == chosen, "the split points changed the outcome")
    checkConnection(bytes, parsed: whole)
    return whole
}
