// The scan of `find`: the same one strict pass over the store as `check` (the index visitor
// rides along for ids, aliases, the catalog and the top level), which also compares each
// customer's email and asked-for attributes with the terms, and looks for the terms among its
// transactions' ids with a byte search: only the customers that match are ever decoded.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON
import SubsSystem

/// The terms, prepared for comparisons with raw store bytes.
struct SearchTerms {
    /// Exact: ids, aliases, transaction and order ids, attribute values.
    let exact: RequestedIds
    /// Emails and display names: each term lowercased (Unicode lowercase mapping, as `String.lowercased()`).
    let lowered: RequestedIds
    /// `"term"` as it stands in a store that needs no escape for it (nil when it would need one).
    let quoted: [[UInt8]?]
    let attributeKeys: [String]

    init(_ query: FindQuery) {
        exact = RequestedIds(query.terms.ids)
        lowered = RequestedIds(query.terms.map { ID($0.lowercased()) })
        quoted = query.terms.map { term in
            let bytes = Array(term.utf8)
            // A quote or backslash is always escaped in JSON; anything else may stand as is.
            guard !bytes.contains(UInt8(ascii: "\"")) && !bytes.contains(UInt8(ascii: "\\")) else { return nil }
            return [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
        }
        attributeKeys = query.attributes
    }

    var count: Int { exact.ids.count }
}

/// One customer found by a term, and the best kind of match seen so far.
struct SearchHit {
    var span: CustomerSpan
    var kind: MatchKind
}

struct StoreSearchVisitor: JSONScanVisitor {
    /// Depth 4 reaches `customers.X.attributes.KEY` and each element of `customers.X.transactions`;
    /// with many terms, depth 5 reaches each transaction's fields (see `transactions`).
    let reportDepth: Int
    let buffer: UnsafeRawBufferPointer
    /// Ids and aliases of the terms, and everything `check` notes (catalog, top level).
    private(set) var index: StoreIndexVisitor
    let terms: SearchTerms
    /// Up to this many terms, a byte search per term finds the transactions that may hold one;
    /// with more, the scan reports each transaction's ids, compared with all terms at once.
    static let termsSearchedOneByOne = 2
    private var byFields: Bool { reportDepth == 5 }

    /// Per term: customers found by email, transaction, order id or attribute, in store order.
    private(set) var hits: [[SearchHit]]

    private var inCustomers = false
    private var inAttributes = false
    private var inTransactions = false
    private var inTransaction = false
    /// (term, kind) found in the customer being read.
    private var pending: [(term: Int, kind: MatchKind)] = []
    private var scratch: [UInt8] = []

    /// `locating`: ids whose customers the index notes too (after the terms' own: `index.byKey`
    /// from `query.terms.count` on), never matched against the terms.
    init(buffer: UnsafeRawBufferPointer, query: FindQuery, locating: [ID] = [], scanned: @escaping (Int) -> Void) {
        self.buffer = buffer
        terms = SearchTerms(query)
        index = StoreIndexVisitor(buffer: buffer, requested: RequestedIds(query.terms.ids + locating), collectAll: false,
                                  scanned: scanned)
        hits = Array(repeating: [], count: query.terms.count)
        reportDepth = query.terms.count <= StoreSearchVisitor.termsSearchedOneByOne ? 4 : 5
    }

    mutating func enter(depth: Int, key: JSONKey?, index position: Int, start: Int) throws {
        switch depth {
        case 1:
            inCustomers = index.rootIsObject && buffer[start] == UInt8(ascii: "{") && key?.equals("customers") == true
        case 2:
            inAttributes = false
            inTransactions = false
            pending.removeAll(keepingCapacity: true)
        case 3 where inCustomers:
            inAttributes = buffer[start] == UInt8(ascii: "{") && key?.equals("attributes") == true
            inTransactions = byFields && buffer[start] == UInt8(ascii: "[") && key?.equals("transactions") == true
        case 4:
            inTransaction = inTransactions && buffer[start] == UInt8(ascii: "{")
        case 5:
            return
        default:
            break
        }
        try index.enter(depth: depth, key: key, index: position, start: start)
    }

    mutating func value(depth: Int, key: JSONKey?, index position: Int, range: Range<Int>) throws {
        switch depth {
        case 5:
            if inTransaction, let key { try transactionField(key, range) }
            return
        case 4:
            if inAttributes, let key { try attribute(key, range) }
            inTransaction = false
        case 3 where inCustomers:
            inAttributes = false
            inTransactions = false
            if !byFields, key?.equals("transactions") == true, buffer[range.lowerBound] == UInt8(ascii: "[") {
                try transactions(range)
            }
        case 2 where inCustomers:
            if !pending.isEmpty, let key {
                let span = CustomerSpan(keyOffset: key.offset, id: ID(key.string), range: range)
                var best: [Int: MatchKind] = [:]
                for (term, kind) in pending { best[term] = min(best[term] ?? kind, kind) }
                for (term, kind) in best.sorted(by: { $0.key < $1.key }) { hits[term].append(SearchHit(span: span, kind: kind)) }
                pending.removeAll(keepingCapacity: true)
            }
        case 1:
            if key?.equals("customers") == true { inCustomers = false }
        default:
            break
        }
        // Last: the index hands back the pages of a customer once it has seen its end.
        try index.value(depth: depth, key: key, index: position, range: range)
    }

    // MARK: - Attributes

