// Small file chores of the benchmark: whole-file text, and the untimed store copy for `grant`.

#if canImport(Glibc)
import Glibc
#endif

func readText(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw BenchError("cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw BenchError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to `path` with `mode` (also when the file was there before: a secret written
/// over a file of an earlier run must not keep its wider mode).
func writeText(_ text: String, to path: String, mode: mode_t = 0o644) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard fd >= 0 else { throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0 else { throw BenchError("cannot chmod \(path): \(String(cString: strerror(errno)))") }
    try writeAll(fd, Array(text.utf8), path: path)
}

/// Copies `source` to `target` and syncs it, so the timed `grant` does not also pay for
/// flushing the copy's dirty pages.
func copyFile(_ source: String, to target: String) throws {
    let input = open(source, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw BenchError("cannot read \(source): \(String(cString: strerror(errno)))") }
    defer { close(input) }
    let output = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard output >= 0 else { throw BenchError("cannot write \(target): \(String(cString: strerror(errno)))") }
    defer { close(output) }
    var chunk = [UInt8](repeating: 0, count: 8 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw BenchError("cannot read \(source): \(String(cString: strerror(errno)))")
        }
        if n == 0 { break }
        try writeAll(output, chunk[0..<n], path: target)
    }
    guard fsync(output) == 0 else { throw BenchError("cannot sync \(target): \(String(cString: strerror(errno)))") }
}

private func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>, path: String) throws {
    try bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw BenchError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}

private func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
    try writeAll(fd, bytes[...], path: path)
}
