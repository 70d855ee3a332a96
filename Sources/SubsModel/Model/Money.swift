// Money (SPEC section 4, "Money", rev. 4): prices as exact decimals and what a customer spent.
// Nothing here goes through a floating-point type: a vendor's `9.99` stays the digits 9, 9, 9 at
// scale 2, and sums are digit additions, so 0.1 + 0.2 is 0.3 and a total of ten thousand
// payments is exact to the last digit.

/// A non-negative exact decimal: `digits` (most significant first, no leading zeros; [] for zero)
/// divided by 10^`scale` (no trailing fractional zeros). Unbounded in size: sums never overflow.
public struct DecimalAmount: Hashable, Comparable, Sendable, CustomStringConvertible {
    public private(set) var digits: [UInt8]
    public private(set) var scale: Int

    public static let zero = DecimalAmount(digits: [], scale: 0)

    private init(digits: [UInt8], scale: Int) {
        self.digits = digits
        self.scale = scale
        normalize()
    }

    /// An amount in millionths (the store's `priceMicros`); nil when negative.
    public init?(micros: Int64) {
        guard micros >= 0 else { return nil }
        self.init(digits: String(micros).utf8.map { $0 - 48 }, scale: 6)
    }

    /// Longest amount text read (digits and exponent): a price is a few digits; a longer text is
    /// malformed, never a reason to allocate without bound ("1e999999999").
    public static let maximumDigits = 40

    /// Reads a decimal as a platform writes it: a JSON number's literal (`9.99`, `10`, `1.5E1`)
    /// or a decimal string (`"9.99"`, `"0009.90"`). nil for anything else: a sign (a negative
    /// price is not a price), spaces, a comma, `NaN`, an empty text, more than `maximumDigits`
    /// significant digits or an exponent moving the point further than that.
    public init?(exactly text: String) {
        var bytes = Array(text.utf8)[...]
        guard !bytes.isEmpty, bytes.count <= 2 * Self.maximumDigits + 8 else { return nil }
        var digits: [UInt8] = []
        var scale = 0
        var seenDigit = false
        while let b = bytes.first, b >= 48, b <= 57 { digits.append(b - 48); seenDigit = true; bytes.removeFirst() }
        if bytes.first == 46 { // "."
            bytes.removeFirst()
            var fraction = false
            while let b = bytes.first, b >= 48, b <= 57 { digits.append(b - 48); scale += 1; fraction = true; bytes.removeFirst() }
            guard fraction, seenDigit else { return nil } // "9." and ".5" are not JSON numbers
        }
        guard seenDigit else { return nil }
        if let e = bytes.first, e == 101 || e == 69 { // e, E
            bytes.removeFirst()
            var negative = false
            if bytes.first == 43 { bytes.removeFirst() } else if bytes.first == 45 { negative = true; bytes.removeFirst() }
            guard !bytes.isEmpty, bytes.count <= 3, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let exponent = bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard exponent <= Self.maximumDigits else { return nil }
            scale += negative ? exponent : -exponent
            bytes = []
        }
        guard bytes.isEmpty else { return nil }
        if scale < 0 { digits += Array(repeating: 0, count: -scale); scale = 0 }
        self.init(digits: digits, scale: scale)
        guard self.digits.count <= Self.maximumDigits, self.scale <= Self.maximumDigits else { return nil }
    }

    private mutating func normalize() {
        let firstSignificant = digits.firstIndex { $0 != 0 } ?? digits.count
        digits.removeFirst(firstSignificant)
        while scale > 0, let last = digits.last, last == 0 { digits.removeLast(); scale -= 1 }
        if digits.isEmpty { scale = 0 }
    }

    /// The digits at `scale` (≥ self.scale), least significant first.
    private func reversedDigits(at scale: Int) -> [UInt8] {
        Array(repeating: 0, count: scale - self.scale) + digits.reversed()
    }

