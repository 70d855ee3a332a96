// Successful GET answers kept on disk, so that `--offline`, `--max-age` and an unreachable
// server can still be answered: $XDG_CACHE_HOME/subs/ (else ~/.cache/subs/), directory 0700,
// files 0600, each written to a temporary file and renamed into place.
//
// Trust: the directory and each entry must be ours and writable by nobody else (CacheDirectory);
// otherwise the cache is not used at all — no reads, no writes — and the caller hears about it
// once (`onDistrust`). Each entry is bound to its request inside the file: provider, full URL,
// a digest of the API key (never the key) and the customer; an entry whose binding differs from
// the request (renamed, copied from elsewhere) is a miss.
//
// One file per (provider, URL, API key, customer). The key takes part because one URL answers
// differently per project (RevenueCat's base URL is the same for everyone): without it, project
// A's answer could be served to a user holding project B's key. The key is never written: the
// name is a SHA-256 over the request, and the header holds a SHA-256 of the key under a
// domain-separation prefix; API keys are long random tokens, so neither reveals anything usable.
// File layout: one JSON header line, "\n", then the body bytes exactly as received.

import SubsJSON
import SubsHTTP
import SubsModel
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
    /// The bound of the whole cache when SUBS_CACHE_MAX does not say (SPEC section 7 rev. 4).
    public static let defaultMaxBytes = 128 << 20
    /// The header line's bound: an entry longer than the body bound plus this is not read.
    static let maxHeaderSize = 64 * 1024
    static let format = "subs-cache 2"

    public let directory: String
    /// The most bytes the entries may take together; 0: nothing is stored.
    public let maxBytes: Int
    let clock: Clock
    private let distrust: DistrustReport
    private let ledger = CacheLedger()

    /// `onDistrust` hears, once, why the cache is not used (a directory or entry another user
    /// owns or may write); the caller prints it. `maxBytes`: the bound of the whole cache
    /// (SUBS_CACHE_MAX); writing past it evicts the oldest entries first.
    public init(directory: String, clock: Clock, maxBytes: Int = ResponseCache.defaultMaxBytes,
                onDistrust: ((String) -> Void)? = nil) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.maxBytes = max(0, maxBytes)
        self.clock = clock
        self.distrust = DistrustReport(onDistrust)
    }

    /// `$XDG_CACHE_HOME/subs` when XDG_CACHE_HOME is an absolute path, else `$HOME/.cache/subs`;
    /// nil when neither is usable. The caller reads the two variables (the library never
    /// reads the environment).
    public static func defaultDirectory(xdgCacheHome: String?, home: String?) -> String? {
        if let xdg = xdgCacheHome, xdg.hasPrefix("/") { return xdg + (xdg.hasSuffix("/") ? "" : "/") + "subs" }
        if let home, home.hasPrefix("/") { return home + (home.hasSuffix("/") ? "" : "/") + ".cache/subs" }
        return nil
    }

    /// What an entry is stored under, and bound to.
    public struct Key: Sendable {
        public var provider: String
        /// The full request URL (base + path + query).
        public var url: String
        /// The customer the request is about, when there is one.
        public var customer: String?
        var partition: [UInt8]
        /// SHA-256 of the key under a prefix of its own, nil without a key.
        var keyDigest: String?

        public init(provider: String, url: String, apiKey: APIKey?, customer: String? = nil) {
            self.provider = provider
            self.url = url
            self.customer = customer
            self.partition = apiKey?.cachePartition ?? []
            self.keyDigest = apiKey.map { SHA256.hex(Array("subs-cache-key 1\n".utf8) + $0.cachePartition) }
        }

        var fileName: String {
            var bytes: [UInt8] = Array(ResponseCache.format.utf8)
            let who: [UInt8] = customer.map { [1] + Array($0.utf8) } ?? [0]
            for part in [Array(provider.utf8), Array(url.utf8), partition, who] {
                bytes += withUnsafeBytes(of: UInt64(part.count).bigEndian, Array.init)
                bytes += part
            }
            return SHA256.hex(bytes) + ".entry"
        }

        /// The binding written into the entry and compared on reading.
        var binding: [(String, JSONValue)] {
            [("provider", .string(provider)), ("url", .string(url)), ("keyDigest", keyDigest.map(JSONValue.string) ?? .null),
             ("customer", customer.map(JSONValue.string) ?? .null)]
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

    /// The entry whatever its age; nil when absent, unreadable, bound to another request (a
    /// damaged or foreign entry is a miss) or not trusted (then `onDistrust` hears why).
    public func any(for key: Key) -> CachedAnswer? {
        let opened = CacheDirectory.open(directory)
        guard case .trusted(let folder) = opened else {
            if case .distrusted(let why) = opened { distrust.report(why) }
            return nil
        }
        defer { folder.close() }
        var bytes: [UInt8]
        switch folder.read(key.fileName, limit: ResponseCache.maxBodySize + ResponseCache.maxHeaderSize) {
        case .bytes(let read): bytes = read
        case .distrusted(let why):
            distrust.report(why)
            return nil
        case .missing, .unusable: return nil
        }
        guard let newline = bytes.prefix(ResponseCache.maxHeaderSize).firstIndex(of: 0x0A),
              let header = try? JSON.parse(Array(bytes[..<newline])),
              header["format"]?.stringValue == ResponseCache.format,
              key.binding.allSatisfy({ header[$0.0] == $0.1 }),
              case .number(let statusText)? = header["status"], let status = Int(statusText), (200..<300).contains(status),
              case .number(let lengthText)? = header["bodyLength"], let length = Int(lengthText),
              case .number(let storedText)? = header["storedAt"], let stored = Int64(storedText),
              bytes.count - newline - 1 == length
        else { return nil }
        var headers: [(name: String, value: String)] = [("Content-Type", header["contentType"]?.stringValue ?? "application/json")]
        if let date = header["date"]?.stringValue { headers.append(("Date", date)) }
        // The body moved down in place: a large entry is not held twice.
        bytes.removeSubrange(0...newline)
        return CachedAnswer(response: RemoteResponse(status: status, headers: headers, body: bytes),
                            storedAt: Instant(seconds: stored))
    }

    // MARK: storing

    /// Stores a successful answer, then evicts the oldest entries while the cache is over its
    /// bound; throws `RemoteError.cache` (too large, cannot write…). An untrusted directory is
    /// not written to (and not an error: `onDistrust` hears why); an answer larger than the
    /// bound (or any, with a bound of 0) is quietly not stored.
    public func store(_ response: RemoteResponse, for key: Key) throws {
        guard response.body.count <= ResponseCache.maxBodySize else {
            throw RemoteError.cache(path: directory, reason: "answer larger than 16 MiB, not cached")
        }
        guard response.body.count < maxBytes else { return }
        try prepareDirectory()
        let folder: CacheDirectory
        switch CacheDirectory.open(directory) {
        case .trusted(let opened): folder = opened
        case .distrusted(let why):
            distrust.report(why)
            return
        case .missing: throw RemoteError.cache(path: directory, reason: "vanished while being created")
        case .failed(let reason): throw RemoteError.cache(path: directory, reason: reason)
        }
        defer { folder.close() }
        var members: [(String, JSONValue)] = [("format", .string(ResponseCache.format))] + key.binding + [
            ("status", .number(String(response.status))),
            ("storedAt", .number(String(clock.now().seconds))),
            ("bodyLength", .number(String(response.body.count))),
        ]
        if let date = response.header("Date") { members.append(("date", .string(date))) }
        if let type = response.header("Content-Type") { members.append(("contentType", .string(type))) }
        let header = Array((JSONWriter.compact(.object(JSONObject(members))) + "\n").utf8)
        guard header.count + response.body.count <= maxBytes else { return }
        try folder.write([header, response.body], to: key.fileName)
        ledger.wrote(header.count + response.body.count, bound: maxBytes, in: folder)
    }

    /// Removes the entry of `key`, if any (a page of a listing that did not reach its end).
    public func remove(_ key: Key) {
        guard case .trusted(let folder) = CacheDirectory.open(directory) else { return }
        defer { folder.close() }
        folder.remove(key.fileName)
    }

    /// Creates the directory (and missing parents) 0700; an existing one is checked on opening.
    func prepareDirectory() throws {
        var prefix = ""
        for part in directory.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw RemoteError.cache(path: prefix, reason: "cannot create directory: \(String(cString: strerror(errno)))")
            }
        }
    }
}
