// The store that `subs store init --demo` writes: examples/store.json, which links to
// Resources/demo-store.json, embedded in the binary by SwiftPM (one source of truth).

public enum DemoStore {
    /// The demo store document (UTF-8, ends with a newline). Its customers are described in
    /// README.md ("Demo customers"), evaluated at 2026-12-01T12:00:00Z.
    public static let json = String(decoding: PackageResources.demo_store_json, as: UTF8.self)
}
