// Reading a file descriptor to its end, with bounded memory: the one reader behind stores read
// from pipes, standard input and the config file.

#if canImport(Glibc)
import Glibc
#endif

public struct StreamRead {
    /// The bytes read; the caller owns (deallocates) them.
    public let bytes: UnsafeMutableRawBufferPointer
    /// More than `limit` bytes were there: `bytes` holds the first `limit`.
    public let truncated: Bool
}

/// Reads `fd` to its end, at most `limit` bytes, and — with `stopAfter` — no further than the
/// first byte it names (kept, so a parser can report where). Throws the errno of a failed read.
public func readStream(_ fd: Int32, limit: Int, stopAfter: ((UInt8) -> Bool)? = nil) throws -> StreamRead {
    var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.min(1 << 16, Swift.max(limit, 1)), alignment: 16)
    var count = 0
    func fail(_ code: Int32) -> StreamReadError {
        buffer.deallocate()
        return StreamReadError(code: code)
    }
    while count < limit {
        if count == buffer.count {
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.min(buffer.count * 2, limit), alignment: 16)
            bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
            buffer.deallocate()
            buffer = bigger
        }
        let n = read(fd, buffer.baseAddress! + count, buffer.count - count)
        if n == 0 { return StreamRead(bytes: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), truncated: false) }
        if n < 0 {
            if errno == EINTR { continue }
            throw fail(errno)
        }
        let chunk = UnsafeRawBufferPointer(rebasing: buffer[count..<(count + n)])
        count += n
        if let stopAfter, let last = chunk.firstIndex(where: stopAfter) {
            count = count - n + (last - chunk.startIndex) + 1
            return StreamRead(bytes: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), truncated: false)
        }
    }
    // `limit` bytes read: one more byte says whether the input goes on.
    var probe: UInt8 = 0
    var n: Int
    repeat { n = read(fd, &probe, 1) } while n < 0 && errno == EINTR
    if n < 0 { throw fail(errno) }
    return StreamRead(bytes: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), truncated: n > 0)
}

public struct StreamReadError: Error {
    public let code: Int32
}

/// strerror in the lowercase of our messages ("no space left on device").
public func errorText(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
}
