// One client connection of the HTTP server as a state machine without a socket: the bytes the
// client sent go in, requests come out one at a time (pipelined ones wait their turn), answers
// go into an outgoing buffer that the owner writes whenever the socket has room. The event loop
// drives it over a socket; the fuzz harness drives it with bytes alone. Times are milliseconds
// on a clock the owner gives (monotonic in the server).
// Decisions: a connection whose unsent bytes reach `maxUnsentBytesPerConnection` takes no
// further request (and is not read) until its client reads; each chunk of unsent bytes must be
// taken by the client within `writeTimeout` of reaching the front, else the connection closes
// (nothing more can reach a client that does not read, so no answer is owed).

#if canImport(Glibc)
import Glibc
#endif

public final class HTTPConnection: @unchecked Sendable {
    public enum Phase: Sendable, Equatable {
        /// Waiting for, or receiving, the next request.
        case reading
        /// A request is with the handler; its answer comes through `answered`.
        case answering
        /// No more requests: the unsent bytes go out, then our side is shut.
        case closing
        /// Our side is shut: what the client still sends is read and dropped for a moment, so
        /// that the last answer is not lost to a reset (unread bytes of an oversized body).
        case lingering
        /// Done: the owner closes the socket.
        case closed
    }

    /// What the owner must act on.
    public enum Event {
        /// Hand this request to the handler, then give its answer to `answered`.
        case request(HTTPRequest)
        /// The client's bytes were refused with this status: the answer is queued, the
        /// connection closes after it (the owner logs it).
        case refused(status: Int)
    }

    public private(set) var phase: Phase = .reading
    /// The answer of the refusal this connection made, for its log line (the request id it carries).
    public private(set) var refusalAnswer: HTTPResponse?
    /// Bytes queued for the client and not written yet.
    public private(set) var unsentBytes = 0
    /// Closed with answers still unsent to a client that does not read them (write timeout,
    /// shed): the owner resets the connection, so the kernel drops what it still holds for it.
    public private(set) var aborted = false

    private let configuration: HTTPServerConfiguration
    private var parser: HTTPRequestParser
    /// Unsent answers, front first; `chunks[head]` has `headSent` bytes written already.
    private var chunks: [[UInt8]] = []
    private var head = 0
    private var headSent = 0
    private var requestDeadline: Int64?   // an unfinished request must be complete by then
    private var idleDeadline: Int64       // an idle keep-alive connection closes then
    private var writeDeadline: Int64?     // the front chunk must be taken by the client by then
    private var lingerDeadline: Int64?
    private var lingered = 0
    private var inputEnded = false
    private var stopping = false
    private var shutdownPending = false
    /// Set by an owner that bounds the request bodies of all its connections together (the
    /// event loop): a body is read only once the owner granted its bytes (`grantBody`).
    public var requiresBodyGrant = false
    private var bodyGranted = false

    /// Small answers are written together: one send for many pipelined answers.
    static let mergeLimit = 64 * 1024
    static let lingerMs: Int64 = 1000

    public init(configuration: HTTPServerConfiguration, now: Int64) {
        self.configuration = configuration
        parser = HTTPRequestParser(limits: configuration.limits)
        idleDeadline = now + Self.ms(configuration.idleTimeout)
    }

    private static func ms(_ seconds: Double) -> Int64 { Int64(seconds * 1000) }

    /// At its bound of unsent bytes: no request is taken (nor read) until the client reads.
    public var outputBlocked: Bool { unsentBytes >= configuration.maxUnsentBytesPerConnection }

    /// The body bytes this connection waits to be granted before its body is read: the
    /// announced `Content-Length` of a request whose head is in; nil when it needs no grant.
    public var bodyWanted: Int? {
        guard requiresBodyGrant, !bodyGranted, phase == .reading, let length = parser.announcedBody, length > 0 else { return nil }
        // A body that came whole with its head is in already: nothing to wait for.
        return parser.bufferedBytes >= length ? nil : length
    }

    /// The owner grants the body's bytes: it is read from now on, and the client's time to send
    /// the request starts again (it could not send while it was not read).
    public func grantBody(now: Int64) {
        guard bodyWanted != nil else { return }
        bodyGranted = true
        requestDeadline = now + Self.ms(configuration.requestTimeout)
    }

