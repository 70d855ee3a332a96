// Per-customer work (decode, evaluate, render) is independent: spread it over the cores when
// there is enough of it to pay for the threads.

import Dispatch

extension Array {
    /// `map`, run on all cores for large arrays; results keep their order. The first error
    /// thrown (in element order) is rethrown.
    public func concurrentMap<T>(minimumCount: Int = 256, _ transform: (Element) throws -> T) throws -> [T] {
        guard count >= minimumCount else { return try map(transform) }
        let chunks = Swift.min(count, 64)
        var results = [Result<T, Error>?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { slots in
            let base = slots   // each chunk writes only its own slots
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                let start = count * chunk / chunks, end = count * (chunk + 1) / chunks
                for i in start..<end {
                    base[i] = Result { try transform(self[i]) }
                }
            }
        }
        return try results.map { try $0!.get() }
    }
}
