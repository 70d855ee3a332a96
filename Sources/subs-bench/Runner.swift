// Runs one measured child with stdin/stdout/stderr redirected to files: wall time from
// CLOCK_MONOTONIC around spawn…wait4, peak memory from wait4's rusage of that child.
//
// The child is started by a small relay process (this executable run as `--relay`), which forks
// it, rather than by the benchmark: Linux charges a child with the peak RSS of the memory it
// started from — all of the parent's for a posix_spawn (vfork) child — so a child spawned here
// could never report less than the benchmark's own footprint. A process that does nothing shows
// about 2 MB through the relay (the report prints that floor).

#if canImport(Glibc)
import Glibc
#endif

/// One finished child process.
struct ChildRun {
    var seconds: Double
    /// ru_maxrss: the child's peak resident set, KiB (Linux).
    var peakRSSKiB: Int
    /// Exit status, or 128 + signal number when it was killed.
    var status: Int32
}

/// The relay's child, for its SIGTERM handler.
nonisolated(unsafe) private var relayedChild: pid_t = 0

struct Runner {
    /// `KEY=value` entries every child gets.
    let environment: [String]
    /// This executable, which serves as the relay.
    let relay: String
    /// An empty file: the default stdin.
    let emptyFile: String
    /// Where stdout goes unless asked otherwise, truncated at every run. A regular file rather
    /// than /dev/null, which cannot be relied on (on the machine this was written on it is a
    /// plain file that every process shares).
    let discardFile: String
    /// Every child's stderr, shown when a child fails.
    let stderrFile: String
    /// The relay's answer.
    let relayAnswerFile: String

    /// Runs `arguments[0]` (an absolute path) through the relay and returns what the relay measured.
    func run(_ arguments: [String], stdin: String? = nil, stdout: String? = nil) throws -> ChildRun {
        try writeText("", to: stderrFile)
        let relayed = [relay, "--relay", stdin ?? emptyFile, stdout ?? discardFile, stderrFile, "--"] + arguments
        let relayRun = try Runner.spawn(relayed, environment: environment, stdin: emptyFile, stdout: relayAnswerFile, stderr: stderrFile)
        let answer = try readText(relayAnswerFile).split(separator: " ")
        guard relayRun.status == 0, answer.count == 3, let seconds = Double(answer[0]),
              let kib = Int(answer[1]), let status = Int32(answer[2].trimmingSpaces()) else {
            throw BenchError("the relay failed running \(arguments[0]) (exit \(relayRun.status)): \((try? readText(stderrFile)) ?? "")")
        }
        return ChildRun(seconds: seconds, peakRSSKiB: kib, status: status)
    }

    /// Starts `arguments` through the relay without waiting (a server); `stop` ends it.
    func start(_ arguments: [String], stderr: String) throws -> Background {
        let answer = relayAnswerFile + ".background"
        let relayed = [relay, "--relay", emptyFile, discardFile, stderr, "--"] + arguments
        let pid = try Runner.launch(relayed, environment: environment, stdin: emptyFile, stdout: answer, stderr: stderr)
        return Background(relayPid: pid, answerFile: answer, stderrFile: stderr)
    }

    /// A child running through the relay.
    struct Background {
        let relayPid: pid_t
        let answerFile: String
        let stderrFile: String

        /// SIGTERM, then what the relay measured.
        func stop() throws -> ChildRun {
            kill(relayPid, SIGTERM)
            let relayRun = try Runner.wait(for: relayPid, startedAt: Runner.monotonicSeconds())
            let answer = try readText(answerFile).split(separator: " ")
            guard relayRun.status == 0, answer.count == 3, let seconds = Double(answer[0]),
                  let kib = Int(answer[1]), let status = Int32(answer[2].trimmingSpaces()) else {
                throw BenchError("the relay failed (exit \(relayRun.status)): \((try? readText(stderrFile))?.suffix(2000) ?? "")")
            }
            return ChildRun(seconds: seconds, peakRSSKiB: kib, status: status)
        }
    }

