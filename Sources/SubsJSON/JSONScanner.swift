// The validating core shared by JSON.scan and JSON.parse: one pass over the bytes with an
// explicit stack of open containers (never recursion) and no allocation per token.

enum JSONScanner {
    static let maxDepth = 512

    /// One open array or object.
    struct Frame {
        /// Offset of its '{' or '['.
        var start: Int
        /// Index of the element or member being read (elements/members completed before it).
        var count: Int
        /// Where this object's keys start in the key set, and its key filter (see JSONKeySet).
        var keysBase: Int
        var keyFilter: UInt64
        /// The key of the member being read (objects): offset of its opening quote and raw length.
        var keyStart: Int
        var keyLength: Int
        var keyEscaped: Bool
        var isObject: Bool
    }

    /// Validates the one value starting (after whitespace) at `start` and ending (before
    /// whitespace) at `bytes.end`, reporting values at depth <= visitor.reportDepth.
    static func scan<V: JSONScanVisitor>(_ bytes: JSONBytes, from start: Int, visitor: inout V) throws {
        if start == 0 && bytes.end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            throw bytes.error("byte order mark not allowed", at: 0)
        }
        var state = State(bytes: bytes, position: start)
        defer { state.release() }
        try state.run(visitor: &visitor)
    }

    /// The scan in progress. A struct with mutating methods rather than closures over local
    /// variables, so that the hot loop keeps its state in registers without runtime
    /// exclusivity checks.
    struct State {
        let bytes: JSONBytes
        var p: Int
        var depth = 0
        let frames: UnsafeMutablePointer<Frame>
        var keys = JSONKeySet()

        init(bytes: JSONBytes, position: Int) {
            self.bytes = bytes
            self.p = position
            frames = .allocate(capacity: maxDepth)
        }

        func release() {
            frames.deallocate()
            keys.release()
        }

        /// Key and index of the value at `depth`, as the visitor sees them.
        @inline(__always)
        func context(_ depth: Int) -> (key: JSONKey?, index: Int) {
            guard depth > 0 else { return (nil, -1) }
            let parent = frames[depth - 1]
            guard parent.isObject else { return (nil, parent.count) }
            let raw = UnsafeRawBufferPointer(start: bytes.base + parent.keyStart + 1, count: parent.keyLength)
            return (JSONKey(raw: raw, offset: parent.keyStart, hasEscapes: parent.keyEscaped), -1)
        }

        /// Reads the member key at `p` (an opening quote) of the innermost object and the ':'
        /// after it; leaves `p` after the ':'.
        @inline(__always)
        mutating func readKey() throws {
            let keyStart = p
            let escaped = try bytes.skipString(&p)
            let key = JSONKeySet.Record(start: keyStart &+ 1, length: p &- keyStart &- 2, escaped: escaped)
            let frame = frames + (depth &- 1)
            guard keys.insert(key, objectBase: frame.pointee.keysBase, filter: &frame.pointee.keyFilter,
                                    depth: depth, bytes: bytes.base) else {
                throw duplicateKey(key, at: keyStart, in: bytes)
            }
            frame.pointee.keyStart = keyStart
            frame.pointee.keyLength = key.length
            frame.pointee.keyEscaped = escaped
            bytes.skipWhitespace(&p)
            guard p < bytes.end else { throw bytes.endOfInput() }
            guard bytes[p] == 0x3A else { throw bytes.error("expected ':' after object key", at: p) }
            p &+= 1
        }

        mutating func run<V: JSONScanVisitor>(visitor: inout V) throws {
            let reportDepth = visitor.reportDepth
            let end = bytes.end
            nextValue: while true {
                // Read one value at `p`; containers push a frame and go on with their first child.
                bytes.skipWhitespace(&p)
                guard p < end else { throw bytes.endOfInput() }
                var valueStart = p
                let c = bytes[p]
                switch c {
                case 0x22: // "
                    _ = try bytes.skipString(&p)
                case 0x7B, 0x5B: // { [
                    guard depth < maxDepth else {
                        throw bytes.error("nesting deeper than 512 levels", at: p)
                    }
                    if depth <= reportDepth {
                        let (key, index) = context(depth)
                        try visitor.enter(depth: depth, key: key, index: index, start: p)
                    }
                    let isObject = c == 0x7B
                    frames[depth] = Frame(start: p, count: 0, keysBase: keys.count, keyFilter: 0, keyStart: 0, keyLength: 0,
                                          keyEscaped: false, isObject: isObject)
                    depth &+= 1
                    p &+= 1
                    bytes.skipWhitespace(&p)
                    guard p < end else { throw bytes.endOfInput() }
                    let next = bytes[p]
                    if next == (isObject ? 0x7D : 0x5D) { // empty container
                        p &+= 1
                        depth &-= 1
                    } else if !isObject {
                        continue nextValue
                    } else if next == 0x22 {
                        try readKey()
                        continue nextValue
                    } else {
                        throw bytes.error("expected object key or '}'", at: p)
                    }
                case 0x2D, 0x30...0x39: // - 0-9
                    try bytes.skipNumber(&p)
                case 0x74, 0x66, 0x6E: // t f n
                    try bytes.skipLiteral(&p)
                default:
                    throw bytes.unexpected(at: p)
                }

                // A value ends at `p`; so may the containers it closes, innermost first.
                while true {
                    if depth <= reportDepth {
                        let (key, index) = context(depth)
                        try visitor.value(depth: depth, key: key, index: index, range: valueStart..<p)
                    }
                    bytes.skipWhitespace(&p)
                    guard depth > 0 else {
                        guard p == end else { throw bytes.error("unexpected data after the JSON value", at: p) }
                        return
                    }
                    guard p < end else { throw bytes.endOfInput() }
                    let frame = frames + (depth &- 1)
                    let isObject = frame.pointee.isObject
                    let c = bytes[p]
                    if c == 0x2C { // ,
                        let comma = p
                        p &+= 1
                        bytes.skipWhitespace(&p)
                        guard p < end else { throw bytes.endOfInput() }
                        frame.pointee.count &+= 1
                        let next = bytes[p]
                        if next == (isObject ? 0x7D : 0x5D) { throw bytes.error("trailing comma", at: comma) }
                        if isObject {
                            guard next == 0x22 else { throw bytes.error("expected object key", at: p) }
                            try readKey()
                        }
                        continue nextValue
                    }
                    guard c == (isObject ? 0x7D : 0x5D) else {
                        throw bytes.error(isObject ? "expected ',' or '}'" : "expected ',' or ']'", at: p)
                    }
                    p &+= 1
                    depth &-= 1
                    if isObject { keys.pop(to: frame.pointee.keysBase) }
                    valueStart = frame.pointee.start
                }
            }
        }
    }

    @inline(never)
    static func duplicateKey(_ key: JSONKeySet.Record, at offset: Int, in bytes: JSONBytes) -> JSONError {
        let name = String(decoding: JSONKeySet.decoded(key, bytes.base), as: UTF8.self)
        return bytes.error("duplicate key \(JSON.quote(name))", at: offset)
    }
}
