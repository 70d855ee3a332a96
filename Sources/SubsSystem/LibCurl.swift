// Safety: libcurl's easy API, opened with dlopen when the first remote request is made — the
// binary has no libcurl (nor its ~30 libraries) among its NEEDED entries, so a local command never
// maps them, and a machine without libcurl still runs every local command. What is unsafe: the
// functions are found by name with dlsym and called through function types written here, not
// taken from curl.h. What makes it sound: each non-variadic function is bit-cast to the exact
// prototype curl.h gives it (CURL * and curl_slist * as opaque pointers, CURLcode and CURLglobal
// flags as the C int/long they are); the two variadic ones, curl_easy_setopt and
// curl_easy_getinfo, are never called from Swift but through curl_calls.c, which calls them with
// their variadic prototype and the argument type libcurl reads for each kind of option. The
// library stays loaded for the life of the process (never dlclose'd once found), so the
// pointers stay valid; curl_global_init runs once per library, under a lock.

import CSubsSystem
#if canImport(Glibc)
import Glibc
#endif

/// A libcurl write or header callback: (bytes, size, count, userdata) → bytes taken.
public typealias CurlDataCallback = @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int

/// libcurl's easy API, found with dlsym.
public struct LibCurl: @unchecked Sendable {
    public typealias EasyInit = @convention(c) () -> OpaquePointer?
    public typealias EasyHandleOnly = @convention(c) (OpaquePointer?) -> Void
    public typealias EasyPerform = @convention(c) (OpaquePointer?) -> Int32
    public typealias SlistAppend = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> OpaquePointer?
    public typealias SlistFreeAll = @convention(c) (OpaquePointer?) -> Void
    public typealias StrError = @convention(c) (Int32) -> UnsafePointer<CChar>?
    typealias GlobalInit = @convention(c) (Int) -> Int32

    /// Why no libcurl could be used.
    public struct Missing: Error {
        public let reason: String
    }

    /// The file names tried in order: OpenSSL flavour (libcurl4), the development link, GnuTLS flavour.
    public static let defaultNames = ["libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4"]

    public let name: String
    public let easyInit: EasyInit
    public let easyReset: EasyHandleOnly
    public let easyCleanup: EasyHandleOnly
    public let easyPerform: EasyPerform
    public let slistAppend: SlistAppend
    public let slistFreeAll: SlistFreeAll
    public let strError: StrError
    /// curl_easy_setopt and curl_easy_getinfo: variadic, called only through curl_calls.c.
    private let setopt: UnsafeMutableRawPointer
    private let getinfo: UnsafeMutableRawPointer
    private let globalInit: GlobalInit

    /// CURL_GLOBAL_ALL = CURL_GLOBAL_SSL (1 << 0) | CURL_GLOBAL_WIN32 (1 << 1).
    private static let globalAll = 3

    /// The first of `names` that opens and has every function, initialised once per process.
    /// Throws `Missing`.
    public static func open(_ names: [String]) throws -> LibCurl {
        try loading.locked { state in
            if let loaded = state.loaded[names] { return loaded }
            var found: LibCurl?
            var problem = "not found"
            for name in names {
                guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
                do {
                    found = try LibCurl(name: name, handle: handle)
                    break
                } catch {
                    if let missing = error as? Missing { problem = missing.reason }
                    dlclose(handle)
                }
            }
            guard let library = found else { throw Missing(reason: problem) }
            // curl_global_init is not thread-safe before libcurl 7.84: once per library, under the lock.
            if !state.initialised.contains(library.name) {
                let code = library.globalInit(globalAll)
                guard code == 0 else { throw Missing(reason: "\(library.name): curl_global_init failed (\(code))") }
                state.initialised.insert(library.name)
            }
            state.loaded[names] = library
            return library
        }
    }

    /// What `open` found so far, under a mutex (plain pthread: the Synchronization module
    /// would add a library every process loads at start).
    private final class Loading: @unchecked Sendable {
        var loaded: [[String]: LibCurl] = [:]
        var initialised: Set<String> = []
        private let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
            let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
            return mutex
        }()

