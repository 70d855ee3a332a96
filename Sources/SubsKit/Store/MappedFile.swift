// A store file mapped read-only into memory: the scanner reads its bytes in place, no copy.

#if canImport(Glibc)
import Glibc
#endif

final class MappedFile {
    let bytes: UnsafeRawBufferPointer
    private let mapped: Bool
    /// Bytes read from a pipe or device, which cannot be mapped (`--store <(...)`).
    private var streamed: UnsafeMutableRawBufferPointer?
    /// The file's mode bits (kept by writes).
    let mode: mode_t
    /// Pages below this offset have been handed back (see `release(upTo:)`).
    private var releasedUpTo = 0

    /// Opens and maps `path`. Throws `StoreError.missing` / `.permissionDenied` / `.unreadable`.
    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MappedFile.openError(path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: errorText(errno)) }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError.unreadable(path: path, reason: "is a directory")
        }
        mode = info.st_mode & 0o7777
        if (info.st_mode & S_IFMT) != S_IFREG {
            let buffer = try MappedFile.readStream(fd: fd, path: path)
            streamed = buffer
            bytes = UnsafeRawBufferPointer(buffer)
            mapped = false
            return
        }
        let size = Int(info.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            mapped = false
            return
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw StoreError.unreadable(path: path, reason: errorText(errno))
        }
        // The whole file is read front to back once.
        _ = madvise(base, size, MADV_SEQUENTIAL)
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        mapped = true
    }

    deinit {
        if mapped, let base = bytes.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        }
        streamed?.deallocate()
    }

    /// Hands back the memory of the pages below `offset` once they have been read. The mapping
    /// stays valid: a later read of those bytes maps them again from the page cache. This keeps
    /// the resident size of a scan of a large store small instead of growing to the file's size.
    func release(upTo offset: Int) {
        guard mapped, let base = bytes.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = min(offset, bytes.count) / page * page
        guard end - releasedUpTo >= MappedFile.releaseStep else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + releasedUpTo), end - releasedUpTo, MADV_DONTNEED)
        releasedUpTo = end
    }

    /// A second pass over the bytes (the writer's copy) releases behind itself from the start again.
    func restartRelease() {
        releasedUpTo = 0
    }

    /// Release in steps of this many bytes: rare enough to cost nothing, small enough to matter.
    static let releaseStep = 16 << 20

    private static func readStream(fd: Int32, path: String) throws -> UnsafeMutableRawBufferPointer {
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        var count = 0
        while true {
            if count == buffer.count {
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
                bigger.copyMemory(from: UnsafeRawBufferPointer(buffer))
                buffer.deallocate()
                buffer = bigger
            }
            let n = read(fd, buffer.baseAddress! + count, buffer.count - count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                buffer.deallocate()
                throw StoreError.unreadable(path: path, reason: errorText(code))
            }
            count += n
        }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    }

    static func openError(path: String, errno code: Int32) -> StoreError {
        switch code {
        case ENOENT, ENOTDIR: return .missing(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path, reason: "permission denied reading the store")
        default: return .unreadable(path: path, reason: errorText(code))
        }
    }
}

func errorText(_ code: Int32) -> String {
    String(cString: strerror(code)).lowercased()
}
