// The did-you-mean for a customer not found: EditDistance.nearest, bounded so that a store of
// many ids costs one pass, agrees with the full distance it cuts short.

import XCTest
@testable import SubsModel

final class NearestIdsTests: XCTestCase {
    func testBoundedDistanceAgreesWithTheFullOneWithinTheBound() {
        var g = SeededGenerator(seed: 30)
        let alphabet = Array("abcé-_1")
        for _ in 0..<3000 {
            let a = String((0..<Int.random(in: 0...7, using: &g)).map { _ in alphabet.randomElement(using: &g)! })
            var b = Array(a)
            for _ in 0..<Int.random(in: 0...3, using: &g) {
                switch Int.random(in: 0..<4, using: &g) {
                case 0 where !b.isEmpty: b.remove(at: Int.random(in: 0..<b.count, using: &g))
                case 1: b.insert(alphabet.randomElement(using: &g)!, at: Int.random(in: 0...b.count, using: &g))
                case 2 where b.count > 1:
                    let i = Int.random(in: 0..<(b.count - 1), using: &g)
                    b.swapAt(i, i + 1)
                case 3 where !b.isEmpty: b[Int.random(in: 0..<b.count, using: &g)] = alphabet.randomElement(using: &g)!
                default: break
                }
            }
            let full = EditDistance.distance(a, String(b))
            let bounded = EditDistance.boundedDistance(Array(a), b, bound: 2)
            XCTAssertEqual(bounded, full <= 2 ? full : nil, "\(a) / \(String(b))")
        }
    }

    func testNearestAreThoseAtTheSmallestDistanceInListOrderAndNotTheWord() {
        let ids: [ID] = ["mia", "liam", "alice", "alice-android", "lima", "kim"]
        // liam is one swap away; mia and kim two: only the nearest are said.
        XCTAssertEqual(EditDistance.nearest(to: "lima", among: ids), ["liam"])
        XCTAssertEqual(EditDistance.nearest(to: "lim", among: ids), ["liam", "lima", "kim"])
        XCTAssertEqual(EditDistance.nearest(to: "alic", among: ids), ["alice"])
        XCTAssertEqual(EditDistance.nearest(to: "xyzzy", among: ids), [])
        XCTAssertEqual(EditDistance.nearest(to: "ki", among: ids + ["km", "kin", "ki"] as [ID], limit: 2), ["kim", "km"])
        XCTAssertEqual(EditDistance.nearest(to: "ki", among: ["a", "b", "ka", "kb", "kc", "kd"] as [ID]), ["ka", "kb", "kc"], "at most three")
        // Bytes decide sameness: the NFD spelling of an NFC id is near it, not it.
        XCTAssertEqual(EditDistance.nearest(to: "cafe\u{301}", among: ["caf\u{E9}"] as [ID]), ["caf\u{E9}"])
        XCTAssertEqual(EditDistance.nearest(to: "", among: ids), [])
    }
}