    public static func + (a: DecimalAmount, b: DecimalAmount) -> DecimalAmount {
        let scale = max(a.scale, b.scale)
        let x = a.reversedDigits(at: scale), y = b.reversedDigits(at: scale)
        var sum: [UInt8] = []
        sum.reserveCapacity(max(x.count, y.count) + 1)
        var carry: UInt8 = 0
        for i in 0..<max(x.count, y.count) {
            let d = (i < x.count ? x[i] : 0) + (i < y.count ? y[i] : 0) + carry
            sum.append(d % 10)
            carry = d / 10
        }
        if carry > 0 { sum.append(carry) }
        return DecimalAmount(digits: sum.reversed(), scale: scale)
    }

    public static func += (a: inout DecimalAmount, b: DecimalAmount) { a = a + b }

    public static func < (a: DecimalAmount, b: DecimalAmount) -> Bool {
        let scale = max(a.scale, b.scale)
        let x = Array(a.reversedDigits(at: scale).reversed()), y = Array(b.reversedDigits(at: scale).reversed())
        if x.count != y.count { return x.count < y.count }
        return x.lexicographicallyPrecedes(y)
    }

    public var isZero: Bool { digits.isEmpty }

    /// The amount with at least `minimumFraction` fractional digits (a currency's minor units:
    /// `59.94`, `10.00`, JPY `1200`), never fewer than it holds: nothing is rounded away.
    public func text(minimumFraction: Int = 0) -> String {
        let fraction = max(scale, minimumFraction)
        var all = reversedDigits(at: fraction)
        while all.count < fraction + 1 { all.append(0) }
        let chars = all.reversed().map { Character(Unicode.Scalar($0 + 48)) }
        let integer = String(chars[..<(chars.count - fraction)])
        return fraction == 0 ? integer : integer + "." + String(chars[(chars.count - fraction)...])
    }

    public var description: String { text() }
}

/// ISO 4217 codes as subs checks them: three ASCII capital letters.
public enum CurrencyCode {
    public static func isValid(_ code: String) -> Bool {
        let bytes = Array(code.utf8)
        return bytes.count == 3 && bytes.allSatisfy { $0 >= 65 && $0 <= 90 }
    }

    /// Digits after the point a currency is shown with (ISO 4217's minor units): 0 for the
    /// currencies without a minor unit, 3 for the dinars and rials that have three, 2 otherwise.
    public static func minorUnits(_ code: String) -> Int {
        switch code {
        case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV",
             "XAF", "XOF", "XPF": return 0
        case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": return 3
        case "CLF", "UYW": return 4
        default: return 2
        }
    }

    /// An amount as `check` shows it: the currency's minor units, more digits when it has them.
    public static func format(_ amount: DecimalAmount, _ code: String) -> String {
        amount.text(minimumFraction: minorUnits(code))
    }
}

/// One payment a provider tells of, as `totalSpent` counts it.
public struct Payment: Equatable, Sendable {
    /// nil: the provider keeps no price for it (counted in `payments`, never in an amount).
    public var price: DecimalAmount?
    /// ISO 4217; nil with an unknown price.
    public var currency: String?
    /// Refunded as of T: counted in `payments` and `refunded`, not in the amount.
    public var refunded: Bool
    public var isSandbox: Bool
    /// How many payments this one stands for: 1, or nil when the provider sums several it does
    /// not count (RevenueCat API v2's revenue per subscription).
    public var count: Int?
    /// Why this payment's currency total is only part of what the customer paid (RevenueCat v1:
    /// a subscription's latest price stands for its earlier periods too, which it does not price).
    public var incompleteReason: String?

    public init(price: DecimalAmount?, currency: String?, refunded: Bool = false, isSandbox: Bool = false,
                count: Int? = 1, incompleteReason: String? = nil) {
        self.price = price
        self.currency = currency
        self.refunded = refunded
        self.isSandbox = isSandbox
        self.count = count
        self.incompleteReason = incompleteReason
    }
}

