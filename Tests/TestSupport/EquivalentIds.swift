// Ids that Swift's String calls equal (Unicode canonical equivalence) and subs must not (SPEC
// section 7, "Ids are bytes"): random pairs built from a table of canonically equivalent
// spellings, so that every test of the rule meets many kinds of equivalence, not one café.

import SubsJSON
import SubsModel

public enum EquivalentIds {
    /// Each row: spellings of one text that are canonically equivalent and differ in bytes.
    public static let spellings: [[String]] = [
        ["\u{E9}", "e\u{301}"],                                       // precomposed é, e + combining acute
        ["\u{C5}", "A\u{30A}", "\u{212B}"],                           // Å, A + ring, ANGSTROM SIGN (a singleton)
        ["K", "\u{212A}"],                                            // K, KELVIN SIGN (decomposes to ASCII)
        ["\u{3A9}", "\u{2126}"],                                      // Ω, OHM SIGN
        [";", "\u{37E}"],                                             // semicolon, GREEK QUESTION MARK
        ["\u{D55C}", "\u{1112}\u{1161}\u{11AB}"],                     // Hangul syllable, its conjoining jamo
        ["\u{AC00}", "\u{1100}\u{1161}"],
        ["q\u{323}\u{307}", "q\u{307}\u{323}"],                       // two combining marks in either order
        ["\u{1E0D}\u{307}", "\u{1E0B}\u{323}", "d\u{323}\u{307}", "d\u{307}\u{323}"],
        ["\u{1EC7}", "\u{1EB9}\u{302}", "\u{EA}\u{323}", "e\u{323}\u{302}"],   // ệ every way
        ["\u{3AC}", "\u{1F71}", "\u{3B1}\u{301}"],                    // Greek ά: tonos, oxia, alpha + acute
        ["\u{F6}", "o\u{308}"],
        ["\u{F1}", "n\u{303}"],
        ["\u{8C48}", "\u{F900}"],                                     // a CJK compatibility ideograph
    ]

    /// Plain pieces put between the equivalent ones.
    static let plain = ["caf", "user-", "_", "42", "x", ".", "-mail", "pro", "Z"]
    static let leading = ["caf", "user-", "x", "pro", "Z"]

    /// Two ids that Swift's `==` calls equal and whose bytes differ: one to three rows of the
    /// table, each spelled two ways at random (the same way, sometimes), with plain text around.
    public static func pair<G: RandomNumberGenerator>(using g: inout G) -> (ID, ID) {
        while true {
            var a = "", b = ""
            // Never a leading '-' (an option to the command line) or '.'.
            if Bool.random(using: &g) { let p = leading.randomElement(using: &g)!; a += p; b += p }
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                let row = spellings.randomElement(using: &g)!
                a += row.randomElement(using: &g)!
                b += row.randomElement(using: &g)!
                if Bool.random(using: &g) { let p = plain.randomElement(using: &g)!; a += p; b += p }
            }
            // (IDTests checks that every row is canonically equivalent, as Swift's == says.)
            if Array(a.utf8) != Array(b.utf8) { return (ID(a), ID(b)) }
        }
    }

    /// `count` pairs, all of them different ids.
    public static func pairs<G: RandomNumberGenerator>(_ count: Int, using g: inout G) -> [(ID, ID)] {
        var seen: Set<ID> = []
        var out: [(ID, ID)] = []
        while out.count < count {
            let (a, b) = pair(using: &g)
            guard !seen.contains(a), !seen.contains(b) else { continue }
            seen.formUnion([a, b])
            out.append((a, b))
        }
        return out
    }
}

