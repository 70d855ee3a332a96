// `GET /v1/customers?search=TERM` (`&attribute=KEY`, repeatable; `&at=DATE`, `&limit=N`,
// `&cursor=C`) of the subs REST API: the find document of SPEC section 4 for one term —
// `{"term", "matches": [{"customerId", "matchedBy", "email", "activeEntitlements"}]}` — evaluated
// at the server's clock (or `at`), one page at a time. A search reads the store file in one scan,
// exactly as a local `subs find` does (emails and transaction ids are not in the served index:
// indexing a million transaction ids would cost more memory than the rest of the server), then
// decodes only the customers of its page, a few at a time, and writes their matches as it goes.
// Memory: what the scan notes of each match (its place), and one page — at most `limit` matches
// (default 1000, at most 10 000) and about 1 MiB of answer; `SearchGate` bounds how many run at
// once. A page that is not the last carries `"next"`, a cursor for the following one (no `next`:
// the last page, so that one page is exactly the find document).
// Decisions: the cursor names the match the page ended on (its kind and customer id, with its
// place as a fallback) and the instant the first page was evaluated at: the next page is the
// matches after that customer in the order of a fresh scan, at the same instant — a match is
// never repeated, and one that matched throughout is never skipped, however the store changed
// in between (a customer removed in between is passed by its old place).

import SubsJSON
import SubsSystem
import SubsHTTP
import SubsModel
import SubsStore

struct CustomerSearchRoute {
    let store: LocalStore
    let clock: any Clock

    /// Matches per page unless `limit` says otherwise, and the most `limit` may ask for.
    static let defaultLimit = 1000
    static let maxLimit = 10_000
    /// A page ends once its answer passes this many bytes (with at least one match).
    static let pageBytes = 1 << 20
    /// Pages of the store a search's scan hands back at a time (a command's scan: 16 MiB):
    /// several searches run at once.
    static let releaseStep = 4 << 20

