// One version of the store file held open for pread: a served version answers from it whatever
// is at the path now.

#if canImport(Glibc)
import Glibc
#endif

/// One version of the store file, open for reading (`pread`). Closed with the last reference.
final class RecordFile: @unchecked Sendable {
    let fd: Int32
    let identity: FileIdentity

    init(fd: Int32, identity: FileIdentity) {
        self.fd = fd
        self.identity = identity
    }

    deinit { close(fd) }

    /// The bytes at `range`. A file shorter than that, or rewritten in place since the version
    /// was indexed (its size or time changed), is the store's "changed while reading" error.
    func read(_ range: Range<Int>, path: String) throws -> [UInt8] {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, count in
            var done = 0
            while done < range.count {
                let n = pread(fd, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failed = true; break }
                done += n
            }
            count = done
        }
        var now = stat()
        guard !failed, fstat(fd, &now) == 0, FileIdentity(now) == identity else {
            throw StoreError.unreadable(path: path, reason: MappedFile.changedReason)
        }
        return bytes
    }
}
