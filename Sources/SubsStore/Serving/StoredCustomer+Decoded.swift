// A served customer decoded for the rules: the status routes of `subs serve` (entitlements,
// history, renewal counts) judge the same bytes the record route splices, from the same version.

import Foundation
import SubsJSON
import SubsModel

/// The catalog of the version served last, decoded once: every status request of a version
/// carries the same catalog bytes.
package final class ServedCatalog: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (products: [UInt8], catalog: Catalog)?

    package init() {}

    package func catalog(of products: [UInt8]) throws -> Catalog {
        if let hit = lock.withLock({ last.flatMap { $0.products == products ? $0.catalog : nil } }) { return hit }
        var decoder = RecordDecoder()
        let catalog = decoder.catalog(try JSON.parse(products))
        lock.withLock { last = (products, catalog) }
        return catalog
    }
}

extension StoredCustomer {
    /// The record and its version's catalog, decoded as a local read decodes them (the record was
    /// checked when its version was: a problem here means the bytes changed under the read).
    package func decoded(path: String, catalogs: ServedCatalog) throws -> (record: CustomerRecord, catalog: Catalog) {
        var decoder = RecordDecoder()
        let catalog = try catalogs.catalog(of: products)
        let record = decoder.customer(id: id, try JSON.parse(self.record), catalog: catalog,
                                      path: JSONPath.member("customers", id))
        guard let record, decoder.problems.isEmpty else {
            throw StoreError.invalid(path: path, problems: decoder.problems)
        }
        return (record, catalog)
    }
}
