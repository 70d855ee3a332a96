// libFuzzer harness for the iaphub provider's purchase listing: the input is the body of a 200
// answer to IAPHUB's "get purchases". Decoding must never crash and throw nothing but
// WireFormatError; what it accepts must map to a history and renewal counts that keep their
// invariants. Built as its own module against the modules it imports (public API only).

import SubsModel
import SubsProviders

private let instants: [Instant] = [Instant(seconds: 0), Instant(seconds: 1_795_000_000), Instant.earliest, Instant.latest]

private func check(_ page: IAPHUBPurchasePage) {
    let purchases = page.purchases
    let refunds = purchases.filter { $0.isRefunded && $0.refundDate != nil }.count
    for sandbox in [false, true] {
        for until in instants {
            let entries = IAPHUBPurchaseHistory.entries(purchases, sandbox: sandbox, until: until)
            precondition(zip(entries, entries.dropFirst()).allSatisfy { $0.date <= $1.date }, "entries not oldest first")
            precondition(entries.allSatisfy { $0.date.hasHappened(by: until) }, "an entry after until")
            precondition(until != Instant.latest || entries.count == purchases.count + refunds, "an entry invented or lost")
            for e in entries {
                precondition(e.entitlements.count <= 1 && e.entitlements.allSatisfy { !$0.isEmpty }, "entitlements")
                if e.kind == .transaction {
                    precondition(TransactionType(rawValue: e.type) != nil, "a type outside the store's")
                    if e.type == TransactionType.consumablePurchase.rawValue { precondition(e.entitlements.isEmpty, "a consumable unlocks") }
                }
            }
        }
    }
    // One product per key, of each type: counts are >= 0, 0 for what does not renew, and never
    // more than the purchases listed.
    var products: [ID: IAPHUBProduct] = [:]
    for p in purchases {
        guard let key = p.entitlementId else { continue }
        products[key] = IAPHUBProduct(id: p.product, sku: p.productSku, type: p.productType, purchase: p.id,
                                      originalPurchase: p.originalPurchase)
    }
    for until in instants {
        let counts = IAPHUBPurchaseHistory.renewsCounts(purchases, products: products, until: until)
        precondition(Set(counts.keys) == Set(products.keys), "a count per entitlement")
        for (key, count) in counts {
            if let count { precondition(count >= 0 && count <= purchases.count, "count out of range") }
            if products[key]?.type != "renewable_subscription" { precondition(count == 0, "a renewal of what does not renew") }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIAPHUBPurchases(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        let page = try IAPHUBPurchasePage.decode(bytes)
        precondition(page.purchases.count + page.problems.count == page.count, "a purchase neither read nor reported")
        precondition(page.problems.allSatisfy { $0.path.hasPrefix("list[") }, "a problem outside list")
        precondition(page.purchases.allSatisfy { !$0.id.isEmpty && IAPHUBPurchase.productTypes.contains($0.productType) }, "an id or type")
        precondition(page.purchases.allSatisfy { $0.productType == "consumable" || $0.entitlementId != nil }, "no key")
        check(page)
    } catch {
        precondition(!error.path.isEmpty && !error.message.isEmpty, "an error without a path or message")
    }
    return 0
}
