// swift-tools-version:5.10
// subs depends on nothing outside the Swift toolchain: this manifest lists no package dependencies, ever.
import PackageDescription

// Complete concurrency checking: the library shares work between threads (concurrentMap, the
// early decoder, the prefix copier); the compiler checks what crosses them.
let strict: [SwiftSetting] = [.enableExperimentalFeature("StrictConcurrency")]

let package = Package(
    name: "subs",
    products: [
        .executable(name: "subs", targets: ["subs"]),
        .executable(name: "subs-bench", targets: ["subs-bench"]),
    ],
    targets: [
        .target(name: "SubsJSON", swiftSettings: strict),
        // The systems code, small and apart. Its risky part, each file opening with its safety
        // note: store mappings that survive a truncation (the SIGBUS handler), the SIGINT/SIGTERM
        // handlers, libcurl opened with dlopen, concurrentMap's shared buffers. And what every
        // layer reads files with: the secret-file rule, bounded stream and line reads. CSubsSystem
        // is its C half (the handlers and the variadic libcurl calls): a target of this package, no
        // dependency, no libcurl headers.
        .target(name: "CSubsSystem"),
        .target(name: "SubsSystem", dependencies: ["CSubsSystem"], swiftSettings: strict),
        // The HTTP/1.1 code, a small library of its own: the request parser, the connection
        // engine (event loop, workers, sockets), the loopback rule both ends share, headers and
        // dates, SHA-256. No subs JSON in it: the error envelope, auth, idempotency and routes are
        // the subs API layer's (SubsServer), which gives the engine its refusal bodies.
        .target(name: "SubsHTTP", swiftSettings: strict),

        // The layers of subs, each a target, so that the compiler refuses an import against them
        // (CONTRIBUTING.md, "Layers"; LayerTests refuses a dependency here against them, a folder
        // cycle and a target past 35 % of Sources).
        // The model at the bottom: records, catalog, ids, changes, the rules and time; pure.
        .target(name: "SubsModel", dependencies: ["SubsJSON", "SubsSystem"], swiftSettings: strict),
        // The local JSON store on it: its files, the scan and index, the writer, the served
        // versions. The demo store is one file, examples/store.json (a link to the resource),
        // embedded at build time.
        .target(name: "SubsStore", dependencies: ["SubsModel", "SubsJSON", "SubsSystem"],
                resources: [.embedInCode("Resources/demo-store.json")], swiftSettings: strict),
        // The remote client: libcurl transport, cache, retries and pacing, the command's budget,
        // API keys.
        .target(name: "SubsRemote", dependencies: ["SubsModel", "SubsJSON", "SubsSystem", "SubsHTTP"], swiftSettings: strict),
        // The seam the commands talk to: CustomerSource and its answers, RecordStore and the
        // RecordSource that runs the rules over records, remarks. It names the remote budget's
        // errors (a customer left unanswered), never a platform, never the store.
        .target(name: "SubsSource", dependencies: ["SubsModel", "SubsRemote", "SubsJSON", "SubsSystem"], swiftSettings: strict),
        // Where answers come from, behind the seam: one folder per platform (RevenueCat,
        // Qonversion, IAPHUB, the subs REST API's client), the local store's records (Local), the
        // registry and what every platform is made of (Common).
        .target(name: "SubsProviders", dependencies: ["SubsSource", "SubsStore", "SubsRemote", "SubsModel", "SubsJSON"],
                swiftSettings: strict),
        // The subs REST API on SubsHTTP: routes, auth, error envelope, idempotency, bounded search.
        .target(name: "SubsServer", dependencies: ["SubsStore", "SubsModel", "SubsJSON", "SubsSystem", "SubsHTTP"],
                swiftSettings: strict),
        // The command line over all of them: parsing, wording, exit statuses (never the rules).
        .target(name: "SubsCLI", dependencies: ["SubsProviders", "SubsServer", "SubsSource", "SubsRemote", "SubsStore",
                                                "SubsModel", "SubsJSON", "SubsSystem", "SubsHTTP"], swiftSettings: strict),
        .executableTarget(name: "subs", dependencies: ["SubsCLI"]),
        // The benchmark of SPEC section 8: generates the stores, times subs against jq.
        .executableTarget(name: "subs-bench", dependencies: ["SubsJSON"]),

        // Shared by every test target: the one CLI harness (in-process and the built binary), the
        // platforms' fakes (Fakes/), customers made for tests (Customers/), the loopback socket
        // helper, temporary folders, and skip (CI: fail) when a tool is missing.
        .target(name: "TestSupport", dependencies: ["SubsCLI", "SubsProviders", "SubsServer", "SubsSource", "SubsRemote",
                                                    "SubsStore", "SubsModel", "SubsJSON", "SubsHTTP"],
                path: "Tests/TestSupport"),
        // One test target per library target, named after it.
        .testTarget(name: "SubsJSONTests", dependencies: ["SubsJSON", "TestSupport"]),
        .testTarget(name: "SubsSystemTests", dependencies: ["SubsSystem", "TestSupport"]),
        .testTarget(name: "SubsHTTPTests", dependencies: ["SubsHTTP", "SubsJSON", "TestSupport"]),
        .testTarget(name: "SubsModelTests", dependencies: ["SubsModel", "SubsJSON", "TestSupport"]),
        .testTarget(name: "SubsStoreTests", dependencies: ["SubsStore", "SubsModel", "SubsJSON", "SubsSystem", "TestSupport"]),
        .testTarget(name: "SubsRemoteTests", dependencies: ["SubsRemote", "SubsModel", "SubsHTTP", "SubsSystem", "TestSupport"]),
        .testTarget(name: "SubsSourceTests", dependencies: ["SubsSource", "SubsRemote", "SubsModel", "TestSupport"]),
        .testTarget(name: "SubsProvidersTests", dependencies: ["SubsProviders", "SubsSource", "SubsModel", "SubsJSON", "TestSupport"]),
        // The server's tests percent-encode ids as the client does (SubsRemote's RemoteURL).
        .testTarget(name: "SubsServerTests", dependencies: ["SubsServer", "SubsStore", "SubsModel", "SubsJSON", "SubsHTTP",
                                                            "SubsSystem", "SubsRemote", "TestSupport"]),
        // The command line's tests, and the repository's (Repository/: layers, fuzz table, ids).
        .testTarget(name: "SubsCLITests", dependencies: ["SubsCLI", "SubsProviders", "SubsServer", "SubsSource", "SubsRemote",
                                                         "SubsStore", "SubsModel", "SubsJSON", "SubsSystem", "SubsHTTP",
                                                         "TestSupport"]),
    ]
)
