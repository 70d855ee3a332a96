// The API key for --remote: where it comes from (--api-key-file, SUBS_API_KEY_FILE,
// SUBS_API_KEY, in that order; the caller passes the values in) and how it is kept out of
// every message, description, log line and cache file.

#if canImport(Glibc)
import Glibc
#endif
import SubsSystem

/// How a provider wants the key: `Authorization: Bearer KEY` or `Authorization: ApiKey KEY`.
public struct APIKeyScheme: Sendable, Equatable {
    public var header: String
    public var prefix: String
    public init(header: String, prefix: String) {
        self.header = header
        self.prefix = prefix
    }
    public static let bearer = APIKeyScheme(header: "Authorization", prefix: "Bearer ")
    public static let apiKey = APIKeyScheme(header: "Authorization", prefix: "ApiKey ")
}

/// A secret. Its description, debug description and reflection never show the value.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let secret: String

    /// `value` must be non-empty and free of control characters (checked by `load`).
    public init(_ value: String) { secret = value }

    public var description: String { "<api key redacted>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// The header value to send (`Bearer KEY`): the only place the secret leaves this type.
    public func headerValue(_ scheme: APIKeyScheme) -> String { scheme.prefix + secret }

    /// Bytes that partition the response cache by credential (never stored as such: they go
    /// into the SHA-256 that names the cache file together with provider and URL).
    var cachePartition: [UInt8] { Array(secret.utf8) }

    /// The key, when one was given.
    public struct Loaded: Sendable {
        public var key: APIKey?
    }

    /// Largest key file read; a key is a line, not a document.
    static let maxFileSize = 64 * 1024

    /// Loads the key from the first of `flagFile` (--api-key-file), `environmentFile`
    /// (SUBS_API_KEY_FILE), `environmentValue` (SUBS_API_KEY) that is given (non-nil; an empty
    /// file path counts as not given). None given: no key. One trailing newline is trimmed.
    /// A key file must be a secret file (`SecretFile`): else `SecretFileError`.
    public static func load(flagFile: String?, environmentFile: String?, environmentValue: String?) throws -> Loaded {
        if let path = flagFile ?? environmentFile.flatMap({ $0.isEmpty ? nil : $0 }) {
            return try loadFile(path)
        }
        if let value = environmentValue {
            return Loaded(key: try checked(trimOneNewline(value), source: "SUBS_API_KEY"))
        }
        return Loaded(key: nil)
    }

    static func loadFile(_ path: String) throws -> Loaded {
        let fd = try SecretFile.open(path, kind: .apiKey)
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RemoteError.apiKeyUnreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > maxFileSize { throw RemoteError.apiKeyUnreadable(path: path, reason: "larger than 64 KiB; expected one line") }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw RemoteError.apiKeyInvalid(source: path, reason: "not UTF-8 text")
        }
        return Loaded(key: try checked(trimOneNewline(text), source: path))
    }

    static func trimOneNewline(_ text: String) -> String {
        // "\r\n" is one Character: dropLast() removes it whole.
        if text.hasSuffix("\r\n") || text.hasSuffix("\n") { return String(text.dropLast()) }
        return text
    }

    /// Refuses what would break or inject into an HTTP header; never quotes the key.
    static func checked(_ value: String, source: String) throws -> APIKey {
        guard !value.isEmpty else { throw RemoteError.apiKeyEmpty(source: source) }
        if value.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
            throw RemoteError.apiKeyInvalid(source: source, reason: "more than one line")
        }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0.value > 0x7E }) {
            throw RemoteError.apiKeyInvalid(source: source, reason: "control or non-ASCII characters")
        }
        if value.first == " " || value.last == " " {
            throw RemoteError.apiKeyInvalid(source: source, reason: "leading or trailing spaces")
        }
        return APIKey(value)
    }
}
