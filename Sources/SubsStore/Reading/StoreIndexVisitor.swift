// The scan of a store: validates the whole document while noting only the byte ranges a
// command needs — the catalog, the top-level fields, and the customers it asked for.

import SubsJSON
import SubsModel

/// Where one customer record stands in the store bytes.
package struct CustomerSpan {
    /// Offset of the key's opening quote, and the key itself (decoded).
    package var keyOffset: Int
    package var id: ID
    /// The record's value (its `{...}`).
    var range: Range<Int>
}

struct StoreIndexVisitor: JSONScanVisitor {
    /// Depth 4 reaches the elements of `customers.X.aliases`.
    let reportDepth = 4
    let buffer: UnsafeRawBufferPointer
    /// Called with the end of each customer read, to hand back the memory of what lies behind.
    let scanned: (Int) -> Void
    let requested: RequestedIds
    /// Told about the catalog and the customers asked for as soon as they are scanned.
    let early: EarlyDecoder?
    /// Told how much of the store lies before every customer asked for (a write copies it early).
    let prefix: PrefixCopier?
    private var requestedSeen = false
    private var prefixPublished = 0
    /// Also keep the span of every customer (`store validate`, completion, the writer).
    let collectAll: Bool

    private(set) var rootIsObject = false
    private(set) var schemaVersion: Range<Int>?
    private(set) var products: Range<Int>?
    private(set) var customers: Range<Int>?

    /// Per requested id: the customer whose key it is.
    private(set) var byKey: [CustomerSpan?]
    /// Per requested id: the customers that list it among their aliases.
    private(set) var byAlias: [[CustomerSpan]]
    private(set) var all: [CustomerSpan] = []
    /// With `collectAll`: every alias and the index in `all` of the customer listing it.
    private(set) var allAliases: [(alias: ID, customer: Int)] = []
    private var pendingAliases: [ID] = []
    /// Offset of the first customer key (its line shows how the store indents customers).
    private(set) var firstCustomerKeyOffset: Int?

    private var inCustomers = false
    private var customerKeyOffset = 0
    private var customerKey: ID?
    private var customerKeyMatches: [Int]?
    private var inAliases = false
    private var aliasMatches: [Int] = []

    init(buffer: UnsafeRawBufferPointer, requested: RequestedIds, collectAll: Bool,
         scanned: @escaping (Int) -> Void = { _ in }, early: EarlyDecoder? = nil, prefix: PrefixCopier? = nil) {
        self.buffer = buffer
        self.scanned = scanned
        self.early = early
        self.prefix = prefix
        self.requested = requested
        self.collectAll = collectAll
        byKey = Array(repeating: nil, count: requested.ids.count)
        byAlias = Array(repeating: [], count: requested.ids.count)
    }

    /// The spans of `requested` as a store index file gives them (no scan): the top level's
    /// ranges, and per requested id its key's customer and the customers listing it as an alias.
    init(buffer: UnsafeRawBufferPointer, requested: RequestedIds, rootIsObject: Bool, schemaVersion: Range<Int>?,
         products: Range<Int>?, customers: Range<Int>?, firstCustomerKeyOffset: Int?,
         byKey: [CustomerSpan?], byAlias: [[CustomerSpan]]) {
        self.init(buffer: buffer, requested: requested, collectAll: false)
        self.rootIsObject = rootIsObject
        self.schemaVersion = schemaVersion
        self.products = products
        self.customers = customers
        self.firstCustomerKeyOffset = firstCustomerKeyOffset
        self.byKey = byKey
        self.byAlias = byAlias
    }

    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) throws {
        switch depth {
        case 0:
            rootIsObject = buffer[start] == UInt8(ascii: "{")
        case 1:
            inCustomers = rootIsObject && buffer[start] == UInt8(ascii: "{") && key?.equals("customers") == true
        case 2 where inCustomers:
            guard let key else { return }
            customerKeyOffset = key.offset
            if firstCustomerKeyOffset == nil { firstCustomerKeyOffset = key.offset }
            customerKeyMatches = requested.isEmpty ? nil : requested.matches(key: key)
            if customerKeyMatches != nil { requestedSeen = true }
            // Bytes before this key precede every customer asked for (an alias match is only known
            // at the end of its customer, which starts after this key).
            if let prefix, !requestedSeen, key.offset - prefixPublished >= 1 << 22 {
                prefix.advance(to: key.offset)
                prefixPublished = key.offset
            }
            customerKey = (collectAll || customerKeyMatches != nil) ? ID(key.string) : nil
            aliasMatches.removeAll(keepingCapacity: true)
        case 3 where inCustomers:
            inAliases = (!requested.isEmpty || collectAll) && key?.equals("aliases") == true
        default:
            break
        }
    }

    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) throws {
        switch depth {
        case 4 where inAliases:
            // A string element of customers.X.aliases: compare it with the requested ids.
            guard buffer[range.lowerBound] == UInt8(ascii: "\"") else { return }
            if collectAll, let alias = try JSON.parse(buffer, range: range).stringValue { pendingAliases.append(ID(alias)) }
            guard !requested.isEmpty else { return }
            let inner = UnsafeRawBufferPointer(rebasing: buffer[(range.lowerBound + 1)..<(range.upperBound - 1)])
            let found: [Int]?
            if inner.contains(UInt8(ascii: "\\")) {
                let decoded = Array((try JSON.parse(buffer, range: range)).stringValue?.utf8 ?? "".utf8)
                found = decoded.withUnsafeBytes { requested.matches(raw: $0) }
            } else {
                found = requested.matches(raw: inner)
            }
            if let found { aliasMatches.append(contentsOf: found) }
        case 3:
            inAliases = false
        case 2 where inCustomers:
            guard let key else { return }
            if customerKey == nil, !aliasMatches.isEmpty { customerKey = ID(key.string) }
            let span = CustomerSpan(keyOffset: customerKeyOffset, id: customerKey ?? "", range: range)
            if let matches = customerKeyMatches {
                for i in matches { byKey[i] = span }
            }
            if customerKeyMatches != nil || !aliasMatches.isEmpty {
                requestedSeen = true
                early?.customerScanned(span)
            }
            // Customers arrive in store order, so this one can only be the last span listed
            // (an id repeated among its aliases): O(1), however many customers share the alias.
            for i in aliasMatches where byAlias[i].last?.keyOffset != span.keyOffset {
                byAlias[i].append(span)
            }
            if collectAll {
                for alias in pendingAliases { allAliases.append((alias, all.count)) }
                pendingAliases.removeAll(keepingCapacity: true)
                all.append(span)
            }
            customerKey = nil
            customerKeyMatches = nil
            scanned(range.upperBound)
        case 1:
            guard rootIsObject, let key else { return }
            if key.equals("schemaVersion") { schemaVersion = range }
            else if key.equals("products") { products = range; early?.productsScanned(range) }
            else if key.equals("customers") { customers = range; inCustomers = false }
        default:
            break
        }
    }
}
