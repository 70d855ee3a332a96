// The connection engine under the fuzzer: `HTTPConnection` driven as the event loop drives it,
// without a socket, by clients of several kinds. What must hold whatever the bytes and the pace:
// requests come out as the parser reads them, one at a time and in order; answers go out whole
// and in order, a refusal last; unsent bytes stay under the connection's bound (one answer may
// pass it) and nothing is read while at the bound; every connection ends (a client that never
// reads is closed by the write timeout); nothing happens after the end.

import SubsHTTP

private let configuration: HTTPServerConfiguration = {
    var c = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    c.limits = limits
    c.maxUnsentBytesPerConnection = 1024
    c.requestTimeout = 1
    c.idleTimeout = 2
    c.writeTimeout = 1
    return c
}()

/// How the client behaves: the sizes it sends in, what it reads per step (0: nothing), the
/// milliseconds each step lasts, how many steps the handler takes, whether it closes its side
/// once everything is sent.
private struct Client {
    var pieces: [Int]
    var reads: [Int]
    var tick: Int64
    var handlerSteps: Int
    var closeAtEnd: Bool
}

private struct Drive {
    var outcomes: [Outcome] = []
    var output: [UInt8] = []
    /// Per answered request: its size (the handler's bytes).
    var answers: [Int] = []
    var endedAt: Int64 = 0
    /// Closed with answers unsent (write timeout): the last answer may be cut short.
    var aborted = false
    /// A request asked for the connection to close after it (HTTP/1.0, `Connection: close`).
    var closedByRequest = false
}

/// The handler's answer to request `n`: its number in a header, a size chosen by the request
/// (sometimes past the connection's bound).
private func answer(_ n: Int, to request: HTTPRequest) -> [UInt8] {
    let size = 16 + (request.target.utf8.count * 37 + request.body.count * 3 + n) % 1500
    let body = [UInt8](repeating: UInt8(ascii: "a") + UInt8(n % 26), count: size)
    return Array("HTTP/1.1 200 OK\r\nX-Seq: \(n)\r\nContent-Length: \(size)\r\n\r\n".utf8) + body
}

private func drive(_ bytes: UnsafeBufferPointer<UInt8>, _ client: Client) -> Drive {
    let connection = HTTPConnection(configuration: configuration, now: 0)
    var result = Drive()
    var now: Int64 = 0
    var offset = 0, step = 0
    var pending: (HTTPRequest, Int)?   // with the handler: the request and the steps left
    var refused = false
    var inputClosed = false
    let bound = configuration.maxUnsentBytesPerConnection + 1600 + 512
    while connection.phase != .closed {
        step += 1
        precondition(step < 400_000, "the connection never ended")
        // The client sends the next piece when the connection reads.
        if connection.wantsInput {
            if offset < bytes.count {
                let n = min(max(1, client.pieces[step % client.pieces.count]), bytes.count - offset)
                connection.received(bytes[offset..<offset + n], now: now)
                offset += n
            } else if client.closeAtEnd && !inputClosed {
                inputClosed = true
                connection.inputClosed(now: now)
            }
        }
        while let event = connection.advance(now: now) {
            precondition(!refused, "an event after a refusal")
            switch event {
            case .request(let request):
                precondition(pending == nil, "a second request while one is with the handler")
                precondition(connection.phase == .answering)
                result.outcomes.append(.request(method: request.method, target: request.target,
                                                headerCount: request.headers.fields.count, body: request.body))
                pending = (request, client.handlerSteps)
            case .refused(let status):
                refused = true
                result.outcomes.append(.refused(status: status, code: ""))
            }
        }
        if let (request, left) = pending {
            if left <= 0 {
                let bytes = answer(result.answers.count, to: request)
                result.answers.append(bytes.count)
                result.closedByRequest = !request.keepAlive
                connection.answered(bytes, keepAlive: request.keepAlive, now: now)
                pending = nil
                // The loop asks again at once: a pipelined request may be waiting.
                continue
            }
            pending = (request, left - 1)
        }
        // The client reads what it reads this step.
        var want = client.reads[step % client.reads.count]
        while want > 0 && connection.unsentBytes > 0 {
            let taken = connection.withUnsent { front -> [UInt8] in Array(front.prefix(want)) }
            precondition(!taken.isEmpty, "unsent bytes but nothing at the front")
            result.output += taken
            want -= taken.count
            connection.sent(taken.count, now: now)
        }
        _ = connection.takeShutdown()
        now += client.tick
        if case .refused(let status)? = connection.expire(now: now) {
            precondition(status == 408, "a timeout refused with \(status)")
            precondition(!refused, "a refusal after a refusal")
            refused = true
            result.outcomes.append(.refused(status: 408, code: ""))
        }
        // Bounds and liveness, after every step.
        precondition(connection.unsentBytes <= bound, "unsent bytes past the bound: \(connection.unsentBytes)")
        if connection.phase == .reading && connection.outputBlocked { precondition(!connection.wantsInput, "read while at the bound") }
        switch connection.phase {
        case .reading, .closing, .lingering:
            precondition(connection.deadline != nil, "a connection with nothing that ends it")
        case .answering:
            precondition(pending != nil, "answering without a request")
        case .closed:
            precondition(connection.unsentBytes == 0 && !connection.hasWork)
        }
        precondition(!(connection.phase == .lingering && inputClosed), "lingering after the client's end")
    }
    precondition(connection.advance(now: now) == nil && connection.expire(now: now) == nil, "events after the end")
    result.endedAt = now
    result.aborted = connection.aborted
    return result
}

