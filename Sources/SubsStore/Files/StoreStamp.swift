// Which version of the store a journal applies to (SPEC section 5 rev. 4): the journal's header
// names it, and a reader applies the journal only to that version. A change never rewrites the
// store, so its stamp stays put until a compaction (or a hand edit) makes a new file.
// Decision: the stamp is the file's size and modification time (to the nanosecond) and a
// CRC-32C of its first and last 64 KiB — not its inode: a store copied or moved with its times
// (`cp -p`, `mv` across file systems, `rsync -a`, a backup restored) keeps its journal, while an
// edit (which changes the time, or the bytes at either end, or the size) is caught. Reading 128
// KiB costs well under a millisecond, whatever the store's size.

#if canImport(Glibc)
import Glibc
#endif
import SubsJSON
import SubsSystem

struct StoreStamp: Equatable, CustomStringConvertible {
    var size: Int64
    var seconds: Int64
    var nanoseconds: Int64
    var sample: UInt32

    /// Bytes sampled at each end of the file.
    static let sampleBytes = 64 << 10

    init(size: Int64, seconds: Int64, nanoseconds: Int64, sample: UInt32) {
        self.size = size
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.sample = sample
    }

    /// The stamp of the regular file open as `fd` (read with pread: the offset is left alone).
    init(fd: Int32, path: String) throws {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StoreError.unreadable(path: path, reason: errorText(errno)) }
        size = Int64(info.st_size)
        seconds = Int64(info.st_mtim.tv_sec)
        nanoseconds = Int64(info.st_mtim.tv_nsec)
        let n = Int(size)
        let head = 0..<min(n, StoreStamp.sampleBytes)
        let tail = max(head.upperBound, n - StoreStamp.sampleBytes)..<n
        var crc: UInt32 = 0
        var buffer = [UInt8](repeating: 0, count: StoreStamp.sampleBytes)
        for range in [head, tail] where !range.isEmpty {
            var done = 0
            while done < range.count {
                let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done)) }
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else { throw StoreError.unreadable(path: path, reason: MappedFile.changedReason) }
                done += got
            }
            crc = buffer.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<range.count]), seed: crc) }
        }
        sample = crc
    }

    /// The stamp of the regular file at `path` now.
    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw MappedFile.openError(path: path, errno: errno) }
        defer { close(fd) }
        try self.init(fd: fd, path: path)
    }

    /// `{"size":N,"mtime":"S.NNNNNNNNN","sample":"xxxxxxxx"}`, as the journal writes it.
    var json: String {
        let ns = String(nanoseconds)
        return #"{"size":\#(size),"mtime":"\#(seconds).\#(String(repeating: "0", count: max(0, 9 - ns.count)))\#(ns)","sample":"\#(CRC32C.hex(sample))"}"#
    }

    init?(json value: JSONValue) {
        guard let object = value.objectValue, object.members.count == 3,
              case .number(let sizeText)? = object["size"], let size = Int64(sizeText), size >= 0,
              let mtime = object["mtime"]?.stringValue, let sampleText = object["sample"]?.stringValue,
              sampleText.utf8.count == 8, let sample = UInt32(sampleText, radix: 16) else { return nil }
        let parts = mtime.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 9, let seconds = Int64(parts[0]), let nanoseconds = Int64(parts[1]),
              nanoseconds >= 0 else { return nil }
        self.init(size: size, seconds: seconds, nanoseconds: nanoseconds, sample: sample)
    }

    var description: String { "\(size) bytes, modified \(seconds).\(nanoseconds)" }
}