    /// The answer to `request`; `failure` turns a store error into the API's error answer.
    func answer(_ request: HTTPRequest, failure: (Error) -> HTTPResponse) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return .methodNotAllowed(allow: ["GET", "HEAD"]) }
        let search: SearchRequest
        switch SearchRequest.parse(request.query ?? "", now: clock.now()) {
        case .success(let parsed): search = parsed
        case .failure(let refusal): return .invalidRequest(refusal.message)
        }
        // What the page's scan and decoding freed goes back to the system: searches run on any
        // of the workers, and each one's malloc arena would keep it (eight searches of 20 000
        // matches each left serve 150 MB larger).
        defer { Heap.trim() }
        do {
            return try page(search)
        } catch {
            return failure(error)
        }
    }

    private func page(_ search: SearchRequest) throws -> HTTPResponse {
        let at = search.cursor?.at ?? search.at ?? clock.now()
        let scan = try store.searchScan(search.query, locating: search.cursor.map { [$0.customerId] } ?? [],
                                        releaseStep: Self.releaseStep)
        return try scan.store.file.reading { () throws -> HTTPResponse in
            var hits = scan.perTerm[0][...]
            if let cursor = search.cursor {
                // After the customer the previous page ended on, where it stands now; when it is
                // gone, from its place (where the customer after it may stand now).
                if let anchor = scan.located[0] {
                    hits = hits.drop(while: { ($0.kind.rank, $0.span.keyOffset) <= (cursor.kind.rank, anchor.keyOffset) })
                } else {
                    hits = hits.drop(while: { ($0.kind.rank, $0.span.keyOffset) < (cursor.kind.rank, cursor.keyOffset) })
                }
            }
            var body: [UInt8] = []
            body.append(contentsOf: #"{"term":"#.utf8)
            body.append(contentsOf: JSON.quote(search.query.terms[0]).utf8)
            body.append(contentsOf: #","matches":["#.utf8)
            var written = 0
            var last: SearchHit?
            // A few customers decoded at a time (on all cores), written, then let go.
            let step = 64
            pages: while written < search.limit, !hits.isEmpty {
                let batch = Array(hits.prefix(min(step, search.limit - written)))
                let records = try scan.records(batch)
                for (hit, record) in zip(batch, records) {
                    if written > 0 { body.append(UInt8(ascii: ",")) }
                    let match = FindMatch(customerId: record.id, matchedBy: hit.kind, email: FindMatch.email(of: record),
                                          activeEntitlements: EntitlementRules.evaluate(record, catalog: scan.catalog, at: at)
                                              .filter(\.isActive).map(\.id))
                    body.append(contentsOf: JSONWriter.compact(match.document).utf8)
                    written += 1
                    last = hit
                    hits = hits.dropFirst()
                    if body.count >= Self.pageBytes { break pages }
                }
            }
            body.append(UInt8(ascii: "]"))
            if !hits.isEmpty, let last {
                let next = SearchCursor(kind: last.kind, keyOffset: last.span.keyOffset, customerId: last.span.id, at: at,
                                        fingerprint: search.fingerprint)
                body.append(contentsOf: #","next":"#.utf8)
                body.append(contentsOf: JSON.quote(next.encoded).utf8)
            }
            body.append(contentsOf: "}\n".utf8)
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
    }
}

/// The parameters of one search request, checked.
struct SearchRequest {
    var query: FindQuery
    var at: Instant?
    var limit: Int
    var cursor: SearchCursor?

    struct Refusal: Error {
        var message: String
    }

    /// What identifies the search a cursor belongs to: the term and the attribute keys.
    var fingerprint: UInt64 {
        var bytes: [UInt8] = Array(query.terms[0].utf8)
        for key in query.attributes { bytes.append(0); bytes.append(contentsOf: key.utf8) }
        return bytes.withUnsafeBytes { RequestedIds.hash($0) }
    }

    static func parse(_ query: String, now: Instant) -> Result<SearchRequest, Refusal> {
        var terms: [String] = []
        var attributes: [String] = []
        var at: [String] = [], limit: [String] = [], cursor: [String] = []
        for parameter in query.utf8.split(separator: UInt8(ascii: "&")) {
            let parts = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            // `+` stays a plus sign (emails hold it); a space is %20.
            guard let name = HTTPRequest.percentDecode(parts[0]),
                  let value = parts.count == 2 ? HTTPRequest.percentDecode(parts[1]) : "" else {
                return .failure(Refusal(message: "the query string is not valid percent-encoded UTF-8"))
            }
            switch name {
            case "search": terms.append(value)
            case "attribute": attributes.append(value)
            case "at": at.append(value)
            case "limit": limit.append(value)
            case "cursor": cursor.append(value)
            default:
                return .failure(Refusal(message: "unknown query parameter '\(name)' (this route takes search, attribute, at, limit and cursor)"))
            }
        }
        guard terms.count == 1, let term = terms.first else {
            return .failure(Refusal(message: terms.isEmpty ? "search: required (GET /v1/customers?search=TERM)" : "search: give one term per request"))
        }
        var request = SearchRequest(query: FindQuery(terms: [term], attributes: attributes), at: nil,
                                    limit: CustomerSearchRoute.defaultLimit, cursor: nil)
        if let problem = request.query.problem { return .failure(Refusal(message: "search: \(problem)")) }
        for (name, values) in [("at", at), ("limit", limit), ("cursor", cursor)] where values.count > 1 {
            return .failure(Refusal(message: "\(name): give it once"))
        }
        if !at.isEmpty {
            // `at` in the forms of --at, as on every route (QueryParameters).
            switch QueryParameters.instant(at[0], name: "at", now: now) {
            case .success(let instant): request.at = instant
            case .failure(let refusal): return .failure(Refusal(message: refusal.message))
            }
        }
        if let text = limit.first {
            guard let n = Int(text), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  (1...CustomerSearchRoute.maxLimit).contains(n) else {
                return .failure(Refusal(message: "limit: '\(text)' is not a whole number from 1 to \(CustomerSearchRoute.maxLimit)"))
            }
            request.limit = n
        }
        if let text = cursor.first {
            guard let decoded = SearchCursor(encoded: text) else {
                return .failure(Refusal(message: "cursor: not a cursor this server gave (pass the `next` of the previous page as it is)"))
            }
            guard decoded.fingerprint == request.fingerprint else {
                return .failure(Refusal(message: "cursor: it belongs to another search (its term or attributes differ)"))
            }
            if let asked = request.at, asked != decoded.at {
                return .failure(Refusal(message: "at: the cursor's pages are evaluated at \(ISODate.format(decoded.at)); "
                                        + "leave at out or give that instant"))
            }
            request.cursor = decoded
        }
        return .success(request)
    }
}

/// Where a page of a search ended, and the instant its pages are evaluated at: the opaque
/// `next` of a search answer (base64url of a few lines of text).
struct SearchCursor: Equatable {
    var kind: MatchKind
    /// Where the customer stood (its key's offset) when the page was made: the fallback when it
    /// is gone from the store.
    var keyOffset: Int
    var customerId: ID
    var at: Instant
    var fingerprint: UInt64

    init(kind: MatchKind, keyOffset: Int, customerId: ID, at: Instant, fingerprint: UInt64) {
        self.kind = kind
        self.keyOffset = keyOffset
        self.customerId = customerId
        self.at = at
        self.fingerprint = fingerprint
    }

    private static let version = "s1"

    /// `s1`, a checksum of the rest (a cursor cut short or mistyped is refused, not read as
    /// another place), the kind, the place, the instant, the search's fingerprint, the id.
    var encoded: String {
        let rest = [kind.rawValue, String(keyOffset), ISODate.format(at), String(fingerprint, radix: 16), customerId.string]
            .joined(separator: "\n")
        return Base64URL.encode(Array((Self.version + "\n" + Self.checksum(rest) + "\n" + rest).utf8))
    }

    init?(encoded: String) {
        guard let bytes = Base64URL.decode(encoded),
              let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let head = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard head.count == 3, head[0] == Self.version, head[1] == Self.checksum(head[2]) else { return nil }
        let fields = head[2].split(separator: "\n", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5, let kind = MatchKind(rawValue: fields[0]),
              let offset = Int(fields[1]), offset >= 0, let at = ISODate.parse(fields[2]),
              let fingerprint = UInt64(fields[3], radix: 16), !fields[4].isEmpty else { return nil }
        self.init(kind: kind, keyOffset: offset, customerId: ID(fields[4]), at: at, fingerprint: fingerprint)
    }

    private static func checksum(_ text: String) -> String {
        String(Array(text.utf8).withUnsafeBytes { RequestedIds.hash($0) }, radix: 16)
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5): a cursor needs no
/// percent-encoding in a query string.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var chunk = UInt32(bytes[i]) << 16
            if n > 1 { chunk |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { chunk |= UInt32(bytes[i + 2]) }
            for k in 0...n { out.append(alphabet[Int((chunk >> (18 - 6 * UInt32(k))) & 63)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var value = [Int](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { value[Int(c)] = i }
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in input {
            let v = value[Int(c)]
            guard v >= 0 else { return nil }
            buffer = (buffer << 6) | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        // The bits left over must be zero (one spelling per cursor).
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
