// Decodes the customers asked for while the scan is still running, on another core: a store
// lists its catalog before its customers, so each one found can be decoded right behind the
// scanner, while its bytes are still in memory.

import Dispatch
import Foundation
import SubsJSON

final class EarlyDecoder {
    private let file: MappedFile
    /// Concurrent: while the scan runs, the other core decodes; once it ends, both do.
    private let queue = DispatchQueue(label: "subs.early-decoder", attributes: .concurrent)
    private let group = DispatchGroup()
    private var catalog: Catalog?
    /// Decoded records by key offset, written under `lock`, read after `finish()`.
    private var decoded: [Int: CustomerRecord] = [:]
    private let lock = NSLock()
    private var submitted: Set<Int> = []

    init(file: MappedFile) {
        self.file = file
    }

    /// The catalog was scanned (before any customer, in a well-formed store): decode it now.
    /// A catalog with problems leaves everything to the regular path, which reports them.
    func productsScanned(_ range: Range<Int>) {
        guard let value = try? JSON.parse(file.bytes, range: range) else { return }
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(value)
        if decoder.problems.isEmpty { self.catalog = catalog }
    }

    /// A customer that was asked for has been scanned: decode it on the other core.
    func customerScanned(_ span: CustomerSpan) {
        guard let catalog, submitted.insert(span.keyOffset).inserted else { return }
        queue.async(group: group) { [self] in
            // Anything but a clean record is left to the regular path, which reports it.
            guard let value = try? JSON.parse(file.bytes, range: span.range) else { return }
            var decoder = RecordDecoder()
            if let record = decoder.customer(id: span.id, value, catalog: catalog,
                                             path: JSONPath.member("customers", span.id)),
               decoder.problems.isEmpty {
                lock.lock()
                decoded[span.keyOffset] = record
                lock.unlock()
            }
        }
    }

    /// Waits for the decoding under way; returns what was decoded, by key offset.
    func finish() -> [Int: CustomerRecord] {
        group.wait()
        return decoded
    }
}
