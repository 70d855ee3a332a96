// What the process's heap holds now (heap_in_use.c: Swift's Glibc module does not export
// mallinfo2). The remote budget counts what a command's decoded answers take with it.

import CSubsSystem

public enum HeapInUse {
    /// Bytes the allocator has handed out and not taken back; 0 where it cannot say.
    public static func bytes() -> Int { Int(clamping: subs_heap_in_use()) }
}
