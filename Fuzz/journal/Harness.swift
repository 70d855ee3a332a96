// libFuzzer harness for the journal's reader (SPEC section 5 rev. 4): the input is a journal file.
// Compiled into the SubsStore module (scripts/fuzz) to reach JournalContents and JournalOverlay.
// Only the store's typed error may come out; what is read keeps its invariants (a broken one
// traps, which libFuzzer reports as a crash):
// - the good part (`goodLength`) read again alone gives the same changes and no tear;
// - a tear starts after the last whole line; changes come in line order;
// - every after-image is a JSON object, and the journal's customers laid out as a store scan
//   as one (the readers' view of them).

import SubsJSON
import SubsModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let contents: JournalContents
    do {
        contents = try JournalContents.parse(bytes, path: "fuzz.journal")
    } catch is StoreError {
        return 0
    } catch {
        preconditionFailure("not a store error: \(error)")
    }
    precondition(contents.goodLength <= size)
    precondition(contents.goodLength == 0 || bytes[contents.goodLength - 1] == 0x0A, "the good part ends a line")
    if let tear = contents.tear { precondition(tear.line > contents.lines, "a tear before a whole line") }
    precondition(zip(contents.entries, contents.entries.dropFirst()).allSatisfy { $0.line < $1.line }, "changes out of order")

    // The good part alone: the same changes, nothing torn.
    let again: JournalContents
    do {
        again = try JournalContents.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<contents.goodLength]), path: "fuzz.journal")
    } catch {
        preconditionFailure("the good part of a journal read failed: \(error)")
    }
    precondition(again.tear == nil)
    precondition(again.entries.map(\.line) == contents.entries.map(\.line))
    precondition(again.entries.map(\.customer) == contents.entries.map(\.customer))
    precondition(again.header == contents.header && again.folded == contents.folded)

    var overlay = JournalOverlay()
    overlay.apply(contents.entries)
    for entry in contents.entries {
        guard let record = entry.record else { continue }
        guard case .object? = try? JSON.parse(record) else { preconditionFailure("an after-image that is not an object") }
    }
    // Applied twice: the same view.
    let once = overlay.document
    overlay.apply(contents.entries)
    precondition(overlay.document == once, "a change applied twice changed the view")
    let held = MappedFile(holding: once, path: "fuzz.journal")
    do {
        let scanned = try ScannedStore.scan(held: held, ids: overlay.customers.map(\.id), collectAll: true)
        precondition(scanned.index.all.count == overlay.customers.filter { $0.record != nil }.count)
    } catch {
        preconditionFailure("the journal's customers do not read as a store: \(error)")
    }
    return 0
}
