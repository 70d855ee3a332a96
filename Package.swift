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
        // The risky systems code, kept small and apart, each file opening with its safety note:
        // store mappings that survive a truncation (the SIGBUS handler), the SIGINT/SIGTERM
        // handlers, libcurl opened with dlopen. CSubsSystem is its C half (the handlers and the
        // variadic libcurl calls): a target of this package, no dependency, no libcurl headers.
        .target(name: "CSubsSystem"),
        .target(name: "SubsSystem", dependencies: ["CSubsSystem"], swiftSettings: strict),
        // The HTTP/1.1 code, a small library of its own: the request parser, the connection
        // engine (event loop, workers, sockets), the loopback rule both ends share, headers and
        // dates. No subs JSON in it: the error envelope, auth, idempotency and routes are the subs
        // API layer's (SubsKit/Server), which gives the engine its refusal bodies.
        .target(name: "SubsHTTP", swiftSettings: strict),
        // The demo store is one file, examples/store.json (a link to the resource), embedded at build time.
        .target(name: "SubsKit", dependencies: ["SubsJSON", "SubsSystem", "SubsHTTP"], resources: [.embedInCode("Resources/demo-store.json")],
                swiftSettings: strict),
        .target(name: "SubsCLI", dependencies: ["SubsKit", "SubsJSON", "SubsSystem", "SubsHTTP"], swiftSettings: strict),
        .executableTarget(name: "subs", dependencies: ["SubsCLI"]),
        // The benchmark of SPEC section 8: generates the stores, times subs against jq.
        .executableTarget(name: "subs-bench", dependencies: ["SubsKit", "SubsJSON"]),
        // Shared by every test target: the one CLI harness (in-process and the built binary), the
        // loopback socket helper, temporary folders, and skip (CI: fail) when a tool is missing.
        .target(name: "TestSupport", dependencies: ["SubsCLI", "SubsKit", "SubsJSON", "SubsHTTP"], path: "Tests/TestSupport"),
        .testTarget(name: "SubsJSONTests", dependencies: ["SubsJSON", "TestSupport"]),
        .testTarget(name: "SubsKitTests", dependencies: ["SubsKit", "SubsJSON", "SubsSystem", "SubsHTTP", "TestSupport"]),
        .testTarget(name: "SubsCLITests", dependencies: ["SubsCLI", "SubsKit", "SubsJSON", "SubsHTTP", "TestSupport"]),
    ]
)
