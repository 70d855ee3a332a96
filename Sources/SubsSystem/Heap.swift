// Handing freed heap memory back to the system (heap_trim.c: glibc's malloc_trim). Not risky:
// it changes no memory anyone uses. `subs serve` calls it when it dropped a version of its index.

import CSubsSystem

public enum Heap {
    /// Gives the free memory of every malloc arena back to the system (a few milliseconds).
    public static func trim() {
        _ = subs_heap_trim()
    }
}
