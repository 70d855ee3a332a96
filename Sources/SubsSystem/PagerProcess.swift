// Safety: the pager is a child process (`/bin/sh -c COMMAND`, as git and gh run theirs) that
// reads the output on a pipe and writes to the terminal this process's standard output is.
// What is unsafe: spawning (posix_spawn with file actions and signal attributes built here and
// destroyed on every path), writing to a pipe whose reader may quit at any moment, and changing
// the SIGINT disposition of the whole process. The invariants that make it sound: the output is
// complete before the pager starts (no command is running any more, so nothing needs the
// interrupt cleanup); SIGPIPE is ignored by the process (Context.process), so a pager that quits
// early makes write() fail with EPIPE, which ends the writing quietly; SIGINT is ignored only
// between the spawn and the pager's end and the previous action is put back (Ctrl-C in the pager
// is the pager's), and the child gets SIGINT and SIGPIPE at their defaults; every descriptor
// this opens is closed, and the child is always waited for (no zombie).

#if canImport(Glibc)
import Glibc
#endif

public enum PagerProcess {
    /// What became of the pager.
    public enum Outcome: Equatable, Sendable {
        /// It ran and ended with this status (it may have quit before reading everything).
        case exited(Int32)
        /// It could not be started at all (no /bin/sh, no pipe, no process): errno text.
        case notStarted(String)
    }

    /// Runs `/bin/sh -c command` with `input` on its standard input, the process's standard
    /// output and error as its own, and `environment` as its environment; returns when it ends.
    public static func run(command: String, input: [UInt8], environment: [String: String]) -> Outcome {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return .notStarted(String(cString: strerror(errno))) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // The write end stays ours: the child must not inherit it, or its stdin never ends.
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addclose(&actions, readEnd)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        // Ctrl-C while the pager shows the output is the pager's to handle: this process only
        // waits for it, then ends with the command's status.
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        var previous = sigaction()
        sigaction(SIGINT, &ignore, &previous)
        defer { sigaction(SIGINT, &previous, nil) }

        let arguments = ["/bin/sh", "-c", command]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let spawned = withCStrings(arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp) }
        }
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            return .notStarted(String(cString: strerror(spawned)))
        }

        input.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    // EPIPE: the reader quit (q in less) — what it did not read is not wanted.
                    break
                }
            }
        }
        close(writeEnd)

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .exited(-1) }
        }
        // WIFEXITED / WEXITSTATUS, spelled out (they are macros); a signal counts as 128 + it.
        let signal = status & 0x7F
        return .exited(signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
    }

    /// `body` with `strings` as a NULL-terminated C array, alive for the call.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