    /// Whether the owner should read from the client now. Not while a request is with the
    /// handler, nor while the output is at its bound, nor while a body waits for its grant: the
    /// client's bytes wait in the kernel, and TCP makes the client wait.
    public var wantsInput: Bool {
        guard !inputEnded else { return false }
        switch phase {
        case .reading: return !outputBlocked && bodyWanted == nil
        case .closing, .lingering: return true
        case .answering, .closed: return false
        }
    }

    /// A request is with the handler or answers are still to be written (shutdown waits for these).
    public var hasWork: Bool { phase == .answering || (phase != .closed && unsentBytes > 0) }

    /// The earliest moment `expire` has something to do; nil: none.
    public var deadline: Int64? {
        switch phase {
        case .closed: return nil
        case .lingering: return lingerDeadline
        case .reading where !outputBlocked && bodyWanted == nil:
            let waiting = requestDeadline ?? (unsentBytes == 0 ? idleDeadline : nil)
            guard let waiting else { return writeDeadline }
            return min(writeDeadline ?? .max, waiting)
        default: return writeDeadline
        }
    }

    // MARK: input

    /// Bytes the client sent.
    public func received<C: Collection>(_ bytes: C, now: Int64) where C.Element == UInt8 {
        guard !bytes.isEmpty else { return }
        switch phase {
        case .reading, .answering:
            if phase == .reading && requestDeadline == nil {
                requestDeadline = now + Self.ms(configuration.requestTimeout)
            }
            parser.append(bytes)
        case .closing, .lingering:
            lingered += bytes.count
            if lingered > configuration.limits.maxBodyBytes { close() }
        case .closed:
            break
        }
    }

    /// The client sends nothing more (end of file). A request it left half-sent has nobody to
    /// answer; answers already queued still go out.
    public func inputClosed(now: Int64) {
        inputEnded = true
        if phase == .lingering { close() }
    }

    /// The socket failed (reset, broken pipe): nothing more can be written or read.
    public func failed() { close() }

    /// Closed by the owner with whatever is unsent (the total bound of unsent bytes was passed).
    public func abort() {
        guard phase != .closed else { return }
        aborted = aborted || unsentBytes > 0
        close()
    }

