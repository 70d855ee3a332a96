// Per-customer work (decode, evaluate, render) is independent: spread it over the cores when
// there is enough of it to pay for the threads.

import Dispatch

extension Array {
    /// `map`, run on all cores for large arrays; results keep their order. The first error
    /// thrown (in element order) is rethrown.
    ///
    /// `transform` is called from several threads at once: it must only read what it captures
    /// (every caller passes a pure function of the element and of values it does not change).
    public func concurrentMap<T>(minimumCount: Int = 256, _ transform: (Element) throws -> T) throws -> [T] {
        guard count >= minimumCount else { return try map(transform) }
        let chunks = Swift.min(count, 64)
        var results = [Result<T, Error>?](repeating: nil, count: count)
        withoutActuallyEscaping(transform) { transform in
            results.withUnsafeMutableBufferPointer { slots in
                // Each chunk writes only its own slots and reads only the array and `transform`,
                // which nothing changes while the threads run: sharing them is safe.
                let shared = SharedForConcurrentMap(elements: self, slots: slots, transform: transform)
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    let start = shared.elements.count * chunk / chunks
                    let end = shared.elements.count * (chunk + 1) / chunks
                    for i in start..<end {
                        shared.slots[i] = Result { try shared.transform(shared.elements[i]) }
                    }
                }
            }
        }
        return try results.map { try $0!.get() }
    }
}

extension Array {
    /// `concurrentMap` of a transform that cannot fail.
    public func concurrentMap<T>(minimumCount: Int = 256, _ transform: (Element) -> T) -> [T] {
        // The throwing version rethrows only what `transform` throws: nothing here.
        try! concurrentMap(minimumCount: minimumCount, { (element: Element) throws -> T in transform(element) })
    }
}

/// What the threads of `concurrentMap` share; see the invariant there.
private struct SharedForConcurrentMap<Element, T>: @unchecked Sendable {
    let elements: [Element]
    let slots: UnsafeMutableBufferPointer<Result<T, Error>?>
    let transform: (Element) throws -> T
}
