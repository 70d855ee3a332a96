// The benchmark's own pseudo-random numbers: SplitMix64, so a seed gives the same store on every
// machine and toolchain (the standard library's generators promise no such thing).

struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// An independent stream per customer: customer `n` looks the same whatever the store size.
    init(seed: UInt64, stream: Int) {
        state = SplitMix64.mix(seed ^ SplitMix64.mix(UInt64(stream) &+ 0x632B_E59B_D9B4_E019))
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// A uniform integer in `0..<n` (n > 0); the modulo bias is below 2^-40 for the small n used here.
    mutating func below(_ n: Int) -> Int {
        Int(next() % UInt64(n))
    }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * 0x1p-53 < p
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }

    /// The SplitMix64 finaliser: a bijection on UInt64, so distinct inputs give distinct outputs.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
