// libFuzzer harness for the RevenueCat v1 subscriber decoder (provider `revenuecat`): the input is
// an answer body. Decoding throws only RevenueCatFormatError; a decoded subscriber is mapped at
// instants taken from the input, and the answers keep their invariants. Built as its own module
// against the modules it imports (public API only, see Fuzz/harnesses). A broken
// invariant traps.

import SubsModel
import SubsProviders

/// An instant in years 0001–9999 from 8 bytes of the input (or the request date itself).
private func instant(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, fallback: Instant) -> Instant {
    guard offset + 8 <= bytes.count else { return fallback }
    var raw: UInt64 = 0
    for i in 0..<8 { raw = raw << 8 | UInt64(bytes[offset + i]) }
    let span = UInt64(Instant.latest.seconds - Instant.earliest.seconds)
    return Instant(seconds: Instant.earliest.seconds + Int64(raw % span))
}

private func check(_ e: EntitlementInfo, at t: Instant) {
    if e.state == .revoked { precondition(!e.isActive, "revoked but active") }
    if e.isActive {
        precondition(e.expirationDate.map { t < $0 } ?? true, "active at or after its expiration")
        precondition([.active, .gracePeriod].contains(e.state), "active in state \(e.state)")
    } else {
        precondition(![.active, .gracePeriod].contains(e.state), "inactive in state \(e.state)")
    }
    if e.willRenew { precondition(e.isActive && e.renewState == .willRenew, "willRenew without willRenew") }
    precondition(e.renewsCount == nil && e.transactions.isEmpty, "v1 has no renewal counts or transactions")
    if e.periodType == .promotional { precondition(e.source == .manual && e.grantType == .manual, "promotional not manual") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRevenueCatSubscriber(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let subscriber: RevenueCatSubscriber
    do throws(RevenueCatFormatError) {
        subscriber = try RevenueCatSubscriber.decode(Array(bytes))
    } catch {
        // Typed throws: only RevenueCatFormatError can arrive here; its text is one line.
        precondition(!error.message.isEmpty, "a format error without a message")
        return 0
    }
    precondition(subscriber.requestDate.isSupported, "request date out of range")
    let instants = [subscriber.requestDate, instant(bytes, at: 0, fallback: subscriber.requestDate),
                    instant(bytes, at: max(0, size - 8), fallback: subscriber.requestDate)]
    precondition(subscriber.problems.allSatisfy { $0.path.hasPrefix("subscriber.") }, "a problem outside the subscriber")
    for t in instants {
        let projected = t != subscriber.requestDate
        let status = RevenueCatMapping.status(subscriber, requestedId: "u", at: t, projected: projected)
        precondition(status.projected == projected, "projected flag")
        precondition(status.entitlements.count == subscriber.entitlements.count, "an entitlement lost")
        precondition(status.entitlements.map(\.id) == status.entitlements.map(\.id).sorted(), "entitlements not sorted")
        for e in status.entitlements {
            check(e, at: t)
            // A projection is never active before the first purchase.
            if projected, e.isActive, let start = e.startedDate { precondition(start.hasHappened(by: t), "active before its start at --at") }
            if e.periodType == .prepaid { precondition(!e.willRenew && e.renewState != .willRenew, "a prepaid plan renews") }
        }
        let history = RevenueCatMapping.history(subscriber, until: t)
        precondition(history.allSatisfy { $0.date.hasHappened(by: t) }, "history past its end")
        precondition(zip(history, history.dropFirst()).allSatisfy { $0.date <= $1.date }, "history not in time order")
    }
    _ = RevenueCatMapping.isCreatedEmpty(subscriber, httpStatus: 200)
    return 0
}
