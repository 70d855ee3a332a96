// The GET answer of the subs REST API, spliced from bytes: the few bytes around the record, the
// record's members as they stand in the store (strict JSON, checked when the version was
// indexed; any formatting is JSON whitespace inside the answer), and the catalog's bytes made
// once per version. Nothing is decoded or written again per request.
//   {"requestDate":"…","customer":{"id":"<key>",<the record's members but its own id>},"products":{…}}

import SubsJSON
import SubsStore

enum CustomerAnswer {
    static func body(_ customer: StoredCustomer, products: [UInt8], requestDate: String) -> [UInt8] {
        let record = customer.record
        var out: [UInt8] = []
        out.reserveCapacity(record.count + products.count + 96)
        out.append(contentsOf: #"{"requestDate":"#.utf8)
        out.append(contentsOf: JSON.quote(requestDate).utf8)
        out.append(contentsOf: #","customer":{"id":"#.utf8)
        out.append(contentsOf: JSON.quote(customer.id.string).utf8)
        // The members between the braces, without the record's own `id` member.
        let inner = 1..<(record.count - 1)
        var pieces: [Range<Int>] = [inner]
        if let cut = customer.idMember {
            pieces = [inner.lowerBound..<cut.lowerBound, cut.upperBound..<inner.upperBound]
        }
        let hasMembers = pieces.contains { piece in record[piece].contains { !isSpace($0) } }
        if hasMembers {
            out.append(UInt8(ascii: ","))
            for piece in pieces { out.append(contentsOf: record[piece]) }
        }
        out.append(contentsOf: #"},"products":"#.utf8)
        out.append(contentsOf: products)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
