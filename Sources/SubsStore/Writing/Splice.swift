// Byte edits of a store: a changed customer record is re-serialised in the indentation of the
// place it stands, and every other byte of the store is copied unchanged.

import SubsJSON
import SubsModel

struct Splice {
    /// Bytes `range` of the old store are replaced by `bytes`.
    var range: Range<Int>
    var bytes: [UInt8]

    /// The value at `range` replaced by `value`, written the way the store writes that record:
    /// on one line if it was on one line, else pretty with the store's indent unit.
    static func replaceValue(_ range: Range<Int>, with value: JSONValue, in store: ScannedStore) -> Splice {
        let bytes = store.bytes
        let base = lineIndent(at: range.lowerBound, in: bytes)
        let old = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard old.contains(UInt8(ascii: "\n")) else {
            return Splice(range: range, bytes: Array(JSONWriter.compact(value).utf8))
        }
        let unit = indentUnit(inside: range, base: base, in: bytes)
        return Splice(range: range, bytes: Array(indented(value, unit: unit, base: base).utf8))
    }

    /// New members `"id": value` appended to the `customers` object, in order, written the way
    /// the store writes its customers (one line, or one member per line at their indentation).
    static func insertCustomers(_ customers: [(id: ID, value: JSONValue)], into store: ScannedStore) throws -> Splice {
        guard let object = store.index.customers else {
            throw StoreError.invalid(path: store.path, problems: [StoreProblem(path: "customers", message: "required")])
        }
        let bytes = store.bytes
        let closing = object.upperBound - 1   // the '}'
        var last = closing - 1
        while last > object.lowerBound, isSpace(bytes[last]) { last -= 1 }
        let isEmpty = last == object.lowerBound
        let objectIndent = lineIndent(at: object.lowerBound, in: bytes)
        let multiline = UnsafeRawBufferPointer(rebasing: bytes[object]).contains(UInt8(ascii: "\n"))
        if !multiline && !isEmpty {
            let members = customers.map { ",\(JSON.quote($0.id.string)):\(JSONWriter.compact($0.value))" }.joined()
            return Splice(range: (last + 1)..<(last + 1), bytes: Array(members.utf8))
        }
        // The indentation of the existing customers, or one unit deeper than the object's line.
        let first = store.index.firstCustomerKeyOffset
        let unit = first == nil ? "  " : indentUnit(inside: object, base: objectIndent, in: bytes)
        let memberIndent = first.map { lineIndent(at: $0, in: bytes) } ?? objectIndent + unit
        let members = customers.map { "\(memberIndent)\(JSON.quote($0.id.string)): \(indented($0.value, unit: unit, base: memberIndent))" }
            .joined(separator: ",\n")
        if isEmpty {
            return Splice(range: (object.lowerBound + 1)..<closing, bytes: Array("\n\(members)\n\(objectIndent)".utf8))
        }
        return Splice(range: (last + 1)..<(last + 1), bytes: Array(",\n\(members)".utf8))
    }

    /// Writes the old bytes with the edits applied (edits must not overlap), piece by piece:
    /// unchanged ranges go straight from the old store, nothing is copied in memory.
    /// Starts at `start` (the bytes before it were written already; no edit lies there).
    /// `written(offset)` is told how far into the old bytes the copy has got.
    static func write(_ edits: [Splice], over bytes: UnsafeRawBufferPointer, from start: Int = 0,
                      to write: (UnsafeRawBufferPointer) throws -> Void,
                      written: (Int) -> Void = { _ in }) throws {
        func copy(_ range: Range<Int>) throws {
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(start + MappedFile.releaseStep, range.upperBound)
                try write(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                written(end)
                start = end
            }
        }
        var position = start
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            precondition(edit.range.lowerBound >= start, "an edit inside the part already written")
            try copy(position..<edit.range.lowerBound)
            try edit.bytes.withUnsafeBytes { try write($0) }
            position = edit.range.upperBound
        }
        try copy(position..<bytes.count)
    }

    /// Pretty JSON whose continuation lines start with `base`.
    private static func indented(_ value: JSONValue, unit: String, base: String) -> String {
        let pretty = JSONWriter.pretty(value, indent: unit)
        return base.isEmpty ? pretty : pretty.replacingNewlines(with: "\n" + base)
    }

    /// The whitespace at the start of the line holding `offset`.
    private static func lineIndent(at offset: Int, in bytes: UnsafeRawBufferPointer) -> String {
        var start = offset
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var end = start
        while end < offset, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// How much deeper than `base` the first inner line of the value at `range` is indented.
    private static func indentUnit(inside range: Range<Int>, base: String, in bytes: UnsafeRawBufferPointer) -> String {
        var i = range.lowerBound
        while i < range.upperBound, bytes[i] != UInt8(ascii: "\n") { i += 1 }
        guard i < range.upperBound else { return "  " }
        let inner = lineIndent(at: nextNonSpace(after: i + 1, in: bytes, limit: range.upperBound), in: bytes)
        guard inner.count > base.count, inner.hasPrefix(base) else { return "  " }
        return String(inner.dropFirst(base.count))
    }

    private static func nextNonSpace(after start: Int, in bytes: UnsafeRawBufferPointer, limit: Int) -> Int {
        var i = start
        while i < limit, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 }
        return i
    }

    private static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }
}

extension String {
    func replacingNewlines(with replacement: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
