// libFuzzer harness for the RevenueCat API v2 decoders (provider `revenuecat` with a v2 base URL):
// the first byte picks the answer (customer, subscriptions, purchases, transactions, customers),
// the rest is its body. Decoding throws only WireFormatError; a decoded list is mapped into a
// record (status, history, reason) whose invariants must hold. A broken invariant traps.

import SubsModel
import SubsSource
import SubsProviders

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRevenueCatV2(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let now = Instant(seconds: 1_795_000_000)
    // The other parts of a record come from fixed answers (public API only).
    var customer = try! RevenueCatV2Wire.customer(Array(#"{"id": "u"}"#.utf8))
    var subscriptions: [RevenueCatV2Subscription] = []
    var purchases: [RevenueCatV2Purchase] = []
    var transactions: [ID: [RevenueCatV2Transaction]] = [:]
    do throws(WireFormatError) {
        switch data[0] % 5 {
        case 0:
            customer = try RevenueCatV2Wire.customer(bytes)
            precondition(!customer.id.isEmpty, "a customer without an id")
        case 1:
            let page = try RevenueCatV2Wire.subscriptions(bytes)
            if let next = page.nextCursor { precondition(!next.isEmpty, "an empty cursor") }
            subscriptions = page.items
            for s in subscriptions where s.hasStoreTransactions { transactions[s.id] = [] }
        case 2: purchases = try RevenueCatV2Wire.purchases(bytes).items
        case 3:
            let page = try RevenueCatV2Wire.transactions(bytes)
            transactions["s"] = page.items
            subscriptions = try! RevenueCatV2Wire.subscriptions(Array(#"{"items": [{"id": "s", "product_id": "p", "store": "app_store", "gives_access": true, "auto_renewal_status": "will_renew", "status": "active", "starts_at": 1700000000000, "entitlements": {"items": [{"id": "e", "lookup_key": "premium"}]}}]}"#.utf8)).items
        default: _ = try RevenueCatV2Wire.customers(bytes)
        }
    } catch {
        precondition(!error.message.isEmpty, "a format error without a message")
        return 0
    }
    _ = RevenueCatV2Wire.error(bytes)
    let record = RevenueCatV2Record(customer: customer, activeEntitlements: customer.activeEntitlements, subscriptions: subscriptions,
                                    purchases: purchases, transactions: transactions, requestDate: now)
    for t in [now, Instant(seconds: 0)] {
        let status = RevenueCatV2Mapping.status(record, requestedId: "u", at: t, projected: t != now)
        precondition(status.entitlements.map(\.id) == status.entitlements.map(\.id).sorted(), "entitlements not sorted")
        for e in status.entitlements {
            if e.willRenew { precondition(e.isActive && e.renewState == .willRenew, "willRenew without willRenew") }
            if let n = e.renewsCount { precondition(n >= 0, "a negative renewal count") }
            if !e.isActive { precondition(![.active, .gracePeriod].contains(e.state), "inactive in state \(e.state)") }
        }
        let history = RevenueCatV2Mapping.history(record, until: t)
        precondition(history.allSatisfy { $0.date.hasHappened(by: t) }, "history past its end")
        precondition(zip(history, history.dropFirst()).allSatisfy { $0.date <= $1.date }, "history not in time order")
    }
    precondition(!RevenueCatV2Mapping.incompleteReason(record).isEmpty, "no reason")
    return 0
}