    /// The relay's side (`subs-bench --relay STDIN STDOUT STDERR -- COMMAND...`): runs the command
    /// and prints `seconds peakRSSKiB status` on its own stdout. Returns its exit status.
    static func relay(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 5, arguments[3] == "--" else {
            fputs("subs-bench --relay: expected STDIN STDOUT STDERR -- COMMAND...\n", stderr)
            return 64
        }
        do {
            let started = monotonicSeconds()
            let pid = try launch(Array(arguments[4...]), environment: inheritedEnvironment(),
                                 stdin: arguments[0], stdout: arguments[1], stderr: arguments[2], useFork: true)
            // A server measured in the background is stopped by signalling the relay.
            relayedChild = pid
            signal(SIGTERM) { _ in if relayedChild > 0 { kill(relayedChild, SIGTERM) } }
            let child = try wait(for: pid, startedAt: started)
            print("\(child.seconds) \(child.peakRSSKiB) \(child.status)")
            return 0
        } catch {
            fputs("subs-bench --relay: \(error)\n", stderr)
            return 70
        }
    }

    /// Spawns and waits, timed. `fork` rather than posix_spawn in the relay: a forked child's
    /// memory starts as the relay's written pages only (a few hundred KiB), while a vfork'ed one
    /// is charged the relay's whole resident set, shared libraries included.
    static func spawn(_ arguments: [String], environment: [String], stdin: String, stdout: String,
                      stderr: String, useFork: Bool = false) throws -> ChildRun {
        let started = monotonicSeconds()
        let pid = try launch(arguments, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr, useFork: useFork)
        return try wait(for: pid, startedAt: started)
    }

    /// Starts a child without waiting for it (see `spawn`).
    static func launch(_ arguments: [String], environment: [String], stdin: String, stdout: String,
                       stderr: String, useFork: Bool = false) throws -> pid_t {
        // Everything the child needs is allocated before fork: after it, only system calls.
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        let paths: [String] = [stdin, stdout, stderr]
        let files = paths.map { strdup($0)! }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
            files.forEach { free($0) }
        }
        var pid: pid_t = 0
        if useFork {
            pid = fork()
            if pid == 0 {
                let flags = [O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY | O_CREAT | O_APPEND]
                for target in 0..<3 {
                    let fd = open(files[target], flags[target], 0o644)
                    if fd < 0 || dup2(fd, Int32(target)) < 0 { _exit(127) }
                    if fd != Int32(target) { close(fd) }
                }
                execve(argv[0]!, argv, envp)
                _exit(127)
            }
            guard pid > 0 else { throw BenchError("fork: \(String(cString: strerror(errno)))") }
        } else {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, files[0], O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, files[1], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, files[2], O_WRONLY | O_CREAT | O_APPEND, 0o644)
            let spawned = posix_spawn(&pid, argv[0]!, &actions, nil, argv, envp)
            guard spawned == 0 else {
                throw BenchError("cannot run \(arguments[0]): \(String(cString: strerror(spawned)))")
            }
        }
        return pid
    }

    /// Waits for the child `pid`: its wall time since `started`, peak memory and exit status.
    static func wait(for pid: pid_t, startedAt started: Double) throws -> ChildRun {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError("wait4: \(String(cString: strerror(errno)))") }
        }
        let seconds = monotonicSeconds() - started
        // The WIFEXITED / WEXITSTATUS / WTERMSIG macros, which Swift does not import.
        let signal = status & 0x7F
        let exit = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        return ChildRun(seconds: seconds, peakRSSKiB: Int(usage.ru_maxrss), status: exit)
    }

    /// This process's environment as `KEY=value` entries.
    static func inheritedEnvironment() -> [String] {
        var entries: [String] = []
        var p = environ
        while let entry = p.pointee {
            entries.append(String(cString: entry))
            p += 1
        }
        return entries
    }

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// The executable `name` on PATH, if any.
    static func which(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// This executable's path.
    static func currentExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw BenchError("cannot read /proc/self/exe") }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A failure of the benchmark itself (not of a measured command's speed).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
