// libFuzzer harness for Qonversion API v4's decoders (QonversionV4Wire) and the purchase history
// built from them (QonversionPurchaseHistory): the input is the body of a v4 list page — user
// entitlements or purchases — or a grant's answer. Public API only (see scripts/fuzz). The
// decoders throw only WireFormatError; a broken invariant of the history traps.

import SubsModel
import SubsProviders

private let instants = [Instant.earliest, Instant(seconds: 0), Instant(seconds: 1_796_126_400), Instant.latest]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQonversionV4(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var entitlements: [QonversionEntitlement] = []
    do {
        let page = try QonversionV4Wire.entitlementsPage(bytes)
        precondition(page.problems.isEmpty || !page.items.isEmpty, "nothing readable, yet no error")
        precondition(page.items.count + page.problems.count == page.count, "an element neither read nor left out")
        for e in page.items { precondition(!e.id.isEmpty, "an empty entitlement id accepted") }
        entitlements = page.items
    } catch {
        precondition(!error.description.isEmpty, "an error without words")
    }
    do {
        let page = try QonversionV4Wire.purchasesPage(bytes)
        precondition(page.problems.isEmpty || !page.items.isEmpty, "nothing readable, yet no error")
        for problem in page.problems { precondition(problem.path.hasPrefix("data["), "a problem outside data[]") }
        for p in page.items {
            precondition(!p.id.isEmpty && !p.productId.isEmpty, "an empty id accepted")
            precondition(p.purchasedAt.isSupported, "a date outside 0001–9999 kept")
        }
        for until in instants {
            let entries = QonversionPurchaseHistory.entries(page.items, entitlements: entitlements, sandbox: false, until: until)
            precondition(entries.count == page.items.filter { $0.purchasedAt.hasHappened(by: until) }.count, "a purchase lost or invented")
            precondition(zip(entries, entries.dropFirst()).allSatisfy { $0.date <= $1.date }, "history not oldest first")
            for entry in entries {
                precondition(entry.kind == .transaction && entry.date.hasHappened(by: until))
                precondition(entry.entitlements == entry.entitlements.sorted(), "entitlements not sorted")
            }
            let counts = QonversionPurchaseHistory.renewsCounts(page.items, entitlements: entitlements, until: until)
            for (_, count) in counts { if let n = count { precondition(n >= 0 && n < max(1, page.items.count), "a count out of range") } }
        }
    } catch {
        precondition(!error.description.isEmpty, "an error without words")
    }
    do {
        let granted = try QonversionV4Wire.entitlement(bytes)
        precondition(!granted.id.isEmpty, "an empty entitlement id accepted")
    } catch {
        precondition(!error.description.isEmpty)
    }
    return 0
}
