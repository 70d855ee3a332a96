// Writes pretty JSON (2-space indent, `"key": value`, `[]` for empty containers — the layout of
// examples/store.json), optionally with containers from some depth on written compactly on one
// line, straight to a file through a 1 MiB buffer: a store of any size is streamed, never held
// in memory.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON

final class PrettyJSONStream {
    private let fd: Int32
    private let path: String
    private let capacity = 1 << 20
    private let buffer: UnsafeMutablePointer<UInt8>
    private var count = 0
    /// Per open container: whether it has an element yet (decides `,` and where `}` goes), and
    /// whether it is written on one line.
    private var hasElements: [Bool] = []
    private var compact: [Bool] = []
    /// Containers this deep (the root is 0) and deeper go on one line, like JSONWriter.compact.
    private let compactDepth: Int
    private(set) var bytesWritten = 0
    /// The first write error; later bytes are dropped and `finish` throws it.
    private var failure: BenchError?

    init(path: String, compactDepth: Int = .max) throws {
        self.compactDepth = compactDepth
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BenchError("cannot create \(path): \(String(cString: strerror(errno)))") }
        self.path = path
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        buffer.deallocate()
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Flushes the buffer and ends the file with a newline.
    func finish() throws {
        precondition(hasElements.isEmpty, "unbalanced JSON containers")
        raw("\n")
        flush()
        if let failure { throw failure }
    }

    // MARK: - Structure

    func beginObject(_ key: StaticString? = nil) {
        element(key)
        raw("{")
        openContainer()
    }

    func beginObject(dynamicKey key: String) {
        element(nil)
        string(key)
        raw(isCompact ? ":{" : ": {")
        openContainer()
    }

    func endObject() { close("}") }

    func beginArray(_ key: StaticString? = nil) {
        element(key)
        raw("[")
        openContainer()
    }

    func endArray() { close("]") }

    // MARK: - Values

    func field(_ key: StaticString?, _ value: String) {
        element(key)
        string(value)
    }

    func field(_ key: StaticString?, literal value: StaticString) {
        element(key)
        raw("\"")
        raw(value)
        raw("\"")
    }

    func field(_ key: StaticString, date seconds: Int64) {
        element(key)
        reserve(22)
        buffer[count] = UInt8(ascii: "\"")
        UTCTime.writeISO(seconds, to: buffer + count + 1)
        buffer[count + 21] = UInt8(ascii: "\"")
        count += 22
    }

    func field(_ key: StaticString, number value: Int) {
        element(key)
        string(String(value), quoted: false)
    }

    func nullField(_ key: StaticString) {
        element(key)
        raw("null")
    }

    func field(_ key: StaticString, strings values: [String]) {
        beginArray(key)
        for value in values { field(nil, value) }
        endArray()
    }

    // MARK: - Bytes

    private var isCompact: Bool { compact.last ?? false }

    private func openContainer() {
        compact.append(isCompact || hasElements.count >= compactDepth)
        hasElements.append(false)
    }

    private func element(_ key: StaticString?) {
        if let last = hasElements.last {
            if isCompact {
                if last { raw(",") }
            } else {
                raw(last ? ",\n" : "\n")
                indent(hasElements.count)
            }
            hasElements[hasElements.count - 1] = true
        }
        if let key {
            raw("\"")
            raw(key)
            raw(isCompact ? "\":" : "\": ")
        }
    }

    private func close(_ bracket: StaticString) {
        let hadElements = hasElements.removeLast()
        let wasCompact = compact.removeLast()
        if hadElements && !wasCompact {
            raw("\n")
            indent(hasElements.count)
        }
        raw(bracket)
    }

    private func indent(_ level: Int) {
        let n = level * 2
        reserve(n)
        (buffer + count).initialize(repeating: UInt8(ascii: " "), count: n)
        count += n
    }

    /// A string value, escaped only when it holds a character JSON requires to be escaped.
    private func string(_ value: String, quoted: Bool = true) {
        var value = value
        let plain = value.withUTF8 { bytes in
            guard quoted, bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                if quoted { raw("\"") }
                append(UnsafeRawBufferPointer(bytes))
                if quoted { raw("\"") }
                return true
            }
            return false
        }
        if !plain {
            var quotedText = JSON.quote(value)
            quotedText.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }
    }

    private func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if let base = bytes.baseAddress {
            (buffer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        }
        count += bytes.count
    }

    private func reserve(_ n: Int) {
        precondition(n <= capacity)
        if count + n > capacity { flush() }
    }

    private func flush() {
        var offset = 0
        while offset < count, failure == nil {
            let n = write(fd, buffer + offset, count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                failure = BenchError("cannot write \(path): \(String(cString: strerror(errno)))")
                break
            }
            offset += n
        }
        bytesWritten += count
        count = 0
    }
}
