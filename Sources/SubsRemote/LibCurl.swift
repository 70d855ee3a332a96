// The numbers of libcurl's ABI that the transport uses, and LibCurl (SubsSystem: libcurl opened
// with dlopen when the first remote request is made, and called soundly) as the remote client
// knows it: a library that cannot be used is `RemoteError.libcurlMissing`.

import SubsSystem

/// Numeric constants of the libcurl ABI, copied from curl.h (libcurl 7.88.1,
/// /usr/include/x86_64-linux-gnu/curl/curl.h from libcurl4-openssl-dev). They never change
/// between libcurl releases: curl keeps them stable for binary compatibility.
enum CurlConstant {
    // CURLOPT_* = CURLOPTTYPE_LONG (0) + n: the value is a C long.
    static let noBody: Int32 = 44            // CURLOPT_NOBODY
    static let followLocation: Int32 = 52    // CURLOPT_FOLLOWLOCATION
    static let postFieldSize: Int32 = 60     // CURLOPT_POSTFIELDSIZE
    static let httpGet: Int32 = 80           // CURLOPT_HTTPGET
    static let noSignal: Int32 = 99          // CURLOPT_NOSIGNAL
    static let timeoutMS: Int32 = 155        // CURLOPT_TIMEOUT_MS
    static let connectTimeoutMS: Int32 = 156 // CURLOPT_CONNECTTIMEOUT_MS
    // CURLOPT_* = CURLOPTTYPE_OBJECTPOINT (10000) + n: the value is a pointer.
    static let writeData: Int32 = 10_001      // CURLOPT_WRITEDATA
    static let url: Int32 = 10_002            // CURLOPT_URL
    static let proxy: Int32 = 10_004          // CURLOPT_PROXY ("" = no proxy, whatever the environment says)
    static let errorBuffer: Int32 = 10_010    // CURLOPT_ERRORBUFFER (CURL_ERROR_SIZE = 256 bytes)
    static let httpHeader: Int32 = 10_023     // CURLOPT_HTTPHEADER
    static let headerData: Int32 = 10_029     // CURLOPT_HEADERDATA
    static let customRequest: Int32 = 10_036  // CURLOPT_CUSTOMREQUEST
    static let acceptEncoding: Int32 = 10_102 // CURLOPT_ACCEPT_ENCODING
    static let copyPostFields: Int32 = 10_165 // CURLOPT_COPYPOSTFIELDS
    static let noProxy: Int32 = 10_177        // CURLOPT_NOPROXY ("*" = no host goes through a proxy)
    static let resolve: Int32 = 10_203        // CURLOPT_RESOLVE (curl_slist of "host:port:address,...")
    static let protocolsString: Int32 = 10_318 // CURLOPT_PROTOCOLS_STR (libcurl 7.85+)
    // CURLOPT_* = CURLOPTTYPE_FUNCTIONPOINT (20000) + n: the value is a function pointer.
    static let writeFunction: Int32 = 20_011  // CURLOPT_WRITEFUNCTION
    static let headerFunction: Int32 = 20_079 // CURLOPT_HEADERFUNCTION
    // CURLINFO_RESPONSE_CODE = CURLINFO_LONG (0x200000) + 2.
    static let responseCode: Int32 = 0x200000 + 2
    // CURL_GLOBAL_ALL = CURL_GLOBAL_SSL (1 << 0) | CURL_GLOBAL_WIN32 (1 << 1).
    static let globalAll: Int = 3
    static let errorSize = 256               // CURL_ERROR_SIZE
}

/// CURLcode values from curl.h that the transport tells apart.
enum CurlCode {
    static let ok: Int32 = 0
    static let unsupportedProtocol: Int32 = 1
    static let urlMalformat: Int32 = 3
    static let couldntResolveProxy: Int32 = 5
    static let couldntResolveHost: Int32 = 6
    static let couldntConnect: Int32 = 7
    static let weirdServerReply: Int32 = 8
    static let http2: Int32 = 16
    static let partialFile: Int32 = 18
    static let writeError: Int32 = 23
    static let outOfMemory: Int32 = 27
    static let operationTimedOut: Int32 = 28
    static let sslConnectError: Int32 = 35
    static let interfaceFailed: Int32 = 45
    static let gotNothing: Int32 = 52
    static let sslEngineNotFound: Int32 = 53
    static let sslEngineSetFailed: Int32 = 54
    static let sendError: Int32 = 55
    static let recvError: Int32 = 56
    static let sslCertProblem: Int32 = 58
    static let sslCipher: Int32 = 59
    static let peerFailedVerification: Int32 = 60
    static let badContentEncoding: Int32 = 61
    static let sslEngineInitFailed: Int32 = 66
    static let sslCACertBadFile: Int32 = 77
    static let sslShutdownFailed: Int32 = 80
    static let sslCRLBadFile: Int32 = 82
    static let sslIssuerError: Int32 = 83
    static let sslPinnedPubKeyNotMatch: Int32 = 90
    static let sslInvalidCertStatus: Int32 = 91
    static let http2Stream: Int32 = 92
    static let proxy: Int32 = 97
    static let sslClientCert: Int32 = 98
}

extension LibCurl {
    /// The first of `names` that opens and has every function, initialised once per process.
    /// Throws `RemoteError.libcurlMissing`.
    static func load(_ names: [String]) throws -> LibCurl {
        do {
            return try LibCurl.open(names)
        } catch let missing as LibCurl.Missing {
            throw RemoteError.libcurlMissing(reason: missing.reason)
        }
    }
}