    /// The next thing to do: a request for the handler, or a refusal to log. Nil: nothing now.
    public func advance(now: Int64) -> Event? {
        guard phase == .reading, !outputBlocked else { return nil }
        do {
            if let request = try parser.next() {
                phase = .answering
                requestDeadline = nil
                bodyGranted = false
                return .request(request)
            }
        } catch {
            return refuse(error.refusal, now: now)
        }
        if parser.expectsContinue {
            queue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), now: now)
            parser.continueSent()
        }
        if inputEnded { finish(now: now) }
        return nil
    }

    /// The serialized answer to the request handed out last; `keepAlive` false closes after it.
    public func answered(_ bytes: [UInt8], keepAlive: Bool, now: Int64) {
        guard phase == .answering else { return }
        queue(bytes, now: now)
        idleDeadline = now + Self.ms(configuration.idleTimeout)
        if keepAlive && !stopping {
            phase = .reading
            // Bytes of the next request that came meanwhile start its clock now.
            requestDeadline = parser.hasPartialRequest ? now + Self.ms(configuration.requestTimeout) : nil
        } else {
            finish(now: now)
        }
    }

    /// `answered` for a response as a handler returns it (the Date header from the wall clock).
    public func answered(_ response: HTTPResponse, to request: HTTPRequest, now: Int64, date: String? = nil) {
        let keepAlive = request.keepAlive && !response.closeConnection && !stopping
        answered(response.serialized(keepAlive: keepAlive, headOnly: request.method == "HEAD", date: date ?? imfFixdate(Int(time(nil))),
                                       refusal: configuration.refusalResponse),
                 keepAlive: keepAlive, now: now)
    }

    /// Timeouts: a request not complete in time is refused (408); an idle connection closes;
    /// unsent bytes not taken in time close it.
    public func expire(now: Int64) -> Event? {
        switch phase {
        case .closed:
            return nil
        case .lingering:
            if now >= lingerDeadline ?? now { close() }
            return nil
        default:
            break
        }
        if let deadline = writeDeadline, now >= deadline {
            abort()
            return nil
        }
        // A body waiting for its grant is not late: its client cannot send.
        guard phase == .reading, !outputBlocked, bodyWanted == nil else { return nil }
        if let deadline = requestDeadline {
            if now >= deadline {
                return refuse(HTTPRefusal(status: 408, code: "request_timeout",
                                     message: "the request was not complete within \(configuration.requestTimeout) s"), now: now)
            }
        } else if unsentBytes == 0 && now >= idleDeadline {
            close()
        }
        return nil
    }

    /// The server is stopping: no new request is taken; one with the handler is answered, then
    /// the connection closes; an idle or half-received one closes now.
    public func stop(now: Int64) {
        stopping = true
        if phase == .reading {
            if unsentBytes == 0 { close() } else { finish(now: now) }
        }
    }

    // MARK: output

    /// The unsent bytes at the front (one chunk; the owner writes what the socket takes and
    /// says how much with `sent`).
    public func withUnsent<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard head < chunks.count else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let offset = headSent
        return chunks[head].withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }

    /// `count` bytes from the front were written.
    public func sent(_ count: Int, now: Int64) {
        precondition(count >= 0 && count <= unsentBytes, "sent more than was queued")
        let wasBlocked = outputBlocked
        var left = count
        while left > 0 {
            let n = min(left, chunks[head].count - headSent)
            headSent += n
            left -= n
            unsentBytes -= n
            if headSent == chunks[head].count {
                chunks[head] = []
                head += 1
                headSent = 0
                writeDeadline = unsentBytes > 0 ? now + Self.ms(configuration.writeTimeout) : nil
            }
        }
        if head == chunks.count {
            chunks.removeAll()
            head = 0
        } else if head >= 64 && head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
        if wasBlocked && !outputBlocked && phase == .reading && parser.hasPartialRequest {
            // Its client could not send while it was not read: the request's clock starts again.
            requestDeadline = now + Self.ms(configuration.requestTimeout)
        }
        if unsentBytes == 0 {
            idleDeadline = now + Self.ms(configuration.idleTimeout)
            if phase == .closing { shutOutput(now: now) }
        }
    }

    /// True once when the owner must shut the socket's sending side (then linger).
    public func takeShutdown() -> Bool {
        defer { shutdownPending = false }
        return shutdownPending
    }

    // MARK: private

    private func queue(_ bytes: [UInt8], now: Int64) {
        guard !bytes.isEmpty, phase != .closed else { return }
        if unsentBytes == 0 { writeDeadline = now + Self.ms(configuration.writeTimeout) }
        if chunks.count > head, chunks[chunks.count - 1].count + bytes.count <= Self.mergeLimit {
            chunks[chunks.count - 1].append(contentsOf: bytes)
        } else {
            chunks.append(bytes)
        }
        unsentBytes += bytes.count
    }

    private func refuse(_ refusal: HTTPRefusal, now: Int64) -> Event {
        var response = configuration.refusalResponse(refusal)
        response.status = refusal.status
        refusalAnswer = response
        queue(response.serialized(keepAlive: false, headOnly: false, date: imfFixdate(Int(time(nil))),
                                  refusal: configuration.refusalResponse), now: now)
        finish(now: now)
        return .refused(status: response.status)
    }

    /// No more requests: write what is queued, then shut our side.
    private func finish(now: Int64) {
        phase = .closing
        requestDeadline = nil
        if unsentBytes == 0 { shutOutput(now: now) }
    }

    private func shutOutput(now: Int64) {
        if inputEnded {
            close()
            return
        }
        phase = .lingering
        shutdownPending = true
        lingerDeadline = now + Self.lingerMs
    }

    private func close() {
        phase = .closed
        chunks = []
        head = 0
        headSent = 0
        unsentBytes = 0
        writeDeadline = nil
        shutdownPending = false
    }
}
