// The CLI tests run `subs` through TestSupport's one harness: `runCLI` / `CLIHarness` in-process,
// `Binary` for the built binary, `TempDir`, `Repo`, `LoopbackListener`, `RawClient`. Exported here
// so that every file of this target sees them without an import of its own.

@_exported import TestSupport
