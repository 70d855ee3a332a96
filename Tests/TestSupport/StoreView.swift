// The store as its readers see it, as one file's bytes: since the journal (SPEC section 5 rev. 4)
// a write appends to STORE.journal and leaves the store file as it was, so a test that looks at
// what a write did looks at the store with its journal folded in — made by folding a copy (the
// files at the path stay as they are, journal included).

import Foundation
import SubsStore
#if canImport(Glibc)
import Glibc
#endif

public enum StoreView {
    /// The store at `path` (a link is followed) with its journal folded in; the raw bytes when
    /// there is no journal, or when the copy cannot be folded (an invalid store: its bytes are
    /// what the test looks at).
    public static func folded(_ path: String) -> [UInt8] {
        let real = (try? StoreFiles.resolvedPath(path)) ?? path
        let raw = Array((try? Data(contentsOf: URL(fileURLWithPath: real))) ?? Data())
        guard FileManager.default.fileExists(atPath: real + ".journal") else { return raw }
        let dir = NSTemporaryDirectory() + "subs-view-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let copy = dir + "/store.json"
        guard FileManager.default.createFile(atPath: copy, contents: Data(raw)),
              FileManager.default.createFile(atPath: copy + ".journal",
                                             contents: (try? Data(contentsOf: URL(fileURLWithPath: real + ".journal"))) ?? Data())
        else { return raw }
        // The journal names its store by size and modification time: the copy keeps the time.
        var info = stat()
        guard stat(real, &info) == 0 else { return raw }
        var times = [timespec(tv_sec: info.st_atim.tv_sec, tv_nsec: info.st_atim.tv_nsec), info.st_mtim]
        guard utimensat(AT_FDCWD, copy, &times, 0) == 0 else { return raw }
        guard (try? LocalStore(path: copy).compact()) != nil else { return raw }
        return Array((try? Data(contentsOf: URL(fileURLWithPath: copy))) ?? Data(raw))
    }

    public static func foldedText(_ path: String) -> String {
        String(decoding: folded(path), as: UTF8.self)
    }
}
