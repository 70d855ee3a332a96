// A page of a platform's list read one element at a time (SPEC section 7 rev. 4, "Budgets"): the
// answer is validated whole, exactly as a parse would (the same errors, at the same positions),
// but no tree of the whole page is built — a 15 MiB page parsed into one tree took three times
// its bytes for a moment. The root's other members are parsed (they are small), the list's
// elements are kept as byte ranges and parsed one by one, so a listing keeps only what it makes
// of each element, and can stop in the middle of a page when the command's byte budget is full.

import SubsJSON

public struct WirePage {
    /// The answer's root: its members as sent, except the list member, which stands as `[]` when
    /// it is an array (its elements are `elements`). A root that is not an object is a value of
    /// its type (its content left out), so that the decoder's "expected an object, found …" is
    /// said as before.
    public let root: JSONValue
    /// Where each element of the list member lies in the answer, in order; nil when the root is
    /// not an object, or has no such member, or it is not an array (then `root` holds it as sent).
    public let elements: [Range<Int>]?
    private let bytes: [UInt8]

    /// Reads `bytes` (one JSON document whose root should be an object) with `list` as the
    /// member holding the list. Throws the parser's error when the bytes are not JSON.
    public static func read(_ bytes: [UInt8], list: String) throws(JSONError) -> WirePage {
        var visitor = Visitor(list: list)
        do {
            try bytes.withUnsafeBytes { buffer in try JSON.scan(buffer, visitor: &visitor) }
        } catch let error as JSONError {
            throw error
        } catch {
            throw JSONError(message: "\(error)", offset: 0, line: 1, column: 1)
        }
        guard let first = visitor.rootStart.map({ bytes[$0] }), first == UInt8(ascii: "{") else {
            return WirePage(root: Self.placeholder(bytes.first { !Self.isSpace($0) } ?? 0x6E), elements: nil, bytes: bytes)
        }
        var members: [(String, JSONValue)] = []
        members.reserveCapacity(visitor.members.count)
        var elements: [Range<Int>]?
        for member in visitor.members {
            if member.isList, bytes[member.range.lowerBound] == UInt8(ascii: "[") {
                elements = visitor.elements
                members.append((member.key, .array([])))
            } else {
                let value = (try? bytes.withUnsafeBytes { try JSON.parse($0, range: member.range) }) ?? .null
                members.append((member.key, value))
            }
        }
        return WirePage(root: .object(JSONObject(members)), elements: elements, bytes: bytes)
    }

    /// The list's element at `index` (of `elements`), parsed alone.
    public func element(_ index: Int) -> JSONValue {
        guard let range = elements?[index] else { return .null }
        // Validated with the whole answer: it parses.
        return (try? bytes.withUnsafeBytes { try JSON.parse($0, range: range) }) ?? .null
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// A value of the type whose text starts with `byte`.
    private static func placeholder(_ byte: UInt8) -> JSONValue {
        switch byte {
        case UInt8(ascii: "["): return .array([])
        case UInt8(ascii: "\""): return .string("")
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(byte == UInt8(ascii: "t"))
        case UInt8(ascii: "n"): return .null
        default: return .number("0")
        }
    }

    /// Collects the root's members (depth 1) and the list's elements (depth 2) as ranges.
    private struct Visitor: JSONScanVisitor {
        let list: String
        var reportDepth: Int { 2 }
        var rootStart: Int?
        var members: [(key: String, range: Range<Int>, isList: Bool)] = []
        var elements: [Range<Int>] = []
        /// Inside the list member (an array at depth 1 keyed `list`).
        private var inList = false

        init(list: String) { self.list = list }

        mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) {
            if depth == 0 { rootStart = start }
            if depth == 1 { inList = key?.equals(list) ?? false }
        }

        mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) {
            switch depth {
            case 0:
                if rootStart == nil { rootStart = range.lowerBound }
            case 1:
                guard let key else { return }
                let isList = key.equals(list)
                members.append((key.string, range, isList))
                if isList { inList = false }
            case 2 where inList && index >= 0:
                elements.append(range)
            default:
                break
            }
        }
    }
}