        func locked<T>(_ body: (Loading) throws -> T) rethrows -> T {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(self)
        }
    }

    private static let loading = Loading()

    private init(name: String, handle: UnsafeMutableRawPointer) throws {
        self.name = name
        func find(_ symbol: String) throws -> UnsafeMutableRawPointer {
            guard let address = dlsym(handle, symbol) else { throw Missing(reason: "\(name) has no \(symbol)") }
            return address
        }
        easyInit = unsafeBitCast(try find("curl_easy_init"), to: EasyInit.self)
        easyReset = unsafeBitCast(try find("curl_easy_reset"), to: EasyHandleOnly.self)
        easyCleanup = unsafeBitCast(try find("curl_easy_cleanup"), to: EasyHandleOnly.self)
        easyPerform = unsafeBitCast(try find("curl_easy_perform"), to: EasyPerform.self)
        slistAppend = unsafeBitCast(try find("curl_slist_append"), to: SlistAppend.self)
        slistFreeAll = unsafeBitCast(try find("curl_slist_free_all"), to: SlistFreeAll.self)
        strError = unsafeBitCast(try find("curl_easy_strerror"), to: StrError.self)
        globalInit = unsafeBitCast(try find("curl_global_init"), to: GlobalInit.self)
        setopt = try find("curl_easy_setopt")
        getinfo = try find("curl_easy_getinfo")
    }

    /// libcurl's words for `code`.
    public func describe(_ code: Int32) -> String {
        strError(code).map { String(cString: $0) } ?? "libcurl error \(code)"
    }

    // MARK: curl_easy_setopt / curl_easy_getinfo, by kind of value (each returns the CURLcode)

    /// A CURLOPTTYPE_LONG option (CURLOPT_* below 10000): a C long.
    public func setLong(_ handle: OpaquePointer?, _ option: Int32, _ value: Int) -> Int32 {
        subs_curl_setopt_long(setopt, handle, option, value)
    }

    /// A CURLOPTTYPE_OBJECTPOINT / STRINGPOINT / SLISTPOINT option (10000 + n): a pointer.
    public func setPointer(_ handle: OpaquePointer?, _ option: Int32, _ value: UnsafeRawPointer?) -> Int32 {
        subs_curl_setopt_pointer(setopt, handle, option, value)
    }

    /// A CURLOPTTYPE_FUNCTIONPOINT option (20000 + n) taking a write or header callback.
    public func setCallback(_ handle: OpaquePointer?, _ option: Int32, _ value: CurlDataCallback?) -> Int32 {
        subs_curl_setopt_callback(setopt, handle, option, value)
    }

    /// A CURLOPTTYPE_OFF_T option (30000 + n): a curl_off_t, 64 bits.
    public func setOffT(_ handle: OpaquePointer?, _ option: Int32, _ value: Int64) -> Int32 {
        subs_curl_setopt_off_t(setopt, handle, option, value)
    }

    /// A CURLINFO_LONG value (0x200000 + n).
    public func getInfoLong(_ handle: OpaquePointer?, _ info: Int32, _ value: UnsafeMutablePointer<Int>?) -> Int32 {
        subs_curl_getinfo_long(getinfo, handle, info, value)
    }

    /// A CURLINFO_STRING value (0x100000 + n), copied (libcurl owns the original, valid until
    /// the handle's next transfer); nil when libcurl has none.
    public func getInfoString(_ handle: OpaquePointer?, _ info: Int32) -> (code: Int32, value: String?) {
        var pointer: UnsafePointer<CChar>?
        let code = subs_curl_getinfo_string(getinfo, handle, info, &pointer)
        return (code, code == 0 ? pointer.map { String(cString: $0) } : nil)
    }

    /// A CURLINFO_OFF_T value (0x600000 + n).
    public func getInfoOffT(_ handle: OpaquePointer?, _ info: Int32, _ value: UnsafeMutablePointer<Int64>?) -> Int32 {
        subs_curl_getinfo_off_t(getinfo, handle, info, value)
    }
}
