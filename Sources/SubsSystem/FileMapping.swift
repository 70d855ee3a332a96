// Store mappings that survive the file shrinking under them. Reading a mapped page that lies
// beyond the end of a file truncated by someone else (`truncate`, `cp backup.json store.json`)
// raises SIGBUS, which kills the process. A SIGBUS handler installed by this library (the only
// process-wide state it sets up; it prints nothing and never exits) puts a page of zeros in
// place of the lost one when the fault lies inside a registered store mapping, and flags that
// mapping: the read then sees zeros (never valid JSON) and the store layer reports the store as
// changed. A fault anywhere else is handed to the previous disposition, which kills as before.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

public enum MappingFaults {
    /// Mappings registered at once (one per store being read; more only in tests).
    private static let slots = 64
    /// Per slot: start address, end address, faulted flag. Written under `lock` outside the
    /// handler; the handler only reads the addresses and sets the flag (aligned word accesses).
    // Shared with the SIGBUS handler (see above): no isolation can describe that.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<Int> = {
        let table = UnsafeMutablePointer<Int>.allocate(capacity: slots * 3)
        table.initialize(repeating: 0, count: slots * 3)
        return table
    }()
    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
        let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)
        previous.initialize(to: sigaction())
        return previous
    }()
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    private static let lock = NSLock()

    /// Installs the handler once, after everything it touches exists (nothing is allocated or
    /// initialised lazily inside it).
    private static let installed: Bool = {
        _ = table
        _ = previous
        _ = pageSize
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in MappingFaults.handle(info) }
        action.sa_flags = SA_SIGINFO | SA_NODEFER
        sigemptyset(&action.sa_mask)
        return sigaction(SIGBUS, &action, previous) == 0
    }()

    /// Registers `start..<start+count` (a store mapping); returns its slot, or nil when every
    /// slot is taken (the mapping is then unguarded, as it was before this existed).
    public static func register(_ start: UnsafeRawPointer, count: Int) -> Int? {
        guard installed else { return nil }
        lock.lock()
        defer { lock.unlock() }
        for slot in 0..<slots where table[slot * 3] == 0 {
            table[slot * 3 + 2] = 0
            table[slot * 3 + 1] = Int(bitPattern: start) + count
            table[slot * 3] = Int(bitPattern: start)   // last: the slot is live once it has a start
            return slot
        }
        return nil
    }

    /// Before the mapping goes away.
    public static func unregister(_ slot: Int) {
        lock.lock()
        defer { lock.unlock() }
        table[slot * 3] = 0
        table[slot * 3 + 1] = 0
        table[slot * 3 + 2] = 0
    }

    /// Whether a read of this slot's mapping hit a page the file no longer has.
    public static func faulted(_ slot: Int) -> Bool {
        table[slot * 3 + 2] != 0
    }

    /// The SIGBUS handler: async-signal-safe (reads the table, calls mmap(2)/sigaction(2)).
    private static func handle(_ info: UnsafeMutablePointer<siginfo_t>?) {
        if let info, let address = info.pointee._sifields._sigfault.si_addr {
            let fault = Int(bitPattern: address)
            for slot in 0..<slots {
                let start = table[slot * 3]
                guard start != 0, fault >= start, fault < table[slot * 3 + 1] else { continue }
                let page = UnsafeMutableRawPointer(bitPattern: fault & ~(pageSize - 1))
                let zeros = mmap(page, pageSize, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                if zeros != MAP_FAILED {
                    table[slot * 3 + 2] = 1
                    return   // the read is retried and now sees zeros
                }
                break
            }
        }
        // Not a store page (or no page could be put there): the previous disposition takes
        // over, and the retried access faults again under it.
        sigaction(SIGBUS, previous, nil)
    }
}
