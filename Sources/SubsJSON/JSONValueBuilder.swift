// Builds a JSONValue from the scanner's reports, so JSON.parse accepts exactly what JSON.scan
// accepts; containers are kept on explicit stacks, never by recursion.

struct JSONValueBuilder: JSONScanVisitor {
    let base: UnsafePointer<UInt8>
    var reportDepth: Int { Int.max }
    private(set) var result: JSONValue?

    /// Open containers, innermost last; `isObject` says which of the two stacks holds each one.
    private var isObject: [Bool] = []
    private var arrays: [[JSONValue]] = []
    private var objects: [[JSONObject.Member]] = []

    init(base: UnsafePointer<UInt8>) {
        self.base = base
    }

    mutating func enter(depth: Int, key: JSONKey?, index: Int, start: Int) {
        if base[start] == 0x7B {
            isObject.append(true)
            objects.append([])
        } else {
            isObject.append(false)
            arrays.append([])
        }
    }

    mutating func value(depth: Int, key: JSONKey?, index: Int, range: Range<Int>) {
        let value: JSONValue
        switch base[range.lowerBound] {
        case 0x7B: // {
            isObject.removeLast()
            value = .object(JSONObject(objects.removeLast()))
        case 0x5B: // [
            isObject.removeLast()
            value = .array(arrays.removeLast())
        case 0x22: // "
            let raw = UnsafeRawBufferPointer(start: base + range.lowerBound + 1, count: range.count - 2)
            value = .string(JSONStringDecoding.string(raw, escaped: raw.contains(0x5C)))
        case 0x74: value = .bool(true)
        case 0x66: value = .bool(false)
        case 0x6E: value = .null
        default:
            let raw = UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
            value = .number(String(decoding: raw, as: UTF8.self))
        }
        guard let parentIsObject = isObject.last else {
            result = value
            return
        }
        if parentIsObject, let key {
            objects[objects.count - 1].append(JSONObject.Member(key: key.string, value: value))
        } else {
            arrays[arrays.count - 1].append(value)
        }
    }
}
