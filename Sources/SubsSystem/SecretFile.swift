// Files that hold a secret, or decide where one goes (SPEC section 7 rev. 4, "Secret files"): API
// key files, serve's token file, webhook secret files, and the config file (its `remote` and
// `api-key-file` say where the key is sent and what it is). One rule for all of them, checked on
// the file as opened (its descriptor, symbolic links followed), so what is checked is what is read:
// - owned by the user running subs or by root: another user could change it — a config file in a
//   shared directory whose `remote = http://127.0.0.1:PORT` sends the key in clear text to a port
//   any local user can open; root running subs accepts only its own files;
// - not writable by group or others, for the same reason;
// - a secret file (not the config file) not readable by group or others either;
// - a path that is itself a symbolic link: the link must be the user's or root's too (whoever owns
//   the link decides which file it names).
// Anything else is refused with one line naming the file and the chmod/chown that fixes it. The
// directories on the way are not checked: whoever may write one can swap the file, but only for a
// file that passes the same checks. A character device (`--config /dev/null`, a terminal) is judged
// by its owner alone: its mode says who may write to the device, not who decides what reading it
// gives; a named pipe is judged like a file (others may write into it), and the pipe of a shell's
// `<(command)` is the user's and 0600.

#if canImport(Glibc)
import Glibc
#endif

/// Which kind of file, for the wording and for whether it must be unreadable to others.
public enum SecretFileKind: Sendable, Equatable {
    case apiKey, serverToken, webhookSecret, config

    /// Its name in messages.
    public var noun: String {
        switch self {
        case .apiKey: return "API key file"
        case .serverToken: return "token file"
        case .webhookSecret: return "webhook secret file"
        case .config: return "config file"
        }
    }

    /// Holds the secret itself (so others must not read it); the config file only says where
    /// the secret goes.
    public var holdsSecret: Bool { self != .config }
}

/// A secret file that was refused or could not be opened. `unsafe` and `permissionDenied` are
/// permission problems (exit 77); `missing`, `notAFile` and `unreadable` are configuration (78).
public struct SecretFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable { case unsafe, permissionDenied, missing, notAFile, unreadable }
    public var problem: Problem
    public var path: String
    public var kind: SecretFileKind
    /// Why, without the path: `is a directory`, `no such file or directory`, or for `unsafe` the
    /// sentence with its fix (`the API key file is readable by group or others (mode 644); chmod
    /// 600 /tmp/key`).
    public var reason: String
    /// The whole line, the path first.
    public var message: String {
        let shown = path.isEmpty ? "''" : path
        return problem == .unsafe ? "\(shown): \(reason)" : "\(shown): cannot read the \(kind.noun): \(reason)"
    }
    public var description: String { message }
    public var isPermissionProblem: Bool { problem == .unsafe || problem == .permissionDenied }
}

public enum SecretFile {
    /// Opens `path` for reading and checks it (see the file's header); the descriptor, which the
    /// caller closes. `euid`: the user running subs (a test may pass another).
    public static func open(_ path: String, kind: SecretFileKind, euid: uid_t = geteuid()) throws(SecretFileError) -> Int32 {
        func failure(_ problem: SecretFileError.Problem, _ reason: String) -> SecretFileError {
            SecretFileError(problem: problem, path: path, kind: kind, reason: reason)
        }
        guard !path.isEmpty else { throw failure(.missing, "empty path") }
        var link = stat()
        if lstat(path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK, !isTrusted(owner: link.st_uid, euid: euid) {
            throw failure(.unsafe, "the \(kind.noun) is a symbolic link owned by another user (\(userName(link.st_uid))); "
                          + "chown -h \(userName(euid)) \(shellQuoted(path)), or name the file it points to")
        }
        // O_NONBLOCK: a named pipe with no writer does not hold open(); reads block again below.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: throw failure(.missing, errorText(code))
            case EACCES, EPERM: throw failure(.permissionDenied, errorText(code))
            default: throw failure(.unreadable, errorText(code))
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw failure(.unreadable, errorText(code))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw failure(.notAFile, "is a directory")
        }
        if let problem = problem(info, path: path, kind: kind, euid: euid) {
            close(fd)
            throw failure(.unsafe, problem)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// What is wrong with a file of this status as a `kind` read by `euid`, and the command that
    /// fixes it; nil when nothing is.
    public static func problem(_ info: stat, path: String, kind: SecretFileKind, euid: uid_t) -> String? {
        let type = info.st_mode & S_IFMT
        let judgedByMode = type == S_IFREG || type == S_IFIFO
        let mode = info.st_mode & 0o7777
        var wrongs: [String] = [], fixes: [String] = []
        if !isTrusted(owner: info.st_uid, euid: euid) {
            wrongs.append("owned by another user (\(userName(info.st_uid)))")
            fixes.append("chown \(userName(euid)) \(shellQuoted(path))")
        }
        if judgedByMode {
            let writable = mode & 0o022 != 0
            let readable = kind.holdsSecret && mode & 0o044 != 0
            switch (writable, readable) {
            case (true, true): wrongs.append("readable and writable by group or others (mode \(octal(mode)))")
            case (true, false): wrongs.append("writable by group or others (mode \(octal(mode)))")
            case (false, true): wrongs.append("readable by group or others (mode \(octal(mode)))")
            case (false, false): break
            }
            if kind.holdsSecret && mode & 0o077 != 0 {
                fixes.append("chmod 600 \(shellQuoted(path))")
            } else if writable {
                fixes.append("chmod go-w \(shellQuoted(path))")
            }
        }
        guard !wrongs.isEmpty else { return nil }
        return "the \(kind.noun) is \(wrongs.joined(separator: " and ")); \(fixes.joined(separator: " && "))"
    }

    /// The user running subs, or root.
    static func isTrusted(owner: uid_t, euid: uid_t) -> Bool { owner == euid || owner == 0 }

    /// `alice`, or the number when the password database has no name for it.
    package static func userName(_ uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        if getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name {
            let text = String(cString: name)
            if !text.isEmpty && text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "'") }) { return text }
        }
        return String(uid)
    }

    /// The path as a shell word: as it is when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return Array("/._-+,:@%~".utf8).contains(byte)
            }
        }
        if safe && !path.isEmpty && !path.hasPrefix("~") { return path }
        var quoted = "'"
        for character in path { quoted += character == "'" ? #"'\''"# : String(character) }
        return quoted + "'"
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return digits.count < 3 ? String(repeating: "0", count: 3 - digits.count) + digits : digits
    }
}