/// The answers in `output`, in order: (status, X-Seq) each; traps on a malformed stream (a cut
/// at the end is allowed when `cutAllowed`).
private func responses(_ output: [UInt8], cutAllowed: Bool) -> [(status: Int, seq: Int?)] {
    var found: [(Int, Int?)] = []
    var i = 0
    let end: [UInt8] = [13, 10, 13, 10]
    while i < output.count {
        var j = i
        while j + 4 <= output.count && !output[j..<j + 4].elementsEqual(end) { j += 1 }
        if j + 4 > output.count {
            precondition(cutAllowed, "an answer cut short")
            break
        }
        let head = String(decoding: output[i..<j], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        precondition(lines.first?.hasPrefix("HTTP/1.1 ") == true, "not a status line: \(lines.first ?? "")")
        let status = Int(lines[0].dropFirst(9).prefix(3)) ?? -1
        var length = 0, seq: Int?
        for line in lines.dropFirst() {
            if line.hasPrefix("Content-Length: ") { length = Int(line.dropFirst(16)) ?? -1 }
            if line.hasPrefix("X-Seq: ") { seq = Int(line.dropFirst(7)) }
        }
        precondition(length >= 0, "a bad Content-Length")
        if j + 4 + length > output.count {
            precondition(cutAllowed, "a body cut short")
            break
        }
        i = j + 4 + length
        if status != 100 { found.append((status, seq)) }
    }
    return found
}

/// The outcome as the connection says it: requests as the parser reads them, then at most one
/// refusal (its code is the parser's business).
private func comparable(_ outcomes: [Outcome]) -> [Outcome] {
    outcomes.map { if case .refused(let status, _) = $0 { return .refused(status: status, code: "") } else { return $0 } }
}

private func isRequest(_ outcome: Outcome) -> Bool {
    if case .request = outcome { return true }
    return false
}

func checkConnection(_ bytes: UnsafeBufferPointer<UInt8>, parsed: [Outcome]) {
    let expected = comparable(parsed)
    let size = bytes.count
    let chosenTick = Int64(bytes[size / 2] % 40)
    let clients = [
        // Reads everything at once, sends everything at once, closes: exactly the parser's outcome.
        Client(pieces: [size], reads: [Int.max], tick: 0, handlerSteps: 0, closeAtEnd: true),
        // Sends byte by byte, reads 97 bytes a step (its answers pile up to the bound).
        Client(pieces: [1], reads: [97], tick: 0, handlerSteps: 1, closeAtEnd: true),
        // Never reads.
        Client(pieces: [Int(bytes[0] % 64) + 1], reads: [0], tick: 10, handlerSteps: 0, closeAtEnd: false),
        // Pace, reading, handler time and clock from the input.
        // (Without a clock nothing times out: it must read something and end by closing.)
        Client(pieces: [Int(bytes[0] % 23) + 1, Int(bytes[size - 1] % 5) + 1],
               reads: [Int(bytes[size / 3] % 200) + (chosenTick == 0 ? 1 : 0), 0, Int(bytes[size / 4]) * 3],
               tick: chosenTick, handlerSteps: Int(bytes[size / 5] % 4), closeAtEnd: chosenTick == 0 || bytes[0] & 1 == 0),
    ]
    for (kind, client) in clients.enumerated() {
        let drive = drive(bytes, client)
        let outcomes = drive.outcomes
        let requests = outcomes.filter { if case .request = $0 { return true } else { return false } }
        // Requests as the parser reads them, in order; with no clock, all of them.
        precondition(Array(expected.prefix(requests.count)) == requests, "client \(kind): requests differ from the parser's")
        if client.tick == 0 && !drive.closedByRequest {
            precondition(outcomes == expected, "client \(kind): the outcome differs from the parser's")
        } else if drive.closedByRequest {
            // Nothing after the request that closes the connection is read.
            precondition(outcomes == Array(expected.prefix(outcomes.count)) && outcomes.last.map(isRequest) == true,
                         "client \(kind): went on after a request that closes")
        } else if let last = outcomes.last, case .refused(let status, _) = last, status != 408 {
            precondition(outcomes == Array(expected.prefix(outcomes.count)), "client \(kind): a refusal the parser did not make")
        }
        let answers = responses(drive.output, cutAllowed: drive.aborted)
        if client.reads.allSatisfy({ $0 == 0 }) {
            precondition(drive.output.isEmpty)
            // Closed by the write timeout once it stopped reading, or earlier.
            precondition(drive.endedAt <= Int64(bytes.count + 10) * client.tick + 4000, "a client that never reads was kept")
            continue
        }
        // Each answer whole and in order, a refusal only last.
        for (n, answer) in answers.enumerated() {
            if let seq = answer.seq {
                precondition(seq == n && answer.status == 200, "client \(kind): answer \(n) out of order")
            } else {
                precondition(n == answers.count - 1, "client \(kind): an answer after a refusal")
                precondition([400, 408, 411, 413, 417, 431, 501, 505].contains(answer.status), "refusal \(answer.status)")
            }
        }
        if client.tick == 0 {
            // Everything the client was owed reached it.
            precondition(answers.filter { $0.seq != nil }.count == requests.count, "client \(kind): an answer was lost")
            precondition(answers.count == outcomes.count, "client \(kind): a refusal was not sent")
        }
    }
}
