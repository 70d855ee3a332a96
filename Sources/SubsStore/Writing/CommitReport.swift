// What a write did to the store, for the served index to follow it without a scan.

/// What a write the server made did to the store: the version it was made from, the new
/// version (open), and the edits as written (old byte ranges, new bytes).
struct CommitReport {
    let base: FileIdentity
    let written: RecordFile
    let edits: [Splice]
}
