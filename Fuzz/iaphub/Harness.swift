// libFuzzer harness for the iaphub provider's decoder: the input is the body of a 200 answer
// to IAPHUB's "get user". Decoding must never crash and throw nothing but IAPHUBAnswerError;
// what it accepts must map to entitlements that keep their invariants, now and projected.
// Built as its own module against the modules it imports (public API only).

import SubsModel
import SubsProviders

private let instants: [Instant?] = [nil, Instant(seconds: 0), Instant(seconds: 1_795_000_000),
                                    Instant.earliest, Instant.latest]

private func check(_ answer: IAPHUBAnswer) {
    for environment in ["production", "sandbox"] {
        for t in instants {
            let found = IAPHUBSource.entitlements(answer, environment: environment, projectedTo: t)
            let ids = found.map(\.id)
            precondition(ids == ids.sorted() && Set(ids).count == ids.count, "entitlements not sorted or not unique")
            let keys = Set(answer.activeProducts.filter { $0.type != "consumable" }.compactMap(\.entitlementId))
            precondition(Set(ids) == keys, "an entitlement per key of the non-consumable products")
            for e in found {
                precondition(!e.id.isEmpty, "empty entitlement id")
                precondition(!e.isActive || e.state == .active || e.state == .gracePeriod, "active in an inactive state")
                precondition(!e.willRenew || (e.renewState == .willRenew && e.state != .paused), "willRenew without renewing")
                precondition(e.isSandbox == (environment != "production"), "isSandbox")
                precondition(e.renewsCount == nil && e.startedDate == nil && e.transactions.isEmpty, "fields IAPHUB never has")
                for date in [e.lastPurchaseDate, e.expirationDate, e.autoResumeDate] {
                    if let date { precondition(date.nanoseconds == 0 && date.isSupported, "dates are whole seconds in range") }
                }
                if let t, e.isActive {
                    precondition(e.expirationDate.map { t < $0 } ?? true, "active after its expiration at --at")
                    precondition(e.lastPurchaseDate.map { $0.hasHappened(by: t) } ?? true, "active before its purchase at --at")
                }
                if t == nil { precondition(e.projectedBeforeStart == nil, "a projection mark without --at") }
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIAPHUBAnswer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        let answer = try IAPHUBAnswer.decode(bytes)
        // Every product kept has a key; a malformed one is left out only beside a readable one.
        precondition(answer.activeProducts.allSatisfy { $0.entitlementId != nil }, "a product without a key kept")
        precondition(answer.problems.isEmpty || !answer.activeProducts.isEmpty, "nothing readable, yet no error")
        precondition(answer.problems.allSatisfy { $0.path.hasPrefix("activeProducts[") }, "a problem outside activeProducts")
        check(answer)
    } catch let error as IAPHUBAnswerError {
        precondition(!error.path.isEmpty && !error.message.isEmpty, "an error without a path or message")
    } catch {
        preconditionFailure("the decoder threw \(type(of: error)), not IAPHUBAnswerError")
    }
    return 0
}
