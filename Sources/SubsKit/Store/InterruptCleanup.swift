// What an interrupted write must not leave behind: the temporary file being written, kept in a
// fixed buffer so that a signal handler (which may only call async-signal-safe functions) can
// remove it.

#if canImport(Glibc)
import Glibc
#endif

public enum InterruptCleanup {
    private static let capacity = 4096
    private static let path: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        buffer.initialize(repeating: 0, count: capacity)
        return buffer
    }()

    /// Remembers the temporary file being written (a path too long to keep is not remembered:
    /// the next writer removes such a file instead).
    static func remember(_ temporary: String) {
        let bytes = Array(temporary.utf8)
        path[0] = 0
        guard !bytes.isEmpty, bytes.count < capacity else { return }
        for i in 1..<bytes.count { path[i] = CChar(bitPattern: bytes[i]) }
        path[bytes.count] = 0
        path[0] = CChar(bitPattern: bytes[0])   // set last: the path is whole once it reads non-empty
    }

    static func forget() {
        path[0] = 0
    }

    /// Removes the remembered temporary file. Async-signal-safe: only reads the buffer and
    /// calls unlink(2).
    public static func removeTemporaryFile() {
        if path[0] != 0 { unlink(path) }
    }
}