/// `totalSpent`'s element: one currency (or the payments without a price, `currency` nil).
public struct SpentTotal: Equatable, Sendable {
    public var currency: String?
    /// The payments not refunded, summed; nil for payments without a price.
    public var amount: DecimalAmount?
    /// Payments counted (refunded ones included); nil when the provider does not count them.
    public var payments: Int?
    public var refunded: Int?
    /// nil: the total is complete. Else one sentence on what it leaves out.
    public var incompleteReason: String?

    public init(currency: String?, amount: DecimalAmount?, payments: Int?, refunded: Int?, incompleteReason: String?) {
        self.currency = currency
        self.amount = amount
        self.payments = payments
        self.refunded = refunded
        self.incompleteReason = incompleteReason
    }

    public var complete: Bool { incompleteReason == nil }
}

/// What a customer spent, as a provider can tell it: the payments it knows of and, when it knows
/// it leaves some out for every currency (a page cap, no refunds), why.
public struct Spending: Equatable, Sendable {
    public var payments: [Payment]
    /// Applies to every total (Qonversion v4 marks no refund; a listing cut short).
    public var incompleteReason: String?
    /// Said for payments without a price (the local store: "the store keeps no price for …").
    public var unpricedReason: String

    public init(payments: [Payment], incompleteReason: String? = nil,
                unpricedReason: String = "the provider gives no price for them") {
        self.payments = payments
        self.incompleteReason = incompleteReason
        self.unpricedReason = unpricedReason
    }

    /// The payments of the environments `filter` counts.
    public func counting(_ filter: EnvironmentFilter) -> Spending {
        var kept = self
        kept.payments.removeAll { !filter.counts(isSandbox: $0.isSandbox, isGrant: false) }
        return kept
    }

    /// One total per currency, sorted by code, then the payments without a price. An amount is
    /// the sum of the payments not refunded; `payments` counts them all (refunds included).
    public var totals: [SpentTotal] {
        struct Tally {
            var amount = DecimalAmount.zero
            var payments: Int? = 0
            var refunded: Int? = 0
            var reasons: [String] = []
        }
        // Keyed by the code's bytes (SPEC section 7: strings from outside compare by bytes).
        var byCurrency: [[UInt8]: Tally] = [:]
        var unpriced = Tally()
        var anyUnpriced = false
        func add(_ p: Payment, to tally: inout Tally) {
            if let count = p.count {
                tally.payments = tally.payments.map { $0 + count }
                if p.refunded { tally.refunded = tally.refunded.map { $0 + count } }
            } else {
                tally.payments = nil
                tally.refunded = nil
            }
            if !p.refunded, let price = p.price { tally.amount += price }
            if let reason = p.incompleteReason, !tally.reasons.contains(reason) { tally.reasons.append(reason) }
        }
        for p in payments {
            if let currency = p.currency, p.price != nil {
                add(p, to: &byCurrency[Array(currency.utf8), default: Tally()])
            } else {
                anyUnpriced = true
                add(p, to: &unpriced)
            }
        }
        func reason(_ own: [String]) -> String? {
            let all = own + (incompleteReason.map { [$0] } ?? [])
            return all.isEmpty ? nil : all.joined(separator: "; ")
        }
        // Currency codes are ASCII (checked where they are read): ordered by their bytes.
        var out = byCurrency.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { code -> SpentTotal in
            let t = byCurrency[code]!
            return SpentTotal(currency: String(decoding: code, as: UTF8.self), amount: t.amount, payments: t.payments, refunded: t.refunded,
                              incompleteReason: reason(t.reasons))
        }
        if anyUnpriced {
            out.append(SpentTotal(currency: nil, amount: nil, payments: unpriced.payments, refunded: unpriced.refunded,
                                  incompleteReason: reason([unpricedReason] + unpriced.reasons)))
        }
        return out
    }
}
