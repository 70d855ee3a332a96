// Safety: SIGINT and SIGTERM stop `subs serve`. The handler (interrupt.c) only writes one byte to
// a pipe — write(2) is async-signal-safe, the descriptor is an atomic int set before the handler
// is installed, errno is kept — whichever thread the signal lands on; the waiting thread reads
// the pipe, then the server stops cleanly on ordinary code.

import CSubsSystem
#if canImport(Glibc)
import Glibc
#endif

public enum StopSignal {
    /// Blocks until SIGINT or SIGTERM arrives (from the call on; they no longer end the process).
    public static func wait() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        guard subs_stop_signals_install(ends[1]) == 0 else { return }
        var byte: UInt8 = 0
        while read(ends[0], &byte, 1) < 0 && errno == EINTR {}
    }
}