/// SplitMix64: seeded, so that a failure names a seed to replay.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A store in which every kind of id comes in a canonically equivalent pair (SPEC section 7): two
/// customers, two aliases, two products, two entitlements, two chains and two transaction ids of
/// one customer, two grant ids. What each command and route must answer is known in advance:
/// - `a` has `alias1`; a subscription of `product1` (unlocking `entitlement1`) on chain `chain1`,
///   active at `testNow`, whose first transaction is `transaction1`; and an older chain `chain2`
///   of `product1` (first transaction `transaction2`, one renewal), expired. renewsCount 0.
/// - `b` has `alias2` and two manual grants of `entitlement2` (`grant1` lifetime, `grant2` expired).
/// - `product2` unlocks `entitlement2`; nobody bought it.
/// Were any pair one key, `a` would show `entitlement2`, chain1 would renew twice, `b` would
/// answer for `a`, the validator would find duplicates.
public struct EquivalentIdStore {
    public let a: ID, b: ID
    public let alias1: ID, alias2: ID
    public let product1: ID, product2: ID
    public let entitlement1: ID, entitlement2: ID
    public let chain1: ID, chain2: ID
    public let transaction1: ID, transaction2: ID
    public let grant1: ID, grant2: ID
    /// Two more ids, equivalent to each other, that name no customer (for `--create`).
    public let new1: ID, new2: ID

    public init<G: RandomNumberGenerator>(using g: inout G) {
        let pairs = EquivalentIds.pairs(8, using: &g)
        (a, b) = pairs[0]
        (alias1, alias2) = pairs[1]
        (product1, product2) = pairs[2]
        (entitlement1, entitlement2) = pairs[3]
        (chain1, chain2) = pairs[4]
        (transaction1, transaction2) = pairs[5]
        (grant1, grant2) = pairs[6]
        (new1, new2) = pairs[7]
    }

    /// Every id of the store, for a description of a failure.
    public var description: String {
        [("a", a), ("b", b), ("alias1", alias1), ("alias2", alias2), ("product1", product1), ("product2", product2),
         ("entitlement1", entitlement1), ("entitlement2", entitlement2), ("chain1", chain1), ("chain2", chain2),
         ("transaction1", transaction1), ("transaction2", transaction2), ("grant1", grant1), ("grant2", grant2),
         ("new1", new1), ("new2", new2)].map { "\($0.0)=\($0.1.debugDescription)" }.joined(separator: " ")
    }

    public var json: String {
        func s(_ id: ID) -> String { JSON.quote(id.string) }
        func transaction(_ id: String, chain: ID, type: String, on date: String, expires: String) -> String {
            #"{"transactionId": \#(id), "originalTransactionId": \#(s(chain)), "productId": \#(s(product1)), "type": "\#(type)", "transactionDate": "\#(date)", "expirationDate": "\#(expires)", "source": "appstore"}"#
        }
        return """
        {
          "schemaVersion": 1,
          "products": {
            \(s(product1)): {"type": "subscription", "entitlements": [\(s(entitlement1))]},
            \(s(product2)): {"type": "subscription", "entitlements": [\(s(entitlement2))]}
          },
          "customers": {
            \(s(a)): {
              "aliases": [\(s(alias1))],
              "transactions": [
                \(transaction(s(transaction2), chain: chain2, type: "subscriptionStarted", on: "2026-09-01T00:00:00Z", expires: "2026-10-01T00:00:00Z")),
                \(transaction(JSON.quote("renewal-of-2"), chain: chain2, type: "subscriptionRenewed", on: "2026-10-01T00:00:00Z", expires: "2026-11-01T00:00:00Z")),
                \(transaction(s(transaction1), chain: chain1, type: "subscriptionStarted", on: "2026-11-20T00:00:00Z", expires: "2026-12-20T00:00:00Z"))
              ]
            },
            \(s(b)): {
              "aliases": [\(s(alias2))],
              "grants": [
                {"id": \(s(grant1)), "entitlement": \(s(entitlement2)), "grantedAt": "2026-06-01T00:00:00Z", "expirationDate": null},
                {"id": \(s(grant2)), "entitlement": \(s(entitlement2)), "grantedAt": "2026-01-01T00:00:00Z", "expirationDate": "2026-02-01T00:00:00Z"}
              ]
            }
          }
        }

        """
    }
}
