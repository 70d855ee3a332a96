// How much free heap memory the process keeps (heap_trim.c: glibc's malloc_trim and mallopt).
// Not risky: it changes no memory anyone uses. `subs serve` limits its arenas at start and trims
// after work that allocated much on one of its threads (an index, a search).

import CSubsSystem

public enum Heap {
    /// Gives the free memory of every malloc arena back to the system (a few milliseconds).
    public static func trim() {
        _ = subs_heap_trim()
    }

    /// Threads started from now on share at most `count` malloc arenas (glibc's default is
    /// eight per core, each keeping what its threads freed).
    public static func limitArenas(_ count: Int) {
        _ = subs_heap_limit_arenas(Int32(count))
    }
}
