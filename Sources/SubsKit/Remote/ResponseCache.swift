// Successful GET answers kept on disk, so that `--offline`, `--max-age` and an unreachable
// server can still be answered: $XDG_CACHE_HOME/subs/ (else ~/.cache/subs/), directory 0700,
// files 0600, each written to a temporary file and renamed into place.
//
// One file per (provider, URL, API key). The key takes part because one URL answers
// differently per project (RevenueCat's base URL is the same for everyone): without it, project
// A's answer could be served to a user holding project B's key. The key is never written:
// it only goes into the SHA-256 that names the file, together with the provider and the URL,
// and API keys are long random tokens, so the name reveals nothing usable about them.
// File layout: one JSON header line, "\n", then the body bytes exactly as received.

import SubsJSON
#if canImport(Glibc)
import Glibc
#endif

/// A cached answer and when it was stored.
public struct CachedAnswer: Sendable, Equatable {
    public var response: RemoteResponse
    public var storedAt: Instant

    /// Seconds between storing and `now` (negative when the entry claims to come from the future).
    public func age(at now: Instant) -> Double {
        Double(now.seconds - storedAt.seconds) + Double(now.nanoseconds - storedAt.nanoseconds) / 1e9
    }
}

public struct ResponseCache: Sendable {
    /// Bodies larger than this are not stored.
    public static let maxBodySize = 16 << 20

    public let directory: String
    let clock: Clock

    public init(directory: String, clock: Clock) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.clock = clock
    }

    /// `$XDG_CACHE_HOME/subs` when XDG_CACHE_HOME is an absolute path, else `$HOME/.cache/subs`;
    /// nil when neither is usable.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + (xdg.hasSuffix("/") ? "" : "/") + "subs" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + (home.hasSuffix("/") ? "" : "/") + ".cache/subs" }
        return nil
    }

    /// What an entry is stored under.
    public struct Key: Sendable {
        public var provider: String
        /// The full request URL (base + path + query).
        public var url: String
        var partition: [UInt8]

        public init(provider: String, url: String, apiKey: APIKey?) {
            self.provider = provider
            self.url = url
            self.partition = apiKey?.cachePartition ?? []
        }

        var fileName: String {
            var bytes: [UInt8] = Array("subs-cache-1".utf8)
            for part in [Array(provider.utf8), Array(url.utf8), partition] {
                bytes += withUnsafeBytes(of: UInt64(part.count).bigEndian, Array.init)
                bytes += part
            }
            return SHA256.hex(bytes) + ".entry"
        }
    }

    public func path(for key: Key) -> String { directory + "/" + key.fileName }

    // MARK: lookups

    /// The entry when it is younger than `maxAge` seconds (and not dated in the future).
    public func fresh(for key: Key, maxAge: Double) -> CachedAnswer? {
        guard let entry = any(for: key) else { return nil }
        let age = entry.age(at: clock.now())
        return age >= 0 && age < maxAge ? entry : nil
    }

    /// The entry whatever its age; nil when absent or unreadable (a damaged entry is a miss).
    public func any(for key: Key) -> CachedAnswer? {
        guard let bytes = readFile(path(for: key)), let newline = bytes.firstIndex(of: 0x0A),
              let header = try? JSON.parse(Array(bytes[..<newline])),
              header["format"]?.stringValue == "subs-cache 1",
              header["provider"]?.stringValue == key.provider,
              header["url"]?.stringValue == RemoteURL.display(key.url),
              case .number(let statusText)? = header["status"], let status = Int(statusText),
              case .number(let lengthText)? = header["bodyLength"], let length = Int(lengthText),
              case .number(let storedText)? = header["storedAt"], let stored = Int64(storedText),
              bytes.count - newline - 1 == length
        else { return nil }
        var headers: [(name: String, value: String)] = [("Content-Type", header["contentType"]?.stringValue ?? "application/json")]
        if let date = header["date"]?.stringValue { headers.append(("Date", date)) }
        return CachedAnswer(response: RemoteResponse(status: status, headers: headers, body: Array(bytes[(newline + 1)...])),
                            storedAt: Instant(seconds: stored))
    }

    // MARK: storing

    /// Stores a successful answer; throws `RemoteError.cache` (too large, cannot write…).
    public func store(_ response: RemoteResponse, for key: Key) throws {
        guard response.body.count <= ResponseCache.maxBodySize else {
            throw RemoteError.cache(path: directory, reason: "answer larger than 16 MiB, not cached")
        }
        try prepareDirectory()
        var members: [(String, JSONValue)] = [
            ("format", .string("subs-cache 1")),
            ("provider", .string(key.provider)),
            ("url", .string(RemoteURL.display(key.url))),
            ("status", .number(String(response.status))),
            ("storedAt", .number(String(clock.now().seconds))),
            ("bodyLength", .number(String(response.body.count))),
        ]
        if let date = response.header("Date") { members.append(("date", .string(date))) }
        if let type = response.header("Content-Type") { members.append(("contentType", .string(type))) }
        let bytes = Array((JSONWriter.compact(.object(JSONObject(members))) + "\n").utf8) + response.body
        try writeAtomically(bytes, to: path(for: key))
    }

    /// Creates the directory (and missing parents) 0700; tightens an existing one we own.
    func prepareDirectory() throws {
        var prefix = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw RemoteError.cache(path: prefix, reason: "cannot create directory: \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw RemoteError.cache(path: directory, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw RemoteError.cache(path: directory, reason: "not a directory (a symbolic link is not followed)")
        }
        if info.st_uid == geteuid() && (info.st_mode & 0o077) != 0 {
            _ = chmod(directory, 0o700)
        }
    }

    private func writeAtomically(_ bytes: [UInt8], to target: String) throws {
        var name = Array((directory + "/.tmp-XXXXXX").utf8CString)
        let fd = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RemoteError.cache(path: directory, reason: "cannot create a file: \(String(cString: strerror(errno)))") }
        let temporary = String(cString: name)
        var ok = fchmod(fd, 0o600) == 0
        var offset = 0
        while ok && offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { ok = false } else { offset += n }
        }
        let code = errno
        ok = ok && fsync(fd) == 0
        close(fd)
        if !ok || rename(temporary, target) != 0 {
            let reason = String(cString: strerror(ok ? errno : code))
            unlink(temporary)
            throw RemoteError.cache(path: target, reason: "cannot write: \(reason)")
        }
    }

    private func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
              info.st_size <= ResponseCache.maxBodySize + 64 * 1024 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            offset += n
        }
        return bytes
    }
}
