// Decodes the customers asked for while the scan is still running: a store lists its catalog
// before its customers, so each one found can be decoded right behind the scanner, while its
// bytes are still in memory. One helper thread decodes during the scan (the scanner has the
// other core); once the scan ends, the scanning thread joins in on what is left.

import Foundation
import SubsJSON
import SubsModel

// Shared with one helper thread: its queue and results are guarded by `condition`; the catalog is set before the helper starts.
final class EarlyDecoder: @unchecked Sendable {
    private let file: MappedFile
    private var catalog: Catalog?
    private var submitted: Set<Int> = []
    private let condition = NSCondition()
    private var helper: WorkerThread?
    // Guarded by `condition`:
    private var work: [CustomerSpan] = []
    private var next = 0
    private var scanEnded = false
    private var decoded: [Int: CustomerRecord] = [:]
    private var result: [Int: CustomerRecord]?

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

    /// A customer that was asked for has been scanned: queue it for decoding.
    func customerScanned(_ span: CustomerSpan) {
        guard catalog != nil, submitted.insert(span.keyOffset).inserted else { return }
        condition.lock()
        work.append(span)
        condition.signal()
        condition.unlock()
        if helper == nil {
            helper = WorkerThread { [self] in drain(waitForScan: true) }
        }
    }

    /// Ends the scan's part: decodes what is left together with the helper, and returns every
    /// record decoded, by key offset. Called again, it answers the same.
    func finish() -> [Int: CustomerRecord] {
        if let result { return result }
        condition.lock()
        scanEnded = true
        condition.broadcast()
        condition.unlock()
        drain(waitForScan: false)
        helper?.join()
        result = decoded
        return decoded
    }

    /// Takes queued customers one at a time and decodes them; with `waitForScan`, waits for
    /// more until the scan has ended.
    private func drain(waitForScan: Bool) {
        guard let catalog else { return }
        while true {
            condition.lock()
            while waitForScan && next == work.count && !scanEnded { condition.wait() }
            guard next < work.count else {
                condition.unlock()
                return
            }
            let span = work[next]
            next += 1
            condition.unlock()
            // Anything but a clean record is left to the regular path, which reports it.
            guard let value = try? JSON.parse(file.bytes, range: span.range) else { continue }
            var decoder = RecordDecoder()
            if let record = decoder.customer(id: span.id, value, catalog: catalog,
                                             path: JSONPath.member("customers", span.id)),
               decoder.problems.isEmpty {
                condition.lock()
                decoded[span.keyOffset] = record
                condition.unlock()
            }
        }
    }
}
