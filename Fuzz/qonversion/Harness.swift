// libFuzzer harness for the qonversion provider's decoder (QonversionWire): the input is the body
// of a v3 answer — a user's entitlements, a grant's answer or an identity. Built as its own module
// against the modules it imports (public API only, see Fuzz/harnesses). The decoders throw
// only QonversionDecodeError (their typed throws say so); a broken mapping invariant traps.

import SubsModel
import SubsProviders

private let instants = [Instant.earliest, Instant(seconds: 0), Instant(seconds: 1_796_126_400), Instant.latest]

private func check(_ e: QonversionEntitlement) {
    precondition(!e.id.isEmpty, "an empty entitlement id accepted")
    for date in [e.started, e.expires] {
        if let date { precondition(date.isSupported && date.seconds != 0, "an epoch outside 0001–9999, or 0, kept") }
    }
    for t in [nil] + instants.map(Optional.some) {
        let info = e.info(projectedTo: t)
        precondition(info.id == e.id)
        precondition(info.isActive == (info.state == .active || info.state == .gracePeriod), "isActive and state disagree")
        precondition(info.state != .gracePeriod || info.renewState == .billingIssue, "grace without a billing issue")
        // willRenew is v3's renew state, except before the record's start, where nothing renews yet.
        precondition(info.willRenew == (info.renewState == .willRenew && info.projectedBeforeStart == nil),
                     "willRenew and renewState disagree")
        precondition((e.source == .manual) == (info.periodType == .promotional), "promotional is manual, and only manual")
        precondition(e.source != .manual || (info.renewState == .nonRenewable && info.grantType == .manual))
        precondition(info.renewsCount == nil && info.transactions.isEmpty, "v3 has no renewal counts or transactions")
        precondition(info.expirationDate == e.expires && info.startedDate == e.started)
        if t == nil { precondition(info.isActive == e.active, "without --at, isActive is v3's active") }
        if let t { precondition(info.isActive == ((e.started.map { $0.hasHappened(by: t) } ?? true) && (e.expires.map { t < $0 } ?? true))) }
        // A projection is never active before the record's start.
        if let t, let start = info.startedDate, !start.hasHappened(by: t) { precondition(!info.isActive && info.projectedBeforeStart == start) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQonversionDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let list = try QonversionWire.entitlements(bytes)
        // A malformed element is left out only beside a readable one; none readable is an error.
        precondition(list.problems.isEmpty || !list.entitlements.isEmpty, "nothing readable, yet no error")
        for problem in list.problems { precondition(problem.path.hasPrefix("data["), "a problem outside data[]") }
        for e in list.entitlements { check(e) }
    } catch {
        precondition(!error.description.isEmpty, "an error without words")
    }
    do { check(try QonversionWire.entitlement(bytes)) } catch {
        precondition(!error.description.isEmpty)
    }
    do {
        let user = try QonversionWire.userId(fromIdentity: bytes)
        precondition(!user.isEmpty, "an empty user id accepted")
    } catch {
        precondition(!error.description.isEmpty)
    }
    let parts = QonversionWire.error(bytes)
    _ = (parts.type, parts.code, parts.message)
    return 0
}