    /// `customers.X.attributes.KEY`: the email (any case) and the attributes asked for (exact).
    private mutating func attribute(_ key: JSONKey, _ range: Range<Int>) throws {
        let first = buffer[range.lowerBound]
        let isString = first == UInt8(ascii: "\"")
        if isString && key.equals("email") {
            for term in try caseInsensitiveMatches(range) { pending.append((term, .email)) }
        }
        if isString && MatchKind.displayNameKeys.contains(where: { key.equals($0) }) {
            for term in try caseInsensitiveMatches(range) { pending.append((term, .displayName)) }
        }
        guard !terms.attributeKeys.isEmpty, terms.attributeKeys.contains(where: { key.equals($0) }) else { return }
        // Strings by their text; numbers as they are written (`"crmId": 1042` matches 1042).
        let isNumber = first == UInt8(ascii: "-") || (0x30...0x39).contains(first)
        guard isString || isNumber else { return }
        let found = try withText(range, isString: isString) { terms.exact.matches(raw: $0) }
        for term in found ?? [] { pending.append((term, .attribute)) }
    }

    /// Terms equal to the string (an email, a name) at `range` once both are lowercased.
    private mutating func caseInsensitiveMatches(_ range: Range<Int>) throws -> [Int] {
        let inner = UnsafeRawBufferPointer(rebasing: buffer[(range.lowerBound + 1)..<(range.upperBound - 1)])
        if !inner.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "\\") }) {
            // ASCII, as nearly every email is: lowercased byte by byte, no String made.
            scratch.removeAll(keepingCapacity: true)
            for byte in inner { scratch.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) }
            return scratch.withUnsafeBytes { terms.lowered.matches(raw: $0) } ?? []
        }
        guard let text = try JSON.parse(buffer, range: range).stringValue else { return [] }
        let lowered = Array(text.lowercased().utf8)
        return lowered.withUnsafeBytes { terms.lowered.matches(raw: $0) } ?? []
    }

    /// `body` with the bytes of the value at `range`: a string's text (escapes decoded), else the literal.
    private func withText<T>(_ range: Range<Int>, isString: Bool, _ body: (UnsafeRawBufferPointer) -> T) throws -> T {
        guard isString else { return body(UnsafeRawBufferPointer(rebasing: buffer[range])) }
        let inner = UnsafeRawBufferPointer(rebasing: buffer[(range.lowerBound + 1)..<(range.upperBound - 1)])
        guard inner.contains(UInt8(ascii: "\\")) else { return body(inner) }
        let decoded = Array((try JSON.parse(buffer, range: range).stringValue ?? "").utf8)
        return decoded.withUnsafeBytes(body)
    }

    // MARK: - Transactions

    /// `customers.X.transactions`: a byte search finds the customers whose transactions may
    /// hold a term; those (few) are then read exactly.
    private mutating func transactions(_ range: Range<Int>) throws {
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[range])
        let escaped = memchr(bytes.baseAddress!, 0x5C, bytes.count) != nil
        // Escapes can spell any character another way: only reading the values tells.
        // Without a backslash every string stands in the bytes exactly as its text: a term can only
        // be there as `"term"`, and only as the value of one of the three keys.
        guard escaped || terms.quoted.contains(where: { quoted in quoted.map { Self.holdsIdValue(bytes, $0) } ?? false }) else {
            return
        }
        guard case .array(let list) = try JSON.parse(buffer, range: range) else { return }
        for case .object(let fields) in list {
            for kind in [MatchKind.transactionId, .originalTransactionId, .orderId] {
                guard case .string(let value)? = fields[kind.rawValue] else { continue }
                let found = Array(value.utf8).withUnsafeBytes { terms.exact.matches(raw: $0) }
                for term in found ?? [] { pending.append((term, kind)) }
            }
        }
    }

    /// Whether `quoted` stands in `bytes` (which hold no backslash) as the value of a
    /// `"transactionId"`, `"originalTransactionId"` or `"orderId"` key — `"pro_monthly"` as a
    /// productId is not read further. (A nested object's key passes too: the parse decides.)
    private static func holdsIdValue(_ bytes: UnsafeRawBufferPointer, _ quoted: [UInt8]) -> Bool {
        var from = 0
        while let at = ByteSearch.find(quoted, in: bytes, from: from) {
            if isIdValue(bytes, at: at) { return true }
            from = at + 1
        }
        return false
    }

    private static let idKeys: [[UInt8]] = [MatchKind.transactionId, .originalTransactionId, .orderId].map { Array($0.rawValue.utf8) }

    /// Whether the string opening at `at` follows `"KEY":` for one of `idKeys`.
    private static func isIdValue(_ bytes: UnsafeRawBufferPointer, at: Int) -> Bool {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        var p = at - 1
        while p >= 0, isSpace(bytes[p]) { p -= 1 }
        guard p >= 0, bytes[p] == UInt8(ascii: ":") else { return false }
        p -= 1
        while p >= 0, isSpace(bytes[p]) { p -= 1 }
        guard p >= 0, bytes[p] == UInt8(ascii: "\"") else { return false }
        return idKeys.contains { key in
            let start = p - key.count
            guard start >= 1, bytes[start - 1] == UInt8(ascii: "\"") else { return false }
            return key.withUnsafeBytes { memcmp(bytes.baseAddress! + start, $0.baseAddress!, key.count) == 0 }
        }
    }

    /// Many terms: `customers.X.transactions[i].KEY`, compared with every term by hash.
    private mutating func transactionField(_ key: JSONKey, _ range: Range<Int>) throws {
        guard buffer[range.lowerBound] == UInt8(ascii: "\""), key.raw.count >= 7 else { return }
        let kind: MatchKind
        if key.equals("transactionId") { kind = .transactionId }
        else if key.equals("originalTransactionId") { kind = .originalTransactionId }
        else if key.equals("orderId") { kind = .orderId }
        else { return }
        let found = try withText(range, isString: true) { terms.exact.matches(raw: $0) }
        for term in found ?? [] { pending.append((term, kind)) }
    }
}
