// Serialises JSONValue as compact or pretty JSON, with an explicit stack (no recursion), so a
// record can be written back into a store at its own indentation.

public enum JSONWriter {
    /// `{"a":1,"b":[true,null]}`
    public static func compact(_ value: JSONValue) -> String {
        write(value, indent: nil, level: 0)
    }

    /// Like JavaScript's `JSON.stringify(v, null, indent)`: `"key": value`, `[]`/`{}` for empty
    /// containers, nested lines indented by (level + depth) × indent. The first line is not
    /// indented and there is no trailing newline, so the text can follow `"key": ` in a document.
    public static func pretty(_ value: JSONValue, indent: String = "  ", level: Int = 0) -> String {
        write(value, indent: Array(indent.utf8), level: level)
    }

    /// A container being written and the position of its next child.
    private struct Frame {
        var elements: [JSONValue] = []
        var members: [JSONObject.Member] = []
        var isObject: Bool
        var next = 0
        var count: Int { isObject ? members.count : elements.count }
    }

    private static func write(_ root: JSONValue, indent: [UInt8]?, level: Int) -> String {
        var out: [UInt8] = []
        var stack: [Frame] = []

        func newline(depth: Int) {
            guard let indent else { return }
            out.append(0x0A)
            for _ in 0..<(level + depth) { out.append(contentsOf: indent) }
        }

        /// Writes a scalar or an empty container whole; opens a non-empty container.
        func open(_ value: JSONValue) {
            switch value {
            case .null: out.append(contentsOf: "null".utf8)
            case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
            case .number(let literal): out.append(contentsOf: literal.utf8)
            case .string(let s): JSON.appendQuoted(s, to: &out)
            case .array(let elements):
                if elements.isEmpty {
                    out.append(contentsOf: "[]".utf8)
                } else {
                    out.append(0x5B)
                    stack.append(Frame(elements: elements, isObject: false))
                }
            case .object(let object):
                if object.members.isEmpty {
                    out.append(contentsOf: "{}".utf8)
                } else {
                    out.append(0x7B)
                    stack.append(Frame(members: object.members, isObject: true))
                }
            }
        }

        open(root)
        while let top = stack.last {
            let depth = stack.count
            guard top.next < top.count else {
                stack.removeLast()
                newline(depth: depth - 1)
                out.append(top.isObject ? 0x7D : 0x5D)
                continue
            }
            if top.next > 0 { out.append(0x2C) }
            newline(depth: depth)
            stack[depth - 1].next += 1
            if top.isObject {
                let member = top.members[top.next]
                JSON.appendQuoted(member.key, to: &out)
                out.append(0x3A)
                if indent != nil { out.append(0x20) }
                open(member.value)
            } else {
                open(top.elements[top.next])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension JSONWriter {
    /// Writes `pretty(.object(members + [(arrayKey, .array(elements))]), level: level)` piece by
    /// piece, the same bytes: the array's elements are made (`element(i)`) and written one at a
    /// time, so a document of a million entries is never one tree nor one string.
    public static func prettyObject(_ members: [JSONObject.Member], arrayKey: String, count: Int,
                                    element: (Int) -> JSONValue, indent: String = "  ", level: Int = 0,
                                    write: (String) -> Void) {
        let pad = { (depth: Int) in String(repeating: indent, count: depth) }
        if members.isEmpty {
            write("{")
        } else {
            // The members' own text, its closing line ("\n" + indent × level + "}") left off.
            let head = pretty(.object(JSONObject(members)), indent: indent, level: level)
            write(String(head.utf8.dropLast(2 + pad(level).utf8.count))! + ",")
        }
        var key: [UInt8] = []
        JSON.appendQuoted(arrayKey, to: &key)
        write("\n" + pad(level + 1) + String(decoding: key, as: UTF8.self) + ": ")
        if count == 0 {
            write("[]")
        } else {
            write("[")
            for i in 0..<count {
                write((i > 0 ? "," : "") + "\n" + pad(level + 2) + pretty(element(i), indent: indent, level: level + 2))
            }
            write("\n" + pad(level + 1) + "]")
        }
        write("\n" + pad(level) + "}")
    }
}
